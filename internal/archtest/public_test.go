package archtest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// publicPkg is a package of the public API: every package of the module
// outside internal/, cmd/, test/ and docs/ (the root package included).
type publicPkg struct {
	path  string   // import path
	dir   string   // directory
	files []string // its non-test Go files, absolute
}

// isPublic says whether an import path of the module is public.
func isPublic(path string) bool {
	rel, ok := strings.CutPrefix(path, module)
	if path == strings.TrimSuffix(module, "/") {
		return true
	}
	if !ok {
		return false
	}
	for _, private := range []string{"internal", "cmd", "test", "docs"} {
		if rel == private || strings.HasPrefix(rel, private+"/") {
			return false
		}
	}
	return !isInternalPath(rel) && !strings.Contains("/"+rel+"/", "/testdata/")
}

// isInternalPath says whether an import path has an "internal" element, so
// that only its own tree may import it.
func isInternalPath(path string) bool {
	return strings.Contains("/"+path+"/", "/internal/")
}

var listPublic = sync.OnceValues(func() ([]publicPkg, error) {
	const format = `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles " "}}`
	out, err := exec.Command("go", "list", "-f", format, module+"...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []publicPkg
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSpace(line), "|")
		if !isPublic(f[0]) {
			continue
		}
		p := publicPkg{path: f[0], dir: f[1]}
		for _, name := range strings.Fields(f[2]) {
			p.files = append(p.files, filepath.Join(f[1], name))
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
})

// publicPackages returns the public packages; at least wamp, wamp/codec
// and client, so that a broken listing cannot pass for an empty API.
func publicPackages(t *testing.T) []publicPkg {
	t.Helper()
	pkgs, err := listPublic()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wamp", "wamp/codec", "client"} {
		found := false
		for _, p := range pkgs {
			found = found || p.path == module+want
		}
		if !found {
			t.Fatalf("public packages %v: %s missing", pkgs, want)
		}
	}
	return pkgs
}

func TestIsPublic(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"github.com/junction-wamp/junction", true},
		{module + "client", true},
		{module + "wamp/codec", true},
		{module + "internal/router", false},
		{module + "cmd/junction", false},
		{module + "test/e2e", false},
		{module + "docs", false},
		{module + "client/internal/x", false},
		{module + "testing", true},
		{"github.com/other/client", false},
	}
	for _, tt := range tests {
		if got := isPublic(tt.path); got != tt.want {
			t.Errorf("isPublic(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
