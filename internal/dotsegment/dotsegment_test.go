package dotsegment

import (
	"errors"
	"strings"
	"testing"
)

// TestCheck is F13 (docs/SECURITY.md): every form of a dot segment that
// the Callee's and the reverse proxy's checks refused before they shared
// this one, the forms that passed one of them (a backslash as a
// separator, a lenient decoding past an invalid escape), and the names
// that only look like one. A path is given as the upstream's first
// decoding makes it: the wire's "%252e" is "%2e" here.
func TestCheck(t *testing.T) {
	tests := []struct {
		path string
		want error // nil: passes
	}{
		// Dot segments as they stand.
		{"..", ErrDot},
		{"/a/..", ErrDot},
		{"/api/../secret", ErrDot},
		{"/api/./x", ErrDot},
		{"/x/..", ErrDot},
		{"/../secret", ErrDot},
		{"/api/a/../b", ErrDot},  // "a%2F..%2Fb" on the wire
		{"/x/../secret", ErrDot}, // "%2e%2e%2fsecret" on the wire
		// ... with ";" path parameters, which Tomcat and Spring drop.
		{"..;", ErrParams},
		{"/api/..;/x", ErrParams},
		{"a/..;/..;/x", ErrParams},
		{"/api/..;jsessionid=1/x", ErrParams},
		{"/api/.;/x", ErrParams},
		{"..;x/y", ErrParams}, // the Callee's ".%2E;x/y"
		{"/%2e%2e;x", ErrEncoded},
		// Encoded once more than the path: an upstream that decodes again.
		{"/api/%2e%2e/x", ErrEncoded},
		{"/api/%2E%2E/x", ErrEncoded},
		{"/api/%2e%2E/x", ErrEncoded},
		{"/api/%2e/x", ErrEncoded},
		{"/api/.%2e/x", ErrEncoded},
		{"/api/%2e%2e%3b/x", ErrEncoded},
		{"/api/%252e%252e/x", ErrEncoded},     // three times on the wire
		{"/%25%32%65%25%32%65/x", ErrEncoded}, // "%2e%2e" spelt in escapes
		{"/a%2F%2E%2E%2Fb", ErrEncoded},
		{"/api/x/..%2f..%2fsecret", ErrEncoded},
		{"a%2f..%2f..%2fadmin", ErrEncoded},
		{"a%5c..%5cadmin", ErrEncoded},
		// A slash or backslash encoded twice, alone: refused too.
		{"/api/%2F", ErrEncoded},
		{"/api/a%2fb", ErrEncoded},
		{"/api/%5C", ErrEncoded},
		// Still decoding after MaxDecodes.
		{"/%25252541", ErrTooDeep},
		{"/%25252525252e", ErrTooDeep},
		{"/%252525252e", ErrTooDeep},
		// The bypasses: a decoding that stopped at an invalid escape
		// ("%25" is "%" once decoded, and "..;%" is ".." to Tomcat) ...
		{"%2e%2e;%/admin", ErrEncoded},
		{"/api/%2e%2e;%25/admin", ErrEncoded},
		{"/api/%2e%2e%zz", nil}, // "..%zz" is no dot segment
		// ... and backslashes, which some servers split on.
		{`/..\admin`, ErrDot},
		{`/api/a\..\..\admin`, ErrDot},
		{`\..`, ErrDot},
		{`/api/..\`, ErrDot},
		{`/api/.;x\admin`, ErrParams},
		{`/api/%2e%2e\admin`, ErrEncoded},
		// Names that only look like one.
		{"", nil},
		{"/", nil},
		{"/a/b.c/d", nil},
		{"/api/a;b/x", nil},
		{"/api/x;y=../z", nil},
		{"a;../b", nil},
		{";../b", nil},
		{"..a;/b", nil},
		{"...;/b", nil},
		{"/api/...", nil},
		{"/api/..x/.y", nil},
		{`/api/a\b`, nil},
		{"/api/%zz/%2", nil}, // invalid escapes stay as they are
		{"/%2e%2", nil},      // ".%2": not a dot segment
		{"/api/%", nil},
		{"/api/%%2e", nil}, // "%.", then no escape
		{"/api/%41", nil},
		{"100%41", nil},
		{"/%252541", nil}, // "A" after exactly MaxDecodes
		{"/" + strings.Repeat("%2541", 10) + "/..x", nil},
	}
	for _, tt := range tests {
		err := Check(tt.path)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("Check(%q) = %v, want %v", tt.path, err, tt.want)
		}
	}
}

// FuzzCheck holds Check to a reference that decodes the whole path, not
// segment by segment: a path Check accepts has no dot segment however many
// times (up to MaxDecodes) it is decoded, and gains no separator.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"/a/..", "%2e%2e;%", `\..`, "/a%2fb", "%252e", "a;b/..x", "%%2e", "%25%32%65"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if Check(path) != nil {
			return
		}
		seps := separators(path)
		for k := range MaxDecodes + 1 {
			for seg := range strings.FieldsFuncSeq(path, func(r rune) bool { return r == '/' || r == '\\' }) {
				if name, _, _ := strings.Cut(seg, ";"); name == "." || name == ".." {
					t.Fatalf("Check accepted a path whose decoding %d, %q, has segment %q", k, path, seg)
				}
			}
			if separators(path) != seps {
				t.Fatalf("Check accepted a path whose decoding %d, %q, has more separators", k, path)
			}
			path = referenceUnescape(path)
		}
	})
}

func separators(s string) int { return strings.Count(s, "/") + strings.Count(s, `\`) }

// referenceUnescape decodes every valid "%XX" escape of s at once.
func referenceUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
			b.WriteByte(hexValue(s[i+1])<<4 | hexValue(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexValue(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

func BenchmarkCheck(b *testing.B) {
	for _, path := range []string{"/api/v1/users/1234/profile", "/api/v1/files/a%41b/x;v=1"} {
		b.Run(path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Check(path) != nil {
					b.Fatal("refused")
				}
			}
		})
	}
}
