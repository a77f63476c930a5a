package rest

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/dotsegment"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

var escapeSeeds = []string{
	"", "a", "a/b?x=1#f", "/a", "a/../b", "..", "../x", "%2e%2e/x", ".%2E/x", "a%2f..%2f..", "%5c",
	"http://evil/", "//evil/x", "\\\\evil", "a\\..\\..", "x:y", "a/b/../../..", "?q", "a/.", "a/..",
	"..;/x", "a/..;x/b", "%252e%252e/x", "a%252f..", "%2e%2e%3b/x", "a;b/c", "100%2541",
	"%252e%252e;%25/admin", "%252e%252e%25zz", "..%5cadmin", "%25252541",
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
		for seg := range strings.SplitSeq(again.EscapedPath(), "/") {
			dec, err := url.PathUnescape(seg)
			if err != nil {
				t.Fatalf("resolve(%q) = %s: segment %q: %v", rel, u, seg, err)
			}
			if err := dotsegment.Check(dec); err != nil {
				t.Fatalf("resolve(%q) = %s: segment %q: %v", rel, u, seg, err)
			}
		}
	})
}

// TestResolveRefuses is F13 (docs/SECURITY.md) for the Callee: segments that
// Tomcat or Spring read as "..", and dots or slashes encoded twice, are
// refused; look-alikes that are plain names pass.
func TestResolveRefuses(t *testing.T) {
	base, _ := parseBaseURL("http://h/api")
	refused := []struct {
		rel  string
		want error
	}{
		{"..;/x", errDotParam},
		{"..;", errDotParam},
		{"a/..;/..;/x", errDotParam},
		{"..;jsessionid=1/x", errDotParam},
		{".;/x", errDotParam},
		{"%2e%2e;/x", errDotParam},
		{".%2E;x/y", errDotParam},
		{"..%3b/x", errDotParam},
		{"%252e%252e/x", errEncoded},
		{"%252E%252e/x", errEncoded},
		{".%252e/x", errEncoded},
		{"%252e/x", errEncoded},
		{"%25252e%25252e/x", errEncoded},
		{"%252e%252e%253b/x", errEncoded},
		{"a%252f..%252f..%252fadmin", errEncoded},
		{"a%255c..%255cadmin", errEncoded},
		{"%252F", errEncoded},
		// A decoding that stops at the first invalid escape passed these:
		// "%25" is "%" once decoded, and a lenient upstream reads
		// "%2e%2e;%" as "..;%", which Tomcat takes for "..".
		{"%252e%252e;%25/admin", errEncoded},
		{"a/%252e%252e;%25/%252e%252e;%25/admin", errEncoded},
		{"%2525252541", errEncoded}, // still decoding after dotsegment.MaxDecodes
		{"%5c..%5cadmin", errEncSlash},
		{"..%5cadmin", errEncSlash},
		{"..\\admin", errOutside},
	}
	for _, tt := range refused {
		if u, err := base.resolve(tt.rel); !errors.Is(err, tt.want) {
			t.Errorf("resolve(%q) = %v, %v; want %v", tt.rel, u, err, tt.want)
		}
	}
	passed := map[string]string{
		"a;b/c":                 "http://h/api/a;b/c",
		"a;../b":                "http://h/api/a;../b",
		";../b":                 "http://h/api/;../b",
		"..a;/b":                "http://h/api/..a;/b",
		"...;/b":                "http://h/api/...;/b",
		"100%2541":              "http://h/api/100%2541",
		"%25":                   "http://h/api/%25",
		"x?p=%252e%252e":        "http://h/api/x?p=%252e%252e",
		"%252e%252e%25zz/admin": "http://h/api/%252e%252e%25zz/admin",
	}
	for rel, want := range passed {
		if u, err := base.resolve(rel); err != nil || u.String() != want {
			t.Errorf("resolve(%q) = %v, %v; want %s", rel, u, err, want)
		}
	}
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

// FuzzParseParams: the query of any params object parses back to the same
// names and values, the names first seen in the object's order and each
// name's values in their order.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{`{}`, `{"zeta":"0","alpha":[1,"2"],"mid":1.5}`, `{"a b":"c&d=e","":["",-0]}`,
		`{"x":[true]}`, `{"x":{"y":1}}`, `{"ü":"\u2028","a":18446744073709551615,"a":1e300}`, `[]`, `"s"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := codec.DecodePlainJSON([]byte(text))
		if err != nil {
			return
		}
		q, err := parseParams(v)
		o, isObject := v.(wamp.Object)
		if err != nil {
			if !isObject {
				return
			}
			var re *wamp.RequestError
			if !errors.As(err, &re) || re.URI != wamp.ErrInvalidArgument {
				t.Fatalf("parseParams(%s): %v", text, err)
			}
			return
		}
		if !isObject {
			t.Fatalf("parseParams(%s) = %q for a non-object", text, q)
		}
		var names []string
		got := url.Values{}
		for pair := range strings.SplitSeq(q, "&") {
			if q == "" {
				break
			}
			k, val, ok := strings.Cut(pair, "=")
			name, err1 := url.QueryUnescape(k)
			value, err2 := url.QueryUnescape(val)
			if !ok || err1 != nil || err2 != nil {
				t.Fatalf("parseParams(%s) = %q: pair %q", text, q, pair)
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
			got[name] = append(got[name], value)
		}
		var wantNames []string
		for _, f := range o {
			list, isList := f.Value.([]any)
			if !isList {
				list = []any{f.Value}
			}
			for _, x := range list {
				s, _ := paramString(x)
				if got[f.Key] == nil || got[f.Key][0] != s {
					t.Fatalf("parseParams(%s) = %q: %s=%s missing or out of order", text, q, f.Key, s)
				}
				got[f.Key] = got[f.Key][1:]
			}
			if len(list) > 0 {
				wantNames = append(wantNames, f.Key)
			}
		}
		if !slices.Equal(names, wantNames) {
			t.Fatalf("parseParams(%s) = %q: names %q, want %q", text, q, names, wantNames)
		}
	})
}
