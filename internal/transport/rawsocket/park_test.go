package rawsocket

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/transport/idlepoll"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/internal/wamp"
)

// parkable skips the test where sessions cannot park.
func parkable(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !idlepoll.Parkable(c) {
		t.Skip("sessions park on Linux only")
	}
}

// echoOnce sends m and checks that it comes back.
func echoOnce(t *testing.T, p wamp.Peer, m wamp.Message) {
	t.Helper()
	if err := p.Send(m); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Recv(); err != nil || got.Type() != m.Type() {
		t.Fatalf("echo %v, %v", got, err)
	}
}

// TestIdleSessionParks: a session idle for the reader's linger parks (its
// goroutine ends), is resumed by the next message, parks again, and ends
// when the client leaves, telling the server (Ended).
func TestIdleSessionParks(t *testing.T) {
	parkable(t)
	t.Parallel()
	echo := transporttest.NewParkingEcho()
	p := dial(t, serve(t, Options{Attacher: echo}), DialOptions{})
	msgs := sampleMessages()
	echoOnce(t, p, msgs[1])
	<-echo.Parked
	echoOnce(t, p, msgs[2])
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
	parkable(t)
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
	echoOnce(t, p, sampleMessages()[1])
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
	parkable(t)
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
