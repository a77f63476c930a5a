package docs

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"path/filepath"
	"strings"
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

// running is a started example.
type running struct {
	node *node.Node
	pki  *testPKI // nil without TLS
}

// startExample loads examples/name, rewrites it (see rewrite), starts it,
// and stops it at the end of the test.
func startExample(t *testing.T, name string) *running {
	t.Helper()
	cfg, _ := load(t, filepath.Join("examples", name))
	pki := rewrite(t, cfg)
	n, err := node.New(cfg, node.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("node.New: %v", err)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return &running{node: n, pki: pki}
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
			if err := r.node.Stop(testCtx(t)); err != nil {
				t.Errorf("Stop: %v", err)
			}
		})
	}
}
