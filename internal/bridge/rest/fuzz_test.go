package rest

import (
	"net/url"
	"strings"
	"testing"
)

var escapeSeeds = []string{
	"", "a", "a/b?x=1#f", "/a", "a/../b", "..", "../x", "%2e%2e/x", ".%2E/x", "a%2f..%2f..", "%5c",
	"http://evil/", "//evil/x", "\\\\evil", "a\\..\\..", "x:y", "a/b/../../..", "?q", "a/.", "a/..",
}

// FuzzResolve: whatever url a caller sends, an accepted target is below
// the base (the same check that guards redirects) and on its origin.
func FuzzResolve(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add(s)
	}
	base, err := parseBaseURL("https://api.example.com:8443/v1/")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		u, err := base.resolve(rel)
		if err != nil {
			return
		}
		if !base.contains(u) {
			t.Fatalf("resolve(%q) = %s, not below the base", rel, u)
		}
		again, err := url.Parse(u.String())
		if err != nil || again.Host != "api.example.com:8443" || again.Scheme != "https" {
			t.Fatalf("resolve(%q) = %s: reparsed as %v, %v", rel, u, again, err)
		}
		if p := again.EscapedPath(); p != "/v1" && !strings.HasPrefix(p, "/v1/") {
			t.Fatalf("resolve(%q) = %s: path %q", rel, u, p)
		}
	})
}

func TestResolve(t *testing.T) {
	base, _ := parseBaseURL("http://h/api")
	tests := []struct{ rel, want string }{
		{"", "http://h/api"},
		{"x", "http://h/api/x"},
		{"/x", "http://h/api/x"},
		{"x/", "http://h/api/x/"},
		{"a/./b/../c?q=1#frag", "http://h/api/a/c?q=1"},
		{"a/..", "http://h/api/"},
		{"a%20b", "http://h/api/a%20b"},
		{"a/%2e%2e/b", "http://h/api/b"},
	}
	for _, tt := range tests {
		u, err := base.resolve(tt.rel)
		if err != nil || u.String() != tt.want {
			t.Errorf("resolve(%q) = %v, %v; want %s", tt.rel, u, err, tt.want)
		}
	}
}
