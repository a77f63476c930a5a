package docs

import (
	"net/http"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// TestStaticSPAExample checks examples/static-spa.json: unknown paths get
// index.html (client-side routing), and the json and redirect services.
func TestStaticSPAExample(t *testing.T) {
	r := startExample(t, "static-spa.json")
	base := "http://" + r.addr(t, "workers[0].transports[0]")
	tests := []struct {
		path, header, want string
		status             int
	}{
		{"/", "Cache-Control", "public, max-age=300", http.StatusOK},
		{"/orders/42", "Content-Type", "text/html; charset=utf-8", http.StatusOK},
		{"/settings", "Content-Type", "application/json", http.StatusOK},
		{"/help", "Location", "https://example.com/help", http.StatusFound},
	}
	for _, tt := range tests {
		resp, body := r.get(t, base+tt.path)
		if resp.StatusCode != tt.status || resp.Header.Get(tt.header) != tt.want {
			t.Errorf("GET %s: %d %s=%q, want %d %q", tt.path, resp.StatusCode, tt.header, resp.Header.Get(tt.header), tt.status, tt.want)
		}
		if strings.HasPrefix(tt.want, "text/html") && body != indexHTML {
			t.Errorf("GET %s: body %q, want index.html", tt.path, body)
		}
	}
	_, body := r.get(t, base+"/settings")
	if body != `{"realm":"realm1","wamp_path":"/ws"}`+"\n" {
		t.Errorf("GET /settings: %q", body)
	}
}

// TestTLSExample checks examples/tls.json: HTTPS with HSTS, and WAMP over
// wss:// for a client without a certificate (client certificates are
// verified when presented, not required).
func TestTLSExample(t *testing.T) {
	r := startExample(t, "tls.json")
	addr := r.addr(t, "workers[0].transports[0]")
	resp, body := r.get(t, "https://"+addr+"/")
	if resp.StatusCode != http.StatusOK || body != indexHTML {
		t.Errorf("GET /: %d %q", resp.StatusCode, body)
	}
	if h := resp.Header.Get("Strict-Transport-Security"); h != "max-age=31536000" {
		t.Errorf("Strict-Transport-Security %q", h)
	}
	p, err := websocket.Dial(testCtx(t), "wss://"+addr+"/ws", websocket.DialOptions{TLSConfig: r.pkiClientConfig()})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	s, err := client.Join(testCtx(t), p, client.Config{Realm: "realm1"})
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	defer s.Close()
	if authRole(s) != "anonymous" {
		t.Errorf("authrole %v", authRole(s))
	}
}
