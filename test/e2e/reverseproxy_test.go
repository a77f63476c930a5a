package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// testReverseProxy sends requests through the path "proxy" (upstream path
// "/base") and checks what the upstream received and what came back.
func testReverseProxy(t *testing.T, env *bridgeEnv) {
	t.Run("get-path-and-query", func(t *testing.T) {
		t.Parallel()
		r := do(t, curlRequest(t, http.MethodGet, env.base+"/proxy/a/b%20c?x=1&y=two%20words&x=3", nil))
		e := proxied(t, r)
		if e.Method != "GET" || e.Path != "/base/a/b c" || e.Query != "x=1&y=two%20words&x=3" {
			t.Errorf("upstream got %s %q ?%q, want GET \"/base/a/b c\" ?\"x=1&y=two%%20words&x=3\"", e.Method, e.Path, e.Query)
		}
		checkForwarded(t, e, env.addr)
	})
	t.Run("post-body", func(t *testing.T) {
		t.Parallel()
		r := do(t, curlRequest(t, http.MethodPost, env.base+"/proxy/submit", []byte("name=junction"),
			"Content-Type", "application/x-www-form-urlencoded"))
		e := proxied(t, r)
		if e.Method != "POST" || e.Path != "/base/submit" || e.Body != "name=junction" {
			t.Errorf("upstream got %s %q body %q, want POST /base/submit name=junction", e.Method, e.Path, e.Body)
		}
	})
	t.Run("upstream-status", func(t *testing.T) {
		t.Parallel()
		r := do(t, curlRequest(t, http.MethodGet, env.base+"/proxy/notfound", nil))
		if r.status != http.StatusNotFound || string(r.body) != "no such thing\n" {
			t.Errorf("status %d body %q, want the upstream's 404", r.status, r.body)
		}
	})
	t.Run("websocket", func(t *testing.T) {
		t.Parallel()
		checkWebSocketEcho(t, "ws://"+env.addr+"/proxy/ws")
	})
}

// proxied checks a 200 answer of the upstream's echo and decodes it.
func proxied(t *testing.T, r response) echoed {
	t.Helper()
	var e echoed
	if r.status != 200 || r.header.Get("X-Upstream") != "e2e" || json.Unmarshal(r.body, &e) != nil {
		t.Fatalf("status %d X-Upstream %q body %s, want 200 from the upstream", r.status, r.header.Get("X-Upstream"), r.body)
	}
	return e
}

// checkForwarded checks the X-Forwarded-* headers the upstream got.
func checkForwarded(t *testing.T, e echoed, addr string) {
	t.Helper()
	want := map[string]string{"X-Forwarded-For": "127.0.0.1", "X-Forwarded-Host": addr, "X-Forwarded-Proto": "http"}
	for k, v := range want {
		if got := e.Header[k]; len(got) != 1 || got[0] != v {
			t.Errorf("upstream got %s %q, want %q", k, got, v)
		}
	}
	if ua := e.Header["User-Agent"]; len(ua) != 1 || ua[0] != curlUserAgent {
		t.Errorf("upstream got User-Agent %q, want %q", ua, curlUserAgent)
	}
}

// checkWebSocketEcho opens a WebSocket at url and checks two echoes.
func checkWebSocketEcho(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, br, _, err := ws.Dial(ctx, url)
	if err != nil {
		t.Fatalf("websocket through the proxy: %v", err)
	}
	defer conn.Close()
	if br != nil {
		ws.PutReader(br)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	for _, msg := range []string{"hello", "again"} {
		if err := wsutil.WriteClientText(conn, []byte(msg)); err != nil {
			t.Fatalf("websocket write: %v", err)
		}
		got, err := wsutil.ReadServerText(conn)
		if err != nil || string(got) != "echo: "+msg {
			t.Fatalf("websocket read %q, %v; want %q", got, err, "echo: "+msg)
		}
	}
}
