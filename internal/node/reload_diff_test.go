package node

import (
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
)

// TestSameExcept: the comparison behind Reload's diff, auth compared
// apart.
func TestSameExcept(t *testing.T) {
	ticket := func(secret string) config.Auth {
		return config.Auth{Ticket: &config.TicketAuth{Principals: map[string]config.TicketPrincipal{"joe": {Ticket: secret}}}}
	}
	ws := func(port int, a config.Auth) config.Transport {
		return &config.WebSocketTransport{Endpoint: config.ListenEndpoint{Type: "tcp", Port: port}, Auth: a}
	}
	tests := []struct {
		name     string
		a, b     any
		skip     reflect.Type
		wantSame bool
	}{
		{"equal", ws(80, ticket("a")), ws(80, ticket("a")), nil, true},
		{"auth differs", ws(80, ticket("a")), ws(80, ticket("b")), nil, false},
		{"auth differs, skipped", ws(80, ticket("a")), ws(80, ticket("b")), authType, true},
		{"endpoint differs", ws(80, ticket("a")), ws(81, ticket("a")), authType, false},
		{"other type", ws(80, config.Auth{}), &config.RawSocketTransport{}, nil, false},
		{"nil and empty slice", []string(nil), []string{}, nil, true},
		{"slices differ", []string{"a"}, []string{"b"}, nil, false},
		{"maps differ in keys", map[string]int{"a": 1}, map[string]int{"b": 1}, nil, false},
		{"nil pointers", (*config.Realm)(nil), (*config.Realm)(nil), nil, true},
		{"nil and set pointer", (*config.Realm)(nil), &config.Realm{}, nil, false},
		{"nil interfaces", nil, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameExcept(reflect.ValueOf(tt.a), reflect.ValueOf(tt.b), tt.skip); got != tt.wantSame {
				t.Errorf("sameExcept = %v, want %v", got, tt.wantSame)
			}
		})
	}
}

// TestStalePrincipal: which sessions a change of "auth" disowns.
func TestStalePrincipal(t *testing.T) {
	old := config.Auth{
		Anonymous: &config.AnonymousAuth{Role: "anonymous"},
		Ticket:    &config.TicketAuth{Principals: map[string]config.TicketPrincipal{"joe": {Ticket: "a", Role: "user"}, "ann": {Ticket: "b", Role: "user"}}},
	}
	changed := config.Auth{
		Anonymous: &config.AnonymousAuth{Role: "guest"},
		Ticket:    &config.TicketAuth{Principals: map[string]config.TicketPrincipal{"joe": {Ticket: "a", Role: "user"}, "ann": {Ticket: "c", Role: "user"}}},
	}
	noTicket := config.Auth{Anonymous: old.Anonymous}
	tests := []struct {
		name   string
		cfg    config.Auth
		method string
		authid string
		stale  bool
	}{
		{"principal unchanged", changed, "ticket", "joe", false},
		{"ticket changed", changed, "ticket", "ann", true},
		{"anonymous role changed", changed, "anonymous", "x", true},
		{"anonymous unchanged", noTicket, "anonymous", "x", false},
		{"method removed", noTicket, "ticket", "joe", true},
		{"cookie", noTicket, "cookie", "joe", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := auth.Identity{AuthMethod: tt.method, AuthID: tt.authid}
			if got := stalePrincipal(old, tt.cfg, id); got != tt.stale {
				t.Errorf("stalePrincipal = %v, want %v", got, tt.stale)
			}
		})
	}
}
