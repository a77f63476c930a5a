package config

import (
	"testing"
	"time"
)

func TestAnonymousAuth(t *testing.T) {
	tests := []struct {
		name, members string
		want          AnonymousAuth
	}{
		{"no auth", "", AnonymousAuth{Role: "anonymous"}},
		{"role", `"auth": {"anonymous": {"type": "static", "role": "guest"}}`, AnonymousAuth{Role: "guest"}},
		{"authid", `"auth": {"anonymous": {"type": "static", "authid": "visitor"}}`, AnonymousAuth{Role: "anonymous", AuthID: "visitor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, wsPath(tt.members))
			s := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["ws"].(*WebSocketService)
			if s.Auth.Anonymous == nil || *s.Auth.Anonymous != tt.want {
				t.Errorf("anonymous = %+v, want %+v", s.Auth.Anonymous, tt.want)
			}
		})
	}
}

func TestJoinTimeout(t *testing.T) {
	ws := func(opts string) string { return wsOptions(opts) }
	raw := func(opts string) string {
		return transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, "options": {` + opts + `}}`)
	}
	wsT := func(opts string) string {
		return transports(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 80}, "options": {` + opts + `}}`)
	}
	got := func(c *Config) time.Duration {
		switch tr := c.Workers[0].(*RouterWorker).Transports[0].(type) {
		case *RawSocketTransport:
			return tr.JoinTimeout
		case *WebSocketTransport:
			return tr.Options.JoinTimeout
		case *WebTransport:
			return tr.Paths["ws"].(*WebSocketService).Options.JoinTimeout
		}
		return -1
	}
	tests := []struct {
		name, doc string
		want      time.Duration
	}{
		{"path default", ws(""), DefaultJoinTimeout},
		{"path", ws(`"join_timeout": 2500`), 2500 * time.Millisecond},
		{"path none", ws(`"join_timeout": 0`), 0},
		{"websocket transport", wsT(`"join_timeout": 500`), 500 * time.Millisecond},
		{"rawsocket default", raw(""), DefaultJoinTimeout},
		{"rawsocket", raw(`"join_timeout": 3000`), 3 * time.Second},
		{"rawsocket none", raw(`"join_timeout": 0`), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			if d := got(c); d != tt.want {
				t.Errorf("join timeout = %v, want %v", d, tt.want)
			}
			if len(warns) != 0 {
				t.Errorf("warnings %v", warns)
			}
		})
	}
}
