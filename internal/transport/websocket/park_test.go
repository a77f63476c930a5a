package websocket

import (
	"io"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/transport/transporttest"
)

// TestIdleSessionParks: a session idle for the reader's linger parks (its
// goroutine ends), is resumed by the next message, parks again, and ends
// with the close handshake when the client leaves, telling the handler
// (Ended), which answers the client's close frame.
func TestIdleSessionParks(t *testing.T) {
	transporttest.SkipUnlessParkable(t)
	t.Parallel()
	echo := transporttest.NewParkingEcho()
	url := serve(t, Options{Attacher: echo, CloseHandshakeTimeout: time.Minute})
	p := dial(t, url, DialOptions{})
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

// TestParkedSessionPingTimeout: the keepalive still runs for a parked
// session: a client that answers no ping is closed, which resumes the
// session with the ping timeout.
func TestParkedSessionPingTimeout(t *testing.T) {
	transporttest.SkipUnlessParkable(t)
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
