package archtest

import (
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/junction-wamp/junction/"

// root is the package at the module's root (package junction), "." in
// rules.
const root = "."

// inModule returns the path of imp under the module ("wamp", or root for
// the module's own path), and whether imp is a package of the module.
func inModule(imp string) (string, bool) {
	if imp+"/" == module {
		return root, true
	}
	return strings.CutPrefix(imp, module)
}

// pkgInfo is what go list says of one package of the module: its path
// under the module and its direct imports.
type pkgInfo struct {
	path        string
	imports     []string
	testImports []string // of its _test.go files, both test packages
}

// listPackages runs go list once for every test of the package, with
// the build tags of the tests kept out of make test (soak), so that their
// imports are checked too.
var listPackages = sync.OnceValues(func() ([]pkgInfo, error) {
	const format = `{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`
	out, err := exec.Command("go", "list", "-tags", "soak", "-f", format, module+"...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkgInfo
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSpace(line), "|")
		path, _ := inModule(f[0])
		pkgs = append(pkgs, pkgInfo{path: path,
			imports: strings.Fields(f[1]), testImports: strings.Fields(f[2])})
	}
	return pkgs, nil
})

func packages(t *testing.T) []pkgInfo {
	t.Helper()
	pkgs, err := listPackages()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestImportRules holds every package of the module to its rule.
func TestImportRules(t *testing.T) {
	for _, p := range packages(t) {
		key, ok := ruleFor(p.path)
		if !ok {
			t.Errorf("%s has no import rule: add one to rules", p.path)
			continue
		}
		r := rules[key]
		imports := p.imports
		if r.tests {
			imports = append(slices.Clip(imports), p.testImports...)
		}
		for _, imp := range imports {
			if msg := r.check(p.path, imp); msg != "" {
				t.Errorf("%s imports %s: %s (rule %q)", p.path, imp, msg, key)
			}
		}
	}
}

// TestImporters holds every package with importers in its rule to them:
// no other package of the module, nor its tests, imports it.
func TestImporters(t *testing.T) {
	for _, p := range packages(t) {
		for _, imp := range slices.Concat(p.imports, p.testImports) {
			if msg := importerCheck(p.path, imp); msg != "" {
				t.Errorf("%s imports %s: %s", p.path, imp, msg)
			}
		}
	}
}

// TestModuleImporters holds every package to moduleImporters.
func TestModuleImporters(t *testing.T) {
	for _, p := range packages(t) {
		for _, imp := range slices.Concat(p.imports, p.testImports) {
			if msg := moduleImporterCheck(p.path, imp); msg != "" {
				t.Errorf("%s imports %s: %s", p.path, imp, msg)
			}
		}
	}
}

// moduleImporterCheck returns why pkg may not import imp, a package of a
// third-party module under moduleImporters ("" when it may).
func moduleImporterCheck(pkg, imp string) string {
	for mod, importers := range moduleImporters {
		if imp != mod && !strings.HasPrefix(imp, mod+"/") {
			continue
		}
		if !slices.ContainsFunc(importers, func(a string) bool { return matches(a, pkg) }) {
			return fmt.Sprintf("only %s may import %s", strings.Join(importers, ", "), mod)
		}
	}
	return ""
}

// TestTestOnlyModules: no package of the module imports a module of
// testOnly, or a testHelper package, outside its tests (a testHelper
// itself excepted).
func TestTestOnlyModules(t *testing.T) {
	for _, p := range packages(t) {
		if isTestHelper(p.path) {
			continue
		}
		for _, imp := range p.imports {
			for _, m := range testOnly {
				if strings.HasPrefix(imp, m) {
					t.Errorf("%s imports %s: only tests may (testOnly)", p.path, imp)
				}
			}
			if local, ok := inModule(imp); ok && isTestHelper(local) {
				t.Errorf("%s imports %s: only tests may (testHelper)", p.path, imp)
			}
		}
	}
}

// isTestHelper says whether the rule of pkg marks it testHelper.
func isTestHelper(pkg string) bool {
	key, ok := ruleFor(pkg)
	return ok && rules[key].testHelper
}

// importerCheck returns why pkg may not import imp under the importers
// of imp's rule ("" when it may).
func importerCheck(pkg, imp string) string {
	p, ok := inModule(imp)
	if !ok || p == pkg {
		return ""
	}
	key, ok := ruleFor(p)
	if !ok || rules[key].importers == nil {
		return ""
	}
	if slices.ContainsFunc(rules[key].importers, func(a string) bool { return matches(a, pkg) }) {
		return ""
	}
	return fmt.Sprintf("only %s may import it (rule %q)", strings.Join(rules[key].importers, ", "), key)
}

// TestRulesNameRealPackages: every key and every allowed pattern matches a
// package, so that a typo or a rule left behind by a removed package
// shows.
func TestRulesNameRealPackages(t *testing.T) {
	var paths []string
	for _, p := range packages(t) {
		paths = append(paths, p.path)
	}
	for key, r := range rules {
		for _, pattern := range slices.Concat([]string{key}, r.allowed, r.importers) {
			if !slices.ContainsFunc(paths, func(p string) bool { return matches(pattern, p) }) {
				t.Errorf("rule %q: %q matches no package", key, pattern)
			}
		}
	}
}

// ruleFor returns the key of the rule of pkg, a path under the module.
func ruleFor(pkg string) (string, bool) {
	return mostSpecific(slices.Collect(maps.Keys(rules)), pkg)
}

// mostSpecific returns the pattern among patterns that matches pkg most
// specifically: an exact pattern before a "/..." one, a longer base before
// a shorter one. Two patterns cannot tie (both would be the same prefix
// of pkg), so the answer does not depend on the order of patterns.
func mostSpecific(patterns []string, pkg string) (string, bool) {
	best, found := "", false
	for _, p := range patterns {
		if matches(p, pkg) && (!found || specificity(p) > specificity(best)) {
			best, found = p, true
		}
	}
	return best, found
}

func specificity(pattern string) int {
	base, tree := strings.CutSuffix(pattern, "/...")
	if tree {
		return 2 * len(base)
	}
	return 2*len(base) + 1
}

// matches reports whether pattern ("a/b" exactly, or "a/b/..." for a/b
// and below) matches pkg.
func matches(pattern, pkg string) bool {
	base, tree := strings.CutSuffix(pattern, "/...")
	if !tree {
		return pkg == pattern
	}
	return pkg == base || strings.HasPrefix(pkg, base+"/")
}

// check returns why pkg, under r, may not import imp ("" when it may).
func (r rule) check(pkg, imp string) string {
	p, in := inModule(imp)
	switch {
	case !in && !thirdParty(imp):
		return ""
	case !in && r.stdOnly:
		return "only the standard library is allowed"
	case !in, p == pkg:
		return ""
	case slices.ContainsFunc(r.allowed, func(a string) bool { return matches(a, p) }):
		return ""
	}
	return "not an allowed dependency"
}

// thirdParty reports whether an import path is outside the standard
// library: its first element holds a dot, as a domain does.
func thirdParty(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return strings.Contains(first, ".")
}

func TestRuleCheck(t *testing.T) {
	tests := []struct {
		pkg, imp string
		want     bool // allowed
	}{
		{"internal/router", module + "wamp", true},
		{root, module + "internal/node", true},
		{root, module + "client", true},
		{"client", strings.TrimSuffix(module, "/"), false}, // the root package
		{"wamp", strings.TrimSuffix(module, "/"), false},
		{"internal/node", strings.TrimSuffix(module, "/"), false},
		{"internal/router", module + "internal/lograte", true},
		{"internal/router", module + "wamp/codec", false},
		{"internal/router", module + "internal/transport/local", false},
		{"internal/router", module + "internal/config", false},
		{"internal/router", "github.com/some/lib", true},
		{"wamp", "github.com/some/lib", false},
		{"wamp", "sync", true},
		{"wamp", module + "internal/uriindex", false},
		{"wamp/codec", module + "wamp", true},
		{"internal/transport/websocket", module + "wamp/codec", true},
		{"internal/transport/websocket", module + "internal/transport/outbox", true},
		{"internal/transport/websocket", module + "internal/router", false},
		{"internal/bridge", module + "wamp/codec", true},
		{"internal/bridge", module + "internal/bridge/webhooksig", true},
		{"internal/bridge", module + "internal/router", false},
		{"internal/bridge/rest", module + "client", true},
		{"internal/bridge/rest", module + "internal/config", false},
		{"internal/bridge/webhooksig", module + "wamp", false},
		{"internal/web", module + "internal/lograte", true},
		{"internal/web", module + "internal/router", false},
		{"internal/web", module + "internal/transport/websocket", false},
		{"client", module + "internal/auth", true},
		{"client", module + "internal/router", false},
		{"client", module + "internal/transport/websocket", true},
		{"client", module + "internal/transport/local", false},
		{"internal/transport/websocket", module + "client", false},
		{"internal/transport/rawsocket", module + "client", false},
		{"internal/config", module + "internal/uriindex", true},
		{"internal/config", module + "internal/bridge/rest", false},
		{"internal/node", module + "internal/router", true},
		{"cmd/junction", module + "internal/node", true},
		{"docs", module + "internal/node", true},
		{"test/e2e", module + "client", true},
		{"test/e2e", module + "test/internal/nodeproc", true},
		{"test/e2e", module + "internal/node", false},
		{"test/interop", module + "client", false},
		{"test/corpus", module + "client", true},
		{"test/corpus", module + "internal/node", false},
		{"test/internal/nodeproc", "go.uber.org/goleak", false},
		{"internal/web", module + "internal/web", true}, // its external test package
		{"internal/process", "os/exec", true},
		{"internal/process", module + "wamp", false},
		{"internal/process", "golang.org/x/sys/unix", false},
	}
	for _, tt := range tests {
		key, ok := ruleFor(tt.pkg)
		if !ok {
			t.Errorf("%s: no rule", tt.pkg)
			continue
		}
		if got := rules[key].check(tt.pkg, tt.imp) == ""; got != tt.want {
			t.Errorf("%s (rule %q) imports %s: allowed = %v, want %v", tt.pkg, key, tt.imp, got, tt.want)
		}
	}
}

func TestImporterCheck(t *testing.T) {
	tests := []struct {
		pkg, imp string
		want     bool // allowed
	}{
		{"internal/node", module + "internal/process", true},
		{"internal/process", module + "internal/process", true}, // its external test package
		{"internal/router", module + "internal/process", false},
		{"cmd/junction", module + "internal/process", false},
		{"docs", module + "internal/process", false},
		{"internal/router", module + "wamp", true},
		{"internal/router", "os/exec", true},
	}
	for _, tt := range tests {
		if got := importerCheck(tt.pkg, tt.imp) == ""; got != tt.want {
			t.Errorf("%s imports %s: allowed = %v, want %v", tt.pkg, tt.imp, got, tt.want)
		}
	}
}

// TestRuleForIsOrderIndependent resolves packages against overlapping
// patterns in every order of the patterns: the most specific one wins in
// each.
func TestRuleForIsOrderIndependent(t *testing.T) {
	patterns := []string{"internal/...", "internal/bridge/...", "internal/bridge", "internal/bridge/webhooksig", "wamp"}
	tests := []struct{ pkg, want string }{
		{"internal/bridge", "internal/bridge"},
		{"internal/bridge/rest", "internal/bridge/..."},
		{"internal/bridge/webhooksig", "internal/bridge/webhooksig"},
		{"wamp", "wamp"},
		{"internal/uriindex", "internal/..."},
		{"internal/bridgex", "internal/..."},
		{"cmd/junction", ""},
	}
	for _, order := range permutations(patterns) {
		for _, tt := range tests {
			if got, _ := mostSpecific(order, tt.pkg); got != tt.want {
				t.Errorf("patterns %q, package %s: rule %q, want %q", order, tt.pkg, got, tt.want)
			}
		}
	}
}

// permutations returns every order of s.
func permutations(s []string) [][]string {
	if len(s) <= 1 {
		return [][]string{slices.Clone(s)}
	}
	var out [][]string
	for i := range s {
		rest := slices.Concat(s[:i], s[i+1:])
		for _, p := range permutations(rest) {
			out = append(out, append([]string{s[i]}, p...))
		}
	}
	return out
}

func TestMatches(t *testing.T) {
	tests := []struct {
		pattern, pkg string
		want         bool
	}{
		{"wamp", "wamp", true},
		{"wamp", "wamp/codec", false},
		{"wamp/...", "wamp", true},
		{"wamp/...", "wamp/codec", true},
		{"wamp/...", "wampx", false},
		{"internal/...", "internal/web", true},
		{"internal/...", "cmd/junction", false},
	}
	for _, tt := range tests {
		if got := matches(tt.pattern, tt.pkg); got != tt.want {
			t.Errorf("matches(%q, %q) = %v, want %v", tt.pattern, tt.pkg, got, tt.want)
		}
	}
}

// TestModuleImporterCheck: the check refuses the Prometheus client to the
// router and the bridge, and lets internal/metrics have it; NATS is
// internal/cluster's alone.
func TestModuleImporterCheck(t *testing.T) {
	const prom = "github.com/prometheus/client_golang/prometheus"
	tests := []struct {
		pkg, imp string
		ok       bool
	}{
		{"internal/metrics", prom, true},
		{"internal/metrics", prom + "/promhttp", true},
		{"internal/router", prom, false},
		{"internal/bridge", prom, false},
		{"internal/transport/websocket", prom, false},
		{"internal/router", "github.com/prometheus/client_golang_other", true},
		{"internal/cluster", "github.com/nats-io/nats.go/jetstream", true},
		{"internal/cluster", "github.com/nats-io/nats-server/v2/server", true},
		{"internal/router", "github.com/nats-io/nats.go", false},
		{"internal/node", "github.com/nats-io/nats-server/v2/server", false},
		{"internal/cluster/clustertest", "github.com/nats-io/nats.go", false},
	}
	for _, tt := range tests {
		if msg := moduleImporterCheck(tt.pkg, tt.imp); (msg == "") != tt.ok {
			t.Errorf("%s importing %s: %q, want allowed %v", tt.pkg, tt.imp, msg, tt.ok)
		}
	}
}
