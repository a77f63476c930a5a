package node

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// wsProxyConfig is a node whose backend router listens on a Unix socket of
// dir (transport 0) behind two WebSocket reverse proxies on TCP (transport
// 1): "ws" to it, limited to JSON, and "down" to a socket nobody serves.
func wsProxyConfig(t *testing.T, dir string) string {
	t.Helper()
	backend := func(sock, extra string) string {
		return `{"type": "websocket-reverseproxy", "backend": {"type": "websocket",
			"endpoint": {"type": "unix", "path": "` + filepath.Join(dir, sock) + `", "timeout": 5},
			"url": "ws://localhost/ws"` + extra + `}}`
	}
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "unix", "path": "backend.sock"}, "paths": {"ws": {"type": "websocket"}}},
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
				"ws": ` + backend("backend.sock", `, "serializers": ["json"]`) + `,
				"down": ` + backend("nothing.sock", "") + `}}]}]}`
}

// TestWebSocketProxy: a client joins the backend router through the
// proxy over a Unix socket, with the subprotocol the backend's serializers
// allow; an unreachable backend is 503.
func TestWebSocketProxy(t *testing.T) {
	dir := t.TempDir()
	n := start(t, parse(t, wsProxyConfig(t, dir), nil), dir)
	addr := address(t, n, "workers[0].transports[1]")

	callee := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2.cbor", "wamp.2.json"}}, client.Config{Realm: "realm1"})
	echo(t, callee, "com.example.echo")
	caller := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2.json"}}, client.Config{Realm: "realm1"})
	callEcho(t, caller, "com.example.echo")

	p, err := websocket.Dial(testCtx(t), "ws://"+addr+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2.cbor", "wamp.2.json"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := p.Info().Serializer; got != "json" {
		t.Errorf("serializer %q through a proxy whose backend offers json only", got)
	}

	_, err = websocket.Dial(testCtx(t), "ws://"+addr+"/down", websocket.DialOptions{})
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("dial with the backend down: %v, want 503", err)
	}
}

// TestProxyStop: stopping the node ends the WebSockets its proxies relay,
// while the backend (another node) keeps running: a "websocket-reverseproxy"
// path (reached over TCP at the endpoint's address although the URL names
// another host) and a plain "reverseproxy" path (an HTTP upgrade relayed by
// httputil).
func TestProxyStop(t *testing.T) {
	tests := []struct {
		name string
		path func(port string) string // the front node's "ws" path
	}{
		{"websocket-reverseproxy", func(port string) string {
			return `{"type": "websocket-reverseproxy", "backend": {"type": "websocket",
				"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": ` + port + `}, "url": "ws://backend.invalid/ws"}}`
		}},
		{"reverseproxy", func(port string) string {
			return `{"type": "reverseproxy", "host": "127.0.0.1", "port": ` + port + `, "path": "/ws"}`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			backend := start(t, parse(t, `{"version": 2, "workers": [{"type": "router",
				"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
				"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
					"paths": {"ws": {"type": "websocket"}}}]}]}`, nil), t.TempDir())
			_, port, _ := splitHostPort(t, address(t, backend, "workers[0].transports[0]"))
			front := start(t, parse(t, `{"version": 2, "workers": [{"type": "router",
				"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
					"ws": `+tt.path(port)+`}}]}]}`, nil), t.TempDir())
			s := mustWS(t, "ws://"+address(t, front, "workers[0].transports[0]")+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
			echo(t, s, "com.example.echo")
			if err := front.Stop(context.Background()); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			select {
			case <-s.Done():
			case <-testCtx(t).Done():
				t.Fatal("the relayed session is still open after Stop")
			}
		})
	}
}
