package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestReverseProxyDial(t *testing.T) { onEngines(t, testReverseProxyDial) }

// testReverseProxyDial: with Dial, the proxy's connections (the direct
// path's GET and httputil's POST) go to a Unix socket, the Host header
// still names Host, and a Dial that fails gives 502.
func testReverseProxyDial(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "up.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: echoUpstream(t).Config.Handler}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	var mu sync.Mutex
	var dials []string
	var down atomic.Bool
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dials = append(dials, network+" "+addr)
		mu.Unlock()
		if down.Load() {
			return nil, &net.OpError{Op: "dial", Net: "unix", Err: net.UnknownNetworkError("down")}
		}
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}
	tree := NewTree()
	mustMount(t, tree, "app", mustProxy(t, ReverseProxyOptions{Host: "localhost", Path: "/app", Dial: dial}))
	addr := serveTree(t, tree)
	if got := getSeen(t, addr, "/app/x?q=1"); got.URI != "/app/x?q=1" || got.Host != "localhost" {
		t.Errorf("GET: upstream saw %q, Host %q", got.URI, got.Host)
	}
	resp, body := rawDo(t, addr, "POST /app/p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
	var seen seenRequest
	if err := json.Unmarshal(body, &seen); resp.StatusCode != http.StatusOK || err != nil || seen.Method != "POST" || seen.BodyLen != 3 {
		t.Errorf("POST: %d %q", resp.StatusCode, body)
	}
	mu.Lock()
	if len(dials) == 0 || !strings.HasPrefix(dials[0], "tcp localhost:80") {
		t.Errorf("dials %q: want Dial called with the upstream's address", dials)
	}
	mu.Unlock()
	down.Store(true)
	srv.Close() // pooled connections end: the next request dials
	resp, body = rawGet(t, addr, "/app/y")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "upstream unreachable") {
		t.Errorf("Dial failing: %d %q, want 502 upstream unreachable", resp.StatusCode, body)
	}
}
