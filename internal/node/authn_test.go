package node

import (
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
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

// TestClientGateJoinTimeout: a transport's join_timeout reaches its gate,
// 0 in the options structs meaning the default, as everywhere (a
// hand-built config.WebSocketOptions{} keeps the deadline), and
// "join_timeout": 0 in the file, no deadline.
func TestClientGateJoinTimeout(t *testing.T) {
	r, err := router.New(router.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fromFile := func(joinTimeout string) time.Duration {
		cfg := parse(t, `{"version": 2, "workers": [{"type": "router", "transports": [
			{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 0}, "options": {`+joinTimeout+`}}]}]}`, nil)
		return cfg.Workers[0].(*config.RouterWorker).Transports[0].(*config.RawSocketTransport).JoinTimeout
	}
	tests := []struct {
		name string
		opt  time.Duration
		want time.Duration // the gate's; 0 for none
	}{
		{"hand-built options", config.WebSocketOptions{}.JoinTimeout, router.DefaultJoinTimeout},
		{"negative", config.NoJoinTimeout, 0},
		{"given", 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"file: not given", fromFile(""), router.DefaultJoinTimeout},
		{"file: 0", fromFile(`"join_timeout": 0`), 0},
		{"file: 250", fromFile(`"join_timeout": 250`), 250 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := clientGate(&routerUnit{router: r}, "t", config.Auth{}, tt.opt).(*router.Gate).JoinTimeout(); got != tt.want {
			t.Errorf("%s: join_timeout %v gives the gate %v, want %v", tt.name, tt.opt, got, tt.want)
		}
	}
}
