package docs

import (
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/wamp"
)

// authorizerOf parses a config with one realm whose role "r" has the
// given permissions (a JSON array) and compiles them as the node does.
func authorizerOf(t *testing.T, permissions string) *auth.StaticAuthorizer {
	t.Helper()
	doc := `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1",
		"roles": [{"name": "r", "permissions": ` + permissions + `}]}]}]}`
	cfg, _, err := config.Parse([]byte(doc), config.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var rules []auth.Rule
	for _, p := range cfg.Workers[0].(*config.RouterWorker).Realms[0].Roles[0].Permissions {
		rules = append(rules, auth.Rule{URI: p.URI, Match: p.Match, Allow: auth.Actions{
			Call: p.Allow.Call, Register: p.Allow.Register, Publish: p.Allow.Publish, Subscribe: p.Allow.Subscribe,
		}})
	}
	return auth.NewStaticAuthorizer(map[string][]auth.Rule{"r": rules})
}

// TestPermissionsAsDocumented checks the examples of the "Permissions"
// section of configuration.md.
func TestPermissionsAsDocumented(t *testing.T) {
	tests := []struct {
		name, permissions string
		action            auth.Action
		uri               wamp.URI
		allow             bool
	}{
		{"broader prefix allows", precedence, auth.ActionCall, "com.example.orders.list", true},
		{"most specific prefix decides", precedence, auth.ActionCall, "com.example.admin.reset", false},
		{"most specific prefix allows", precedence, auth.ActionSubscribe, "com.example.admin.reset", true},
		{"prefix is on the string", `[{"uri": "com.example.a", "match": "prefix", "allow": {"call": true}}]`, auth.ActionCall, "com.example.abc", true},
		{"wildcard one component", wildcard, auth.ActionCall, "com.example.user.update", true},
		{"wildcard not two components", wildcard, auth.ActionCall, "com.example.a.b.update", false},
		{"starred prefix", `[{"uri": "com.example.*", "allow": {"call": true}}]`, auth.ActionCall, "com.example.x.y", true},
		{"star alone is everything", `[{"uri": "*", "allow": {"call": true}}]`, auth.ActionCall, "any.uri", true},
		{"starred wildcard", `[{"uri": "com.*.ping", "allow": {"call": true}}]`, auth.ActionCall, "com.x.ping", true},
		{"no star is exact", `[{"uri": "com.example.ping", "allow": {"call": true}}]`, auth.ActionCall, "com.example.ping2", false},
		{"exact beats wildcard and prefix", exactFirst, auth.ActionCall, "com.example.user.update", false},
		{"wildcard beats prefix", exactFirst, auth.ActionCall, "com.example.other.update", true},
		{"nothing matches", precedence, auth.ActionCall, "org.other", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := authorizerOf(t, tt.permissions)
			got, err := a.Authorize(&auth.Identity{AuthRole: "r"}, tt.action, tt.uri, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Allow != tt.allow {
				t.Errorf("%s %s: allow %v, want %v", tt.action, tt.uri, got.Allow, tt.allow)
			}
		})
	}
}

const (
	precedence = `[{"uri": "com.example.", "match": "prefix", "allow": {"call": true, "subscribe": true}},
		{"uri": "com.example.admin.", "match": "prefix", "allow": {"subscribe": true}}]`
	wildcard   = `[{"uri": "com.example..update", "match": "wildcard", "allow": {"call": true}}]`
	exactFirst = `[{"uri": "com.example.", "match": "prefix", "allow": {}},
		{"uri": "com.example..update", "match": "wildcard", "allow": {"call": true}},
		{"uri": "com.example.user.update", "allow": {}}]`
)
