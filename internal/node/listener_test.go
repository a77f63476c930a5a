package node

import (
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/junction-wamp/junction/internal/web"
)

// TestListenerEndLogged: a listener whose Serve ends while the node runs
// is logged at once, at error level (F1's dead RawSocket
// listener only in the stop's error); a stop logs no such line.
func TestListenerEndLogged(t *testing.T) {
	for _, kind := range []string{"rawsocket", "websocket", "web"} {
		t.Run(kind, func(t *testing.T) {
			n, log := startLogged(t, listenerDoc(kind, ""))
			l := n.listeners[0]
			l.ln.Close() // as if the socket failed for good
			<-l.done
			want := `level=ERROR msg="listener stopped accepting connections while the node runs" transport=workers[0].transports[0]`
			if !strings.Contains(log.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		})
	}
}

// TestListenerStopNotLogged: a node that stops logs no listener end.
func TestListenerStopNotLogged(t *testing.T) {
	n, log := startLogged(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}},
			{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`)
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("stop logged an error:\n%s", log)
	}
}

// emfileListener fails its first fails Accepts with EMFILE, as the
// listener of a process out of descriptors does, then accepts.
type emfileListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *emfileListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestWebAcceptRetries: a web listener whose accepts fail with EMFILE
// serves again afterwards (net/http retries), and the failures are logged
// at warn level, rate-limited: one line for the burst.
func TestWebAcceptRetries(t *testing.T) {
	var log syncBuffer
	s, err := web.NewServer(web.ServerOptions{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &emfileListener{Listener: ln}
	l.fails.Store(4)
	srv := webServer{Server: s, log: slog.New(slog.NewTextHandler(&log, nil))}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	defer func() {
		if err := srv.shutdown(testCtx(t), l); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve = %v after shutdown", err)
		}
	}()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatalf("GET after the accept errors: %v", err)
	}
	resp.Body.Close()
	if n := strings.Count(log.String(), `level=WARN msg="web: accept failed"`); n != 1 {
		t.Errorf("%d accept warnings for a burst of 4, want 1:\n%s", n, &log)
	}
	if !strings.Contains(log.String(), "too many open files") {
		t.Errorf("the warning lacks the error:\n%s", &log)
	}
}
