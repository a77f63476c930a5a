package websocket

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
// with the close handshake when the client leaves, telling the handler
// (Ended), which answers the client's close frame.
func TestIdleSessionParks(t *testing.T) {
	parkable(t)
	t.Parallel()
	echo := transporttest.NewParkingEcho()
	url := serve(t, Options{Attacher: echo, CloseHandshakeTimeout: time.Minute})
	p := dial(t, url, DialOptions{})
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

// TestParkedSessionPingTimeout: the keepalive still runs for a parked
// session: a client that answers no ping is closed, which resumes the
// session with the ping timeout.
func TestParkedSessionPingTimeout(t *testing.T) {
	parkable(t)
	t.Parallel()
	echo := transporttest.NewParkingEcho()
	// The session parks after idlereader.Linger (250 ms), the ping follows.
	url := serve(t, Options{Attacher: echo, PingInterval: time.Second, PingTimeout: 250 * time.Millisecond})
	dialRaw(t, url, "wamp.2.json") // reads nothing: answers no ping
	<-echo.Parked
	if err := <-echo.Errs; err != ErrPingTimeout {
		t.Fatalf("server read %v, want ErrPingTimeout", err)
	}
	<-echo.Ended
}
