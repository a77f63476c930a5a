package config

import (
	"strings"
	"testing"
)

// TestConnectionCaps: "max_connections" and "max_connections_per_ip" of
// a listening endpoint, as decoded, on every listening transport type.
func TestConnectionCaps(t *testing.T) {
	tests := []struct {
		name, endpoint string
		max, perIP     int
	}{
		{"not given", `{"type": "tcp", "port": 80}`, 0, 0},
		{"tcp", `{"type": "tcp", "port": 80, "max_connections": 5000, "max_connections_per_ip": 100}`, 5000, 100},
		{"per ip 0 is no cap", `{"type": "tcp", "port": 80, "max_connections_per_ip": 0}`, 0, 0},
		{"tls", `{"type": "tcp", "port": 80, "max_connections": 1, "tls": {"key": "k", "certificate": "c"}}`, 1, 0},
		{"largest", `{"type": "tcp", "port": 80, "max_connections": 2147483647, "max_connections_per_ip": 2147483647}`, 2147483647, 2147483647},
		{"unix", `{"type": "unix", "path": "s", "max_connections": 64}`, 64, 0},
	}
	kinds := []struct{ name, open, close string }{
		{"web", `{"type": "web", "paths": {}, "endpoint": `, `}`},
		{"websocket", `{"type": "websocket", "endpoint": `, `}`},
		{"rawsocket", `{"type": "rawsocket", "endpoint": `, `}`},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(k.name+"/"+tt.name, func(t *testing.T) {
				c, _ := mustParse(t, transports(k.open+tt.endpoint+k.close))
				e := listenEndpointOf(c.Workers[0].(*RouterWorker).Transports[0])
				if e.MaxConnections != tt.max || e.MaxConnectionsPerIP != tt.perIP {
					t.Errorf("caps %d, %d; want %d, %d", e.MaxConnections, e.MaxConnectionsPerIP, tt.max, tt.perIP)
				}
			})
		}
	}
}

// TestConnectionCapErrors: every wrong cap is reported at its path.
func TestConnectionCapErrors(t *testing.T) {
	tests := []struct {
		name, endpoint, key, msg string
	}{
		{"max zero", `{"type": "tcp", "port": 80, "max_connections": 0}`, "max_connections", "must be in 1..2147483647, not 0"},
		{"max negative", `{"type": "tcp", "port": 80, "max_connections": -1}`, "max_connections", "must be in 1..2147483647, not -1"},
		{"max too big", `{"type": "tcp", "port": 80, "max_connections": 2147483648}`, "max_connections", "must be in 1..2147483647, not 2147483648"},
		{"max string", `{"type": "tcp", "port": 80, "max_connections": "100"}`, "max_connections", "must be an integer, not a string"},
		{"max float", `{"type": "tcp", "port": 80, "max_connections": 1.5}`, "max_connections", `must be an integer, not "1.5"`},
		{"unix max zero", `{"type": "unix", "path": "s", "max_connections": 0}`, "max_connections", "must be in 1..2147483647, not 0"},
		{"per ip negative", `{"type": "tcp", "port": 80, "max_connections_per_ip": -1}`, "max_connections_per_ip", "must be in 0..2147483647, not -1"},
		{"per ip bool", `{"type": "tcp", "port": 80, "max_connections_per_ip": true}`, "max_connections_per_ip", "must be an integer, not a boolean"},
		{"per ip on unix", `{"type": "unix", "path": "s", "max_connections_per_ip": 10}`, "max_connections_per_ip", "not supported on a unix endpoint: its clients have no IP address"},
		{"typo", `{"type": "tcp", "port": 80, "max_connection": 10}`, "max_connection", `did you mean "max_connections"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, endpoint(tt.endpoint), JSON)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1 at %s.%s:\n%v", len(errs), ep, tt.key, errs)
			}
			if errs[0].Path != ep+"."+tt.key || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s.%s: ...%s...", errs[0].Error(), ep, tt.key, tt.msg)
			}
		})
	}
}
