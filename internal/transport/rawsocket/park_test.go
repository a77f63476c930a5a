package rawsocket

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/transport/transporttest"
)

// TestIdleSessionParks: a session idle for the reader's linger parks (its
// goroutine ends), is resumed by the next message, parks again, and ends
// when the client leaves, telling the server (Ended).
func TestIdleSessionParks(t *testing.T) {
	transporttest.SkipUnlessParkable(t)
	t.Parallel()
	echo := transporttest.NewParkingEcho()
	p := dial(t, serve(t, Options{Attacher: echo}), DialOptions{})
	msgs := sampleMessages()
	transporttest.EchoOnce(t, p, msgs[1])
	<-echo.Parked
	transporttest.EchoOnce(t, p, msgs[2])
	<-echo.Parked
	p.Close()
	if err := <-echo.Errs; err != io.EOF {
		t.Fatalf("server read %v after the client left, want EOF", err)
	}
	<-echo.Ended
}

// TestParkedSessionServerClose: closing the server ends its parked
// sessions (closing a parked connection resumes its session, which finds
// it closed), and Close returns once they have ended.
func TestParkedSessionServerClose(t *testing.T) {
	transporttest.SkipUnlessParkable(t)
	t.Parallel()
	echo := transporttest.NewParkingEcho()
	s, err := NewServer(Options{Attacher: echo})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	p := dial(t, l.Addr().String(), DialOptions{})
	transporttest.EchoOnce(t, p, sampleMessages()[1])
	<-echo.Parked
	s.Close()
	<-echo.Ended
	if _, err := p.Recv(); err == nil {
		t.Fatal("client still connected after the server closed")
	}
}

// TestParkedSessionPingTimeout: the keepalive still runs for a parked
// session: a client that answers no ping is closed, which resumes the
// session with the ping timeout.
func TestParkedSessionPingTimeout(t *testing.T) {
	transporttest.SkipUnlessParkable(t)
	t.Parallel()
	echo := transporttest.NewParkingEcho()
	// The session parks after idlereader.Linger (250 ms), the ping follows.
	addr := serve(t, Options{Attacher: echo, PingInterval: time.Second, PingTimeout: 250 * time.Millisecond})
	c := dialRaw(t, addr) // reads nothing: answers no ping
	c.open()
	<-echo.Parked
	if err := <-echo.Errs; err != ErrPingTimeout {
		t.Fatalf("server read %v, want ErrPingTimeout", err)
	}
	<-echo.Ended
}
