package docs

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
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

// TestWebSocketProxyExample runs examples/websocket-proxy.json in front of
// the default node (reverseproxy.md): a WAMP client joins through the proxy,
// with each serializer, and calls a procedure registered on the backend
// directly; a plain GET gets 426.
func TestWebSocketProxyExample(t *testing.T) {
	backend := startExample(t, "minimal.json")
	backendAddr := backend.addr(t, "workers[0].transports[0]")
	proxy := startExample(t, "websocket-proxy.json", func(cfg *config.Config) {
		web := cfg.Workers[0].(*config.RouterWorker).Transports[0].(*config.WebTransport)
		_, port, _ := net.SplitHostPort(backendAddr)
		web.Paths["ws"].(*config.WebSocketProxyService).Backend.Endpoint.Port, _ = strconv.Atoi(port)
	})
	addr := proxy.addr(t, "workers[0].transports[0]")

	callee := must(t)(joinWS(t, "ws://"+backendAddr+"/ws", client.Config{Realm: "realm1"}))
	if _, err := callee.Register(testCtx(t), "com.example.add2", add2, nil); err != nil {
		t.Fatal(err)
	}
	for _, serializer := range []string{"json", "msgpack", "cbor"} {
		t.Run(serializer, func(t *testing.T) {
			p, err := websocket.Dial(testCtx(t), "ws://"+addr+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2." + serializer}})
			if err != nil {
				t.Fatalf("dial through the proxy: %v", err)
			}
			if got := p.Info().Serializer; got != serializer {
				t.Errorf("serializer %q, want %q", got, serializer)
			}
			s, err := client.Join(testCtx(t), p, client.Config{Realm: "realm1"})
			s = must(t)(closeLater(t, s, err))
			res, err := s.Call(testCtx(t), "com.example.add2", wamp.List{2, 3}, nil)
			if err != nil || len(res.Args) != 1 || res.Args[0] != int64(5) && res.Args[0] != uint64(5) {
				t.Errorf("add2(2, 3) through the proxy: %v, %v", res, err)
			}
		})
	}
	resp, _ := proxy.get(t, "http://"+addr+"/ws")
	if resp.StatusCode != http.StatusUpgradeRequired {
		t.Errorf("plain GET: %d, want 426", resp.StatusCode)
	}
}
