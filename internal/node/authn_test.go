package node

import (
	"testing"

	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/internal/wamp"
)

// TestJoinTimeoutApplied: a WebSocket path's and a RawSocket transport's
// join_timeout reach their gates: a client that connects and never sends
// HELLO gets ABORT junction.error.join_timeout and loses the connection.
func TestJoinTimeoutApplied(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "tcp", "port": 0, "interface": "127.0.0.1"},
			 "paths": {"ws": {"type": "websocket", "options": {"join_timeout": 50}}}},
			{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 0, "interface": "127.0.0.1"},
			 "options": {"join_timeout": 50}}]}]}`, nil)
	n := start(t, cfg, t.TempDir())
	dial := map[string]func() (wamp.Peer, error){
		"websocket": func() (wamp.Peer, error) {
			return websocket.Dial(testCtx(t), "ws://"+address(t, n, web0)+"/ws", websocket.DialOptions{})
		},
		"rawsocket": func() (wamp.Peer, error) {
			return rawsocket.Dial(testCtx(t), "tcp", address(t, n, "workers[0].transports[1]"), rawsocket.DialOptions{})
		},
	}
	for name, d := range dial {
		t.Run(name, func(t *testing.T) {
			p, err := d()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			m, err := p.Recv()
			if a, ok := m.(*wamp.Abort); !ok || a.Reason != "junction.error.join_timeout" {
				t.Fatalf("Recv = %v, %v; want ABORT junction.error.join_timeout", m, err)
			}
			if m, err := p.Recv(); err == nil {
				t.Fatalf("after ABORT: %v, want the connection closed", m)
			}
		})
	}
}
