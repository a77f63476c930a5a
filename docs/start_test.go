package docs

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/node"
)

// testTimeout bounds every network step of a test.
const testTimeout = 10 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// running is a started example. An example with container or guest
// workers runs as two nodes: node with its router workers, then
// containers with its container and guest workers, whose components'
// endpoints and guests' URLs are pointed at the real addresses of node's
// listeners (they listen on port 0, so the addresses are only known once
// node has started). In production both halves are one node; the
// components and guests reach the router over TCP either way.
type running struct {
	node       *node.Node
	containers *node.Node // nil without container workers
	pki        *testPKI   // nil without TLS
}

// startExample loads examples/name, rewrites it (see rewrite), applies
// edits (which point an example's upstream URLs at test servers), starts
// it, and stops it at the end of the test.
func startExample(t *testing.T, name string, edits ...func(*config.Config)) *running {
	t.Helper()
	cfg, _ := load(t, filepath.Join("examples", name))
	rw := rewrite(t, cfg)
	for _, edit := range edits {
		edit(cfg)
	}
	routers, containers := splitWorkers(cfg)
	r := &running{pki: rw.pki, node: startNode(t, routers)}
	if containers != nil {
		rw.connect(containers, r.node.Listeners())
		r.containers = startNode(t, containers)
		// Container components join and register in the background.
		if err := r.containers.WaitComponents(testCtx(t)); err != nil {
			t.Fatalf("container components: %v", err)
		}
	}
	return r
}

// startNode starts cfg and stops it at the end of the test.
func startNode(t *testing.T, cfg *config.Config) *node.Node {
	t.Helper()
	n, err := launch(t, testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// launch builds and starts cfg within ctx, to be stopped at the end of
// the test; unlike startNode, it may run on another goroutine than the
// test's.
func launch(t *testing.T, ctx context.Context, cfg *config.Config) (*node.Node, error) {
	n, err := node.New(cfg, node.Options{Dir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		return nil, fmt.Errorf("node.New: %w", err)
	}
	if err := n.Start(ctx); err != nil {
		return nil, fmt.Errorf("Start: %w", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return n, nil
}

// splitWorkers returns cfg's router workers and, when it has any, its
// container and guest workers, as two configurations.
func splitWorkers(cfg *config.Config) (routers, containers *config.Config) {
	r, c := *cfg, *cfg
	r.Workers, c.Workers = nil, nil
	for _, w := range cfg.Workers {
		switch w.(type) {
		case *config.ContainerWorker, *config.GuestWorker:
			c.Workers = append(c.Workers, w)
		default:
			r.Workers = append(r.Workers, w)
		}
	}
	if len(c.Workers) == 0 {
		return cfg, nil
	}
	return &r, &c
}

// stop stops the containers, then the routers.
func (r *running) stop(ctx context.Context) error {
	if r.containers != nil {
		if err := r.containers.Stop(ctx); err != nil {
			return err
		}
	}
	return r.node.Stop(ctx)
}

// addr returns the address of the listener of transport path, such as
// "workers[0].transports[1]".
func (r *running) addr(t *testing.T, path string) string {
	t.Helper()
	for _, l := range r.node.Listeners() {
		if l.Transport == path {
			return l.Address
		}
	}
	t.Fatalf("no listener %s in %+v", path, r.node.Listeners())
	return ""
}

// pkiClientConfig is a client TLS config that trusts the test CA (nil
// without TLS).
func (r *running) pkiClientConfig() *tls.Config {
	if r.pki == nil {
		return nil
	}
	return &tls.Config{RootCAs: r.pki.pool()}
}

// get sends GET url (https when the example has TLS), without following
// redirects, and returns the response with its body read.
func (r *running) get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true, TLSClientConfig: r.pkiClientConfig()}
	c := &http.Client{Transport: tr, Timeout: testTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp, string(b)
}

// transportCount counts the listening transports of cfg's enabled router
// workers.
func transportCount(cfg *config.Config) int {
	n := 0
	for _, w := range cfg.Workers {
		if r, ok := w.(*config.RouterWorker); ok && !r.Options.Disabled {
			n += len(r.Transports)
		}
	}
	return n
}

// TestExamplesStart starts and stops every example: each transport must
// listen on its real address.
func TestExamplesStart(t *testing.T) {
	for _, file := range examples(t) {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			cfg, _ := load(t, file)
			r := startExample(t, name)
			ls := r.node.Listeners()
			if len(ls) != transportCount(cfg) {
				t.Fatalf("listeners %+v, want %d", ls, transportCount(cfg))
			}
			for _, l := range ls {
				if strings.HasSuffix(l.Address, ":0") {
					t.Errorf("listener %s on %s: want the real port", l.Transport, l.Address)
				}
			}
			if err := r.stop(testCtx(t)); err != nil {
				t.Errorf("Stop: %v", err)
			}
		})
	}
}

// testLogger logs to t (shown when the test fails or with -v) until the
// end of the test, and discards afterwards.
func testLogger(t *testing.T) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.close) // registered first: runs after the nodes' stops
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	mu   sync.Mutex // guards done and t's use
	t    *testing.T
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) close() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}
