package config

import (
	"strings"
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
	const noDeadline = "0: no deadline to join; clients may hold connections forever without joining"
	tests := []struct {
		name, doc string
		want      time.Duration
		warnAt    string // the path of the one warning expected, "" for none
	}{
		{"path default", wsOptions(""), DefaultJoinTimeout, ""},
		{"path", wsOptions(`"join_timeout": 2500`), 2500 * time.Millisecond, ""},
		{"path none", wsOptions(`"join_timeout": 0`), NoJoinTimeout, ws + ".options.join_timeout"},
		{"websocket transport", wsT(`"join_timeout": 500`), 500 * time.Millisecond, ""},
		{"websocket transport none", wsT(`"join_timeout": 0`), NoJoinTimeout, t0 + ".options.join_timeout"},
		{"rawsocket default", raw(""), DefaultJoinTimeout, ""},
		{"rawsocket", raw(`"join_timeout": 3000`), 3 * time.Second, ""},
		{"rawsocket none", raw(`"join_timeout": 0`), NoJoinTimeout, t0 + ".options.join_timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			if d := got(c); d != tt.want {
				t.Errorf("join timeout = %v, want %v", d, tt.want)
			}
			switch {
			case tt.warnAt == "" && len(warns) != 0:
				t.Errorf("warnings %v, want none", warns)
			case tt.warnAt != "" && (len(warns) != 1 || warns[0].Path != tt.warnAt || warns[0].Msg != noDeadline):
				t.Errorf("warnings %v, want one at %s: %s", warns, tt.warnAt, noDeadline)
			}
		})
	}
	// Where join_timeout is ignored, its 0 gives only the warning that
	// says so.
	for _, doc := range []string{componentOptions(`"join_timeout": 0`), proxyPath(`"join_timeout": 0`, "")} {
		if _, warns := mustParse(t, doc); len(warns) != 1 || strings.Contains(warns[0].Msg, "no deadline") {
			t.Errorf("ignored join_timeout 0: warnings %v, want only the one that it is ignored", warns)
		}
	}
	for _, doc := range []string{wsOptions(`"join_timeout": -1`), raw(`"join_timeout": -1`)} {
		if _, _, errs := parseTest(t, doc, JSON); errs == nil || !strings.Contains(errs.Error(), "join_timeout: must be in 0..2147483647, not -1") {
			t.Errorf("join_timeout -1: errors %v, want one at its path", errs)
		}
	}
}
