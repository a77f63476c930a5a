package node

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// testTimeout bounds every network step of a test.
const testTimeout = 10 * time.Second

// clusterStartTimeout bounds the start of a cluster's nodes (startNodes).
const clusterStartTimeout = 60 * time.Second

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// parse decodes a JSON config with env as the environment.
func parse(t testing.TB, doc string, env map[string]string) *config.Config {
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
	return startWith(t, cfg, Options{Dir: dir})
}

// startWith is start with the node's options.
func startWith(t *testing.T, cfg *config.Config, opts Options) *Node {
	t.Helper()
	n, err := New(cfg, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	startNode(t, n)
	return n
}

// startNode starts n, stopped at the end of the test.
func startNode(t testing.TB, n *Node) {
	t.Helper()
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := n.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
}

// startNodes starts nodes at once (the nodes of a cluster wait for each
// other at start) and stops them at the end of the test; a failed start
// fails the test from its own goroutine.
func startNodes(t testing.TB, nodes ...*Node) {
	t.Helper()
	for i, err := range tryStartNodes(t, nodes) {
		if err != nil {
			t.Fatalf("Start of node %d: %v", i, err)
		}
	}
}

// tryStartNodes starts nodes at once and returns each one's error; those
// that started stop at the end of the test.
func tryStartNodes(t testing.TB, nodes []*Node) []error {
	t.Helper()
	// A cluster's start waits for its tables' leader elections, which
	// take many seconds under -race on a busy machine.
	ctx, cancel := context.WithTimeout(t.Context(), clusterStartTimeout)
	t.Cleanup(cancel) // as testCtx's: what a start begins may outlive it
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() { errs[i] = n.Start(ctx) })
	}
	wg.Wait()
	for i, n := range nodes {
		if errs[i] == nil {
			t.Cleanup(func() { stopBounded(t, n) })
		}
	}
	return errs
}

// stopBounded stops n, bounded by testTimeout (also at the end of a
// test, when testCtx has ended).
func stopBounded(t testing.TB, n *Node) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := n.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
}

// startCluster starts at once the n nodes that build makes for n route
// addresses the OS just chose (each node's embedded NATS listens on its
// own), built again on other ports when one was taken meanwhile
// (clustertest.OnFreeAddrs). They stop at the end of the test.
func startCluster(t testing.TB, n int, build func(addrs []string) []*Node) []*Node {
	t.Helper()
	var nodes []*Node
	clustertest.OnFreeAddrs(t, n, func(addrs []string) error {
		nodes = build(addrs)
		err := errors.Join(tryStartNodes(t, nodes)...)
		if err != nil {
			for _, nd := range nodes {
				stopBounded(t, nd) // those that started; stopping again later is a no-op
			}
		}
		return err
	})
	return nodes
}

// startLogged builds and starts the node of doc with its log in the
// returned buffer; the node stops at the end of the test.
func startLogged(t *testing.T, doc string) (*Node, *syncBuffer) {
	t.Helper()
	var buf syncBuffer
	n := startWith(t, parse(t, doc, nil), Options{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	return n, &buf
}

// syncBuffer is a log sink for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// listenerDoc is a node with one transport of kind ("web": WAMP at /ws)
// on 127.0.0.1, whose endpoint has the extra members given (such as
// connection caps; "" for none).
func listenerDoc(kind, endpointMembers string) string {
	paths := ""
	if kind == "web" {
		paths = `, "paths": {"ws": {"type": "websocket"}}`
	}
	if endpointMembers != "" {
		endpointMembers = ", " + endpointMembers
	}
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "` + kind + `", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0` + endpointMembers + `}` + paths + `}]}]}`
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
