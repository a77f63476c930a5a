package config

import (
	"reflect"
	"testing"
	"time"
)

func TestDynamicAuth(t *testing.T) {
	realms := `"realms": [{"name": "realm1", "roles": [{"name": "user"}]}, {"name": "auth", "roles": [{"name": "authenticator"}]}]`
	doc := func(method, members string) string {
		auth := `"auth": {"` + method + `": {"type": "dynamic", "authenticator": "com.example.authenticate"` + members + `}}`
		return top(`{"type": "router", ` + realms + `, "transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 80}, ` + auth + `}]}`)
	}
	get := func(c *Config) Auth {
		return c.Workers[0].(*RouterWorker).Transports[0].(*WebSocketTransport).Auth
	}
	plain := &DynamicAuth{Authenticator: "com.example.authenticate", Timeout: DefaultDynamicTimeout}
	full := &DynamicAuth{Authenticator: "com.example.authenticate", Realm: "auth", Role: "authenticator",
		DefaultRole: "user", Timeout: 2500 * time.Millisecond}
	fullKeys := `, "authenticator-realm": "auth", "authenticator-role": "authenticator", "default-role": "user", "authenticator-timeout": 2500`
	tests := []struct {
		name, method, members string
		want                  Auth
	}{
		{"ticket", "ticket", "", Auth{Ticket: &TicketAuth{Dynamic: plain}}},
		{"ticket every key", "ticket", fullKeys, Auth{Ticket: &TicketAuth{Dynamic: full}}},
		{"wampcra", "wampcra", fullKeys, Auth{WAMPCRA: &WAMPCRAAuth{Dynamic: full}}},
		{"cryptosign", "cryptosign", "", Auth{Cryptosign: &CryptosignAuth{Dynamic: plain}}},
		{"anonymous", "anonymous", "", Auth{Anonymous: &AnonymousAuth{Dynamic: plain}}},
		{"anonymous authid", "anonymous", `, "authid": "visitor"`, Auth{Anonymous: &AnonymousAuth{AuthID: "visitor", Dynamic: plain}}},
		{"trusted role", "ticket", `, "authenticator-realm": "auth", "authenticator-role": "trusted"`,
			Auth{Ticket: &TicketAuth{Dynamic: &DynamicAuth{Authenticator: "com.example.authenticate", Realm: "auth", Role: "trusted", Timeout: DefaultDynamicTimeout}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, doc(tt.method, tt.members))
			if got := get(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("auth = %+v, want %+v", got, tt.want)
			}
			if len(warns) != 0 {
				t.Errorf("warnings: %v", warns)
			}
		})
	}
}

func TestRoleAuthorizer(t *testing.T) {
	tests := []struct {
		name, members string
		want          Role
	}{
		{"none", `"allow-by-default": true`, Role{Name: "x", AllowByDefault: true, AuthorizerTimeout: DefaultDynamicTimeout}},
		{"authorizer", `"authorizer": "com.example.authorize"`, Role{Name: "x", Authorizer: "com.example.authorize", AuthorizerTimeout: DefaultDynamicTimeout}},
		{"timeout", `"authorizer": "com.example.authorize", "authorizer-timeout": 250`, Role{Name: "x", Authorizer: "com.example.authorize", AuthorizerTimeout: 250 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, role(tt.members))
			if got := c.Workers[0].(*RouterWorker).Realms[0].Roles[0]; !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("role = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestDynamicWarnings: keys without effect next to an authorizer, and
// roles of dynamic authenticators that no realm defines.
func TestDynamicWarnings(t *testing.T) {
	dyn := func(members string) string {
		return wsPath(`"auth": {"ticket": {"type": "dynamic", "authenticator": "a"` + members + `}}`)
	}
	tests := []struct {
		name, doc, path, msg string
	}{
		{"allow-by-default", role(`"authorizer": "a", "allow-by-default": true`), r0 + ".roles[0].allow-by-default", "ignored: the authorizer decides"},
		{"timeout without authorizer", role(`"authorizer-timeout": 100`), r0 + ".roles[0].authorizer-timeout", "ignored: the role has no authorizer"},
		{"default-role", dyn(`, "default-role": "nobody"`), ws + ".auth.ticket.default-role", `role "nobody" is not defined in any realm of this router`},
		{"authenticator-role", dyn(`, "authenticator-role": "nobody"`), ws + ".auth.ticket.authenticator-role", `role "nobody" is not defined in any realm of this router`},
		{"defined roles", dyn(`, "authenticator-role": "anonymous", "default-role": "trusted"`), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns := mustParse(t, tt.doc)
			if tt.path == "" {
				if len(warns) != 0 {
					t.Errorf("warnings %v, want none", warns)
				}
				return
			}
			if len(warns) != 1 || warns[0].Path != tt.path || warns[0].Msg != tt.msg {
				t.Errorf("warnings %v, want one at %s: %s", warns, tt.path, tt.msg)
			}
		})
	}
}
