package node

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/internal/wamp"
)

// testTimeout bounds every network step of a test.
const testTimeout = 10 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// parse decodes a JSON config with env as the environment.
func parse(t *testing.T, doc string, env map[string]string) *config.Config {
	t.Helper()
	l := config.Loader{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	cfg, _, err := l.Parse([]byte(doc), config.JSON)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

// zeroPorts rewrites every TCP listening port to 0, so tests never bind
// fixed ports.
func zeroPorts(cfg *config.Config) *config.Config {
	for _, w := range cfg.Workers {
		rw, ok := w.(*config.RouterWorker)
		if !ok {
			continue
		}
		for _, t := range rw.Transports {
			if e := endpointOf(t); e != nil && e.Type == "tcp" {
				e.Port = 0
			}
		}
	}
	return cfg
}

func endpointOf(t config.Transport) *config.ListenEndpoint {
	switch t := t.(type) {
	case *config.WebTransport:
		return &t.Endpoint
	case *config.WebSocketTransport:
		return &t.Endpoint
	case *config.RawSocketTransport:
		return &t.Endpoint
	}
	return nil
}

// start builds and starts a node, stopped at the end of the test.
func start(t *testing.T, cfg *config.Config, dir string) *Node {
	t.Helper()
	n, err := New(cfg, Options{Dir: dir})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return n
}

// address returns the address of the listener of transport path.
func address(t *testing.T, n *Node, path string) string {
	t.Helper()
	for _, l := range n.Listeners() {
		if l.Transport == path {
			return l.Address
		}
	}
	t.Fatalf("no listener %s in %v", path, n.Listeners())
	return ""
}

// joinWS joins realm over WebSocket at url.
func joinWS(t *testing.T, url string, opts websocket.DialOptions, cfg client.Config) (*client.Session, error) {
	t.Helper()
	p, err := websocket.Dial(testCtx(t), url, opts)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	s, err := client.Join(testCtx(t), p, cfg)
	return closeLater(t, s, err)
}

// mustWS joins over WebSocket or fails the test.
func mustWS(t *testing.T, url string, opts websocket.DialOptions, cfg client.Config) *client.Session {
	t.Helper()
	s, err := joinWS(t, url, opts, cfg)
	if err != nil {
		t.Fatalf("join %s: %v", url, err)
	}
	return s
}

// mustRaw joins over RawSocket or fails the test.
func mustRaw(t *testing.T, network, addr string, cfg client.Config) *client.Session {
	t.Helper()
	s, err := joinRaw(t, network, addr, cfg)
	if err != nil {
		t.Fatalf("join %s %s: %v", network, addr, err)
	}
	return s
}

// joinRaw joins realm over RawSocket.
func joinRaw(t *testing.T, network, addr string, cfg client.Config) (*client.Session, error) {
	t.Helper()
	p, err := rawsocket.Dial(testCtx(t), network, addr, rawsocket.DialOptions{Serializer: "json"})
	if err != nil {
		t.Fatalf("dial %s %s: %v", network, addr, err)
	}
	s, err := client.Join(testCtx(t), p, cfg)
	return closeLater(t, s, err)
}

func closeLater(t *testing.T, s *client.Session, err error) (*client.Session, error) {
	if s != nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// wampURIOf returns the URI of the *wamp.RequestError in err, or "".
func wampURIOf(err error) wamp.URI {
	var re *wamp.RequestError
	if errors.As(err, &re) {
		return re.URI
	}
	return ""
}

// echo registers proc on s, returning its first argument.
func echo(t *testing.T, s *client.Session, proc wamp.URI) {
	t.Helper()
	_, err := s.Register(testCtx(t), proc, func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args}, nil
	}, nil)
	if err != nil {
		t.Fatalf("register %s: %v", proc, err)
	}
}

// callEcho calls proc with "hi" and checks the echo.
func callEcho(t *testing.T, s *client.Session, proc wamp.URI) {
	t.Helper()
	res, err := s.Call(testCtx(t), proc, wamp.List{"hi"}, nil)
	if err != nil {
		t.Fatalf("call %s: %v", proc, err)
	}
	if len(res.Args) != 1 || res.Args[0] != "hi" {
		t.Fatalf("call %s = %v", proc, res.Args)
	}
}

func splitHostPort(t *testing.T, addr string) (host, port string, err error) {
	t.Helper()
	host, port, err = net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return host, port, nil
}
