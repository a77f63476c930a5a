package config

import (
	"reflect"
	"testing"
	"time"
)

func TestFunctionAuth(t *testing.T) {
	doc := func(method, members string) string {
		return wsPath(`"auth": {"` + method + `": {"type": "function", "create": "auth.users.create"` + members + `}}`)
	}
	get := func(c *Config) Auth {
		return c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["ws"].(*WebSocketService).Auth
	}
	plain := &FunctionAuth{Create: "auth.users.create", Config: map[string]any{}, Timeout: DefaultDynamicTimeout}
	full := &FunctionAuth{Create: "auth.users.create", Config: map[string]any{"dsn": "s3cr3t", "n": []any{"x"}},
		DefaultRole: "anonymous", Timeout: 1500 * time.Millisecond}
	fullKeys := `, "config": {"dsn": "${SECRET}", "n": ["x"]}, "default-role": "anonymous", "authenticator-timeout": 1500, "expose_controller": false`
	tests := []struct {
		name, method, members string
		want                  Auth
	}{
		{"ticket", "ticket", "", Auth{Ticket: &TicketAuth{Function: plain}}},
		{"ticket every key", "ticket", fullKeys, Auth{Ticket: &TicketAuth{Function: full}}},
		{"wampcra", "wampcra", "", Auth{WAMPCRA: &WAMPCRAAuth{Function: plain}}},
		{"cryptosign", "cryptosign", fullKeys, Auth{Cryptosign: &CryptosignAuth{Function: full}}},
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

// functionAuthRuleTests are TestRules' cases for function authenticators
// and static cryptosign principals' realm.
var functionAuthRuleTests = []ruleTest{
	{"function create missing", wsPath(`"auth": {"ticket": {"type": "function"}}`), ws + ".auth.ticket.create", "required"},
	{"function create no module", wsPath(`"auth": {"ticket": {"type": "function", "create": "create"}}`), ws + ".auth.ticket.create", `invalid Python function name "create" (want package.module.name)`},
	{"function create not a name", wsPath(`"auth": {"wampcra": {"type": "function", "create": "auth.cre-ate"}}`), ws + ".auth.wampcra.create", `invalid Python function name "auth.cre-ate"`},
	{"function create type", wsPath(`"auth": {"cryptosign": {"type": "function", "create": 1}}`), ws + ".auth.cryptosign.create", "must be a string, not a number"},
	{"function config type", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "config": []}}`), ws + ".auth.ticket.config", "must be an object, not an array"},
	{"function config env", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "config": {"k": ["${JUNCTION_NO_SUCH_VAR}"]}}}`), ws + ".auth.ticket.config.k[0]", "JUNCTION_NO_SUCH_VAR"},
	{"function expose_controller type", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "expose_controller": "yes"}}`), ws + ".auth.ticket.expose_controller", "must be a boolean"},
	{"function timeout", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "authenticator-timeout": 0}}`), ws + ".auth.ticket.authenticator-timeout", "must be in 1..2147483647, not 0"},
	{"function unknown key", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "authenticator": "a"}}`), ws + ".auth.ticket.authenticator", "unknown key"},
	{"function principals", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "principals": {}}}`), ws + ".auth.ticket.principals", "unknown key"},
	{"function anonymous", wsPath(`"auth": {"anonymous": {"type": "function", "create": "a.b"}}`), ws + ".auth.anonymous.type", `unknown authentication type "function" for anonymous (want static, dynamic)`},
	{"cryptosign realm URI", wsPath(`"auth": {"cryptosign": {"type": "static", "principals": {"d": {"authorized_keys": [], "role": "anonymous", "realm": "a b"}}}}`), ws + ".auth.cryptosign.principals.d.realm", `invalid realm URI "a b"`},
	{"cryptosign realm type", wsPath(`"auth": {"cryptosign": {"type": "static", "principals": {"d": {"authorized_keys": [], "role": "anonymous", "realm": 1}}}}`), ws + ".auth.cryptosign.principals.d.realm", "must be a string, not a number"},
}

// functionAuthWarningTests are TestWarningRules' cases for function
// authenticators and static cryptosign principals' realm.
var functionAuthWarningTests = []ruleTest{
	{"function expose_controller", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "expose_controller": true}}`), ws + ".auth.ticket.expose_controller", "ignored: there is no controller API; the factory gets controller None"},
	{"function default-role", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "default-role": "nobody"}}`), ws + ".auth.ticket.default-role", `role "nobody" is not defined in any realm of this router`},
	{"function default-role defined", wsPath(`"auth": {"ticket": {"type": "function", "create": "a.b", "default-role": "anonymous"}}`), "", ""},
	{"cryptosign realm", wsPath(`"auth": {"cryptosign": {"type": "static", "principals": {"d": {"authorized_keys": [], "role": "anonymous", "realm": "realm1"}}}}`), "", ""},
	{"cryptosign realm unknown", wsPath(`"auth": {"cryptosign": {"type": "static", "principals": {"d": {"authorized_keys": [], "role": "anonymous", "realm": "realm2"}}}}`), ws + ".auth.cryptosign.principals.d.realm", `realm "realm2" is not defined in this router`},
	{"cryptosign realm role", top(`{"type": "router", "realms": [{"name": "realm1", "roles": [{"name": "anonymous"}]}, {"name": "realm2", "roles": [{"name": "device"}]}],
		"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 80},
		"auth": {"cryptosign": {"type": "static", "principals": {"d": {"authorized_keys": [], "role": "device", "realm": "realm1"}}}}}]}`),
		t0 + ".auth.cryptosign.principals.d.role", `role "device" is not defined in realm "realm1"`},
}

// TestFunctionAuthUsesPython: a router worker whose only Python code is a
// function authenticator (on a web path at any depth, or a transport)
// uses its Python options: no warning.
func TestFunctionAuthUsesPython(t *testing.T) {
	fn := `"auth": {"ticket": {"type": "function", "create": "a.b"}}`
	for name, transport := range map[string]string{
		"websocket": `{"type": "websocket", "endpoint": {"type": "tcp", "port": 80}, ` + fn + `}`,
		"rawsocket": `{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, ` + fn + `}`,
		"web path":  `{"type": "web", "endpoint": {"type": "tcp", "port": 80}, "paths": {"a": {"type": "path", "paths": {"ws": {"type": "websocket", ` + fn + `}}}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, warns := mustParse(t, top(router(`"options": {"python": "/usr/bin/python3", "pythonpath": [".."]}`, `"transports": [`+transport+`]`)))
			if len(warns) != 0 {
				t.Errorf("warnings: %v", warns)
			}
		})
	}
}
