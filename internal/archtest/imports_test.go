package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/junction-wamp/junction/"

// rule says which of the module's packages a package may import directly.
// Standard-library imports are always allowed; third-party imports are
// allowed unless stdOnly is set.
type rule struct {
	prefix  string   // package path under the module, matched as a prefix
	allowed []string // module packages (prefixes) it may import
	stdOnly bool
}

var rules = []rule{
	{prefix: "internal/wamp/codec", allowed: []string{"internal/wamp"}},
	{prefix: "internal/wamp", allowed: nil, stdOnly: true},
	{prefix: "internal/uriindex", allowed: nil, stdOnly: true},
	{prefix: "internal/auth", allowed: []string{"internal/wamp", "internal/uriindex"}},
	{prefix: "internal/router", allowed: []string{"internal/wamp", "internal/uriindex", "internal/auth"}},
	{prefix: "internal/transport/connlimit", allowed: []string{"internal/lograte"}, stdOnly: true},
	{prefix: "internal/transport", allowed: []string{"internal/wamp", "internal/transport", "internal/lograte"}},
	{prefix: "internal/client", allowed: []string{"internal/wamp", "internal/auth"}},
	// bridge -> codec: the Caller and Publisher read request bodies and
	// write answers with the codec's plain-JSON value API (no reflection),
	// not to speak WAMP JSON: it is their hot path (issue 4).
	{prefix: "internal/bridge", allowed: []string{"internal/wamp", "internal/wamp/codec", "internal/client", "internal/auth", "internal/bridge/webhooksig", "internal/lograte"}},
	// lograte: a leaf utility (rate-limited warnings), usable by any
	// package but the router, which keeps its own counting slowLog.
	{prefix: "internal/lograte", allowed: nil, stdOnly: true},
	{prefix: "internal/config", allowed: []string{"internal/wamp", "internal/uriindex"}},
}

// The codec is a transport concern: transports may use it too.
func init() {
	for i := range rules {
		if rules[i].prefix == "internal/transport" {
			rules[i].allowed = append(rules[i].allowed, "internal/wamp/codec")
		}
	}
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		r, ok := ruleFor(pkg)
		if !ok {
			continue
		}
		for _, imp := range fields[1:] {
			if msg := r.check(imp); msg != "" {
				t.Errorf("%s imports %s: %s (DESIGN.md)", pkg, imp, msg)
			}
		}
	}
}

func ruleFor(pkg string) (rule, bool) {
	for _, r := range rules {
		if pkg == r.prefix || strings.HasPrefix(pkg, r.prefix+"/") {
			return r, true
		}
	}
	return rule{}, false
}

func (r rule) check(imp string) string {
	if !strings.HasPrefix(imp, module) {
		if r.stdOnly && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
			return "only the standard library is allowed"
		}
		return ""
	}
	p := strings.TrimPrefix(imp, module)
	for _, a := range r.allowed {
		if p == a || strings.HasPrefix(p, a+"/") && a != "internal/wamp" {
			return ""
		}
	}
	return "not an allowed dependency"
}

func TestRuleCheck(t *testing.T) {
	router, _ := ruleFor("internal/router")
	wamp, _ := ruleFor("internal/wamp")
	transport, _ := ruleFor("internal/transport/websocket")
	bridge, _ := ruleFor("internal/bridge")
	tests := []struct {
		r    rule
		imp  string
		want bool // allowed
	}{
		{router, module + "internal/wamp", true},
		{router, module + "internal/wamp/codec", false},
		{router, module + "internal/transport/local", false},
		{router, "github.com/some/lib", true},
		{wamp, "github.com/some/lib", false},
		{wamp, "sync", true},
		{transport, module + "internal/wamp/codec", true},
		{transport, module + "internal/transport/outbox", true},
		{transport, module + "internal/router", false},
		{bridge, module + "internal/wamp/codec", true},
		{bridge, module + "internal/router", false},
	}
	for _, tt := range tests {
		if got := tt.r.check(tt.imp) == ""; got != tt.want {
			t.Errorf("rule %s, import %s: allowed = %v, want %v", tt.r.prefix, tt.imp, got, tt.want)
		}
	}
}
