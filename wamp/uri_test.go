package wamp

import (
	"regexp"
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
		{"", true, MatchExact, false},
		{"", false, MatchPrefix, true},
		{"", true, MatchPrefix, true},
		{"", false, MatchWildcard, true},
		{".", false, MatchPrefix, false},
		{".", false, MatchWildcard, true},
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

// uriPatterns are autobahn's URI patterns (wamp/message.py), which
// Crossbar checks SUBSCRIBE and REGISTER against, by strict and match
// policy: ValidURI must agree with them. Python's \s is spelled out as
// the ASCII whitespace ValidURI refuses.
var uriPatterns = map[bool]map[string]*regexp.Regexp{
	false: {
		MatchExact:    regexp.MustCompile(`^([^ \t\n\r\f\v.#]+\.)*([^ \t\n\r\f\v.#]+)$`),
		MatchPrefix:   regexp.MustCompile(`^([^ \t\n\r\f\v.#]+\.)*([^ \t\n\r\f\v.#]*)$`),
		MatchWildcard: regexp.MustCompile(`^(([^ \t\n\r\f\v.#]+\.)|\.)*([^ \t\n\r\f\v.#]+)?$`),
	},
	true: {
		MatchExact:    regexp.MustCompile(`^([0-9a-z_]+\.)*([0-9a-z_]+)$`),
		MatchPrefix:   regexp.MustCompile(`^([0-9a-z_]+\.)*([0-9a-z_]*)$`),
		MatchWildcard: regexp.MustCompile(`^(([0-9a-z_]+\.)|\.)*([0-9a-z_]+)?$`),
	},
}

// validURIReference is ValidURI by autobahn's patterns. Go's regexp reads
// a byte that is not UTF-8 as U+FFFD, which the loose classes admit as
// ValidURI admits any such byte.
func validURIReference(u URI, strict bool, match string) bool {
	return uriPatterns[strict][match].MatchString(string(u))
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
