package config

import "testing"

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
