package wamp

import (
	"strings"
	"testing"
)

func TestValidURI(t *testing.T) {
	tests := []struct {
		uri    URI
		strict bool
		match  string
		want   bool
	}{
		{"com.example.add", false, MatchExact, true},
		{"com.example.add", true, MatchExact, true},
		{"com.Example.add-2", false, MatchExact, true},
		{"com.Example.add", true, MatchExact, false},
		{"com.example.add-2", true, MatchExact, false},
		{"", false, MatchExact, false},
		{"", false, MatchPrefix, false},
		{"com..add", false, MatchExact, false},
		{"com..add", false, MatchWildcard, true},
		{".com", false, MatchWildcard, true},
		{"com.", false, MatchWildcard, true},
		{"com.", false, MatchPrefix, true},
		{"com.", false, MatchExact, false},
		{"com..", false, MatchPrefix, false},
		{".com", false, MatchPrefix, false},
		{"com.ex ample", false, MatchExact, false},
		{"com.ex#ample", false, MatchExact, false},
		{"com.ex\tample", false, MatchExact, false},
		{"com.exämple", false, MatchExact, true},
		{"com.exämple", true, MatchExact, false},
		{"a", true, MatchExact, true},
		{"wamp.session.count", true, MatchExact, true},
	}
	for _, tt := range tests {
		if got := ValidURI(tt.uri, tt.strict, tt.match); got != tt.want {
			t.Errorf("ValidURI(%q, strict=%v, %s) = %v, want %v", tt.uri, tt.strict, tt.match, got, tt.want)
		}
	}
}

// validURIReference is the straightforward definition ValidURI must agree with.
func validURIReference(u URI, strict bool, match string) bool {
	if u == "" {
		return false
	}
	parts := strings.Split(string(u), ".")
	for i, p := range parts {
		if p == "" {
			last := i == len(parts)-1
			if match != MatchWildcard && !(match == MatchPrefix && last && len(parts) > 1) {
				return false
			}
		}
		for j := 0; j < len(p); j++ {
			if !validChar(p[j], strict) {
				return false
			}
		}
	}
	if strict {
		for _, r := range string(u) {
			if r != '.' && !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
				return false
			}
		}
	} else if strings.ContainsAny(string(u), " \t\n\r\f\v#") {
		return false
	}
	return true
}

func FuzzValidURI(f *testing.F) {
	for _, s := range []string{"com.example", "com..x", "com.", ".", "", "a b", "x#", "ä.b"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, strict bool) {
		for _, m := range []string{MatchExact, MatchPrefix, MatchWildcard} {
			got, want := ValidURI(URI(s), strict, m), validURIReference(URI(s), strict, m)
			if got != want {
				t.Fatalf("ValidURI(%q, %v, %s) = %v, reference says %v", s, strict, m, got, want)
			}
		}
	})
}
