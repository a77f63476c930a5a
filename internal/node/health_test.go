package node

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// opsDoc is a node with a bridge service, the health, ready and metrics
// services (metrics behind require_ip) and a second listener.
func opsDoc(requireIP string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
				"/": {"type": "nodeinfo"},
				"call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
				"metrics": {"type": "metrics", "options": {"require_ip": ` + requireIP + `}},
				"healthz": {"type": "health"},
				"readyz": {"type": "ready"}}},
			{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`
}

// serveReady asks n's readiness through the "ready" service's handler.
func serveReady(t *testing.T, n *Node) (int, Readiness) {
	t.Helper()
	h, err := buildReady(&pathEnv{b: &builder{node: n}}, "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	var r Readiness
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatalf("ready body %q: %v", rec.Body, err)
	}
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", rec.Header().Get("Cache-Control"))
	}
	return rec.Code, r
}

// TestReadinessLifecycle: not ready before Start (naming every listener
// and embedded session not up yet), ready once started, not ready again
// from the moment Stop begins; health answers 200 while the node serves.
func TestReadinessLifecycle(t *testing.T) {
	n, err := New(parse(t, opsDoc(`[]`), nil), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	code, r := serveReady(t, n)
	want := []string{"node: starting", "workers[0].transports[0]: not listening yet", "workers[0].transports[1]: not listening yet",
		"workers[0].transports[0].paths.call: bridge session not joined"}
	if code != http.StatusServiceUnavailable || r.Ready || r.State != "starting" || !slices.Equal(r.NotReady, want) {
		t.Errorf("before Start: %d %+v, want 503 with %q", code, r, want)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	base := "http://" + address(t, n, web0)
	if code, body := get(t, base+"/readyz"); code != http.StatusOK || body != `{"ready":true,"state":"running"}` {
		t.Errorf("GET /readyz: %d %s", code, body)
	}
	if code, body := get(t, base+"/healthz"); code != http.StatusOK || body != `{"status":"ok"}` {
		t.Errorf("GET /healthz: %d %s", code, body)
	}
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	code, r = serveReady(t, n)
	if code != http.StatusServiceUnavailable || r.Ready || r.State != "stopping" || !slices.Contains(r.NotReady, "node: stopping") {
		t.Errorf("after Stop: %d %+v", code, r)
	}
}

// TestReadinessComponent: a REST component that has not joined keeps the
// node not ready.
func TestReadinessComponent(t *testing.T) {
	n, err := New(parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"components": [{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
			"extra": {"procedure": "com.http", "baseurl": "http://127.0.0.1:1/"}}]}]}`, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := n.Readiness(); !slices.Contains(r.NotReady, "workers[0].components[0]: component not joined") {
		t.Errorf("before Start: %+v", r)
	}
	startNode(t, n)
	if r := n.Readiness(); !r.Ready {
		t.Errorf("started: %+v", r)
	}
}

// TestOpsServices: the probes and metrics answer their own path only,
// GET and HEAD only; require_ip guards the metrics.
func TestOpsServices(t *testing.T) {
	tests := []struct {
		name, requireIP, method, path string
		code                          int
		body                          string // substring
	}{
		{"metrics", `[]`, "GET", "/metrics", 200, "junction_sessions{realm=\"realm1\"} 1"},
		{"metrics allowed", `["127.0.0.0/8"]`, "GET", "/metrics", 200, "go_goroutines"},
		{"metrics refused", `["10.0.0.0/8", "::1"]`, "GET", "/metrics", 403, `{"error":"Request denied based on IP address.","args":[],"kwargs":{}}`},
		{"metrics subpath", `[]`, "GET", "/metrics/x", 404, "not found"},
		{"health subpath", `[]`, "GET", "/healthz/x", 404, "not found"},
		{"health post", `[]`, "POST", "/healthz", 405, "method not allowed"},
		{"ready head", `[]`, "HEAD", "/readyz", 200, ""},
		{"nodeinfo", `[]`, "GET", "/", 200, "Junction"},
		{"favicon", `[]`, "GET", "/favicon.ico", 404, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := start(t, parse(t, opsDoc(tt.requireIP), nil), t.TempDir())
			req, err := http.NewRequestWithContext(context.Background(), tt.method, "http://"+address(t, n, web0)+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.code || !strings.Contains(string(b), tt.body) {
				t.Errorf("%s %s: %d %s, want %d with %q", tt.method, tt.path, resp.StatusCode, b, tt.code, tt.body)
			}
		})
	}
}

func TestMetricsRequireIPError(t *testing.T) {
	_, err := New(parse(t, opsDoc(`["10.0.0.0/33"]`), nil), Options{})
	if err == nil || !strings.Contains(err.Error(), "workers[0].transports[0].paths.metrics.options.require_ip[0]: ") {
		t.Errorf("New: %v, want an error at the require_ip entry", err)
	}
}
