package wsupgrade

import (
	"bufio"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRequested(t *testing.T) {
	tests := []struct {
		connection, upgrade []string
		want                bool
	}{
		{[]string{"Upgrade"}, []string{"websocket"}, true},
		{[]string{"keep-alive, UPGRADE"}, []string{"WebSocket"}, true},
		{[]string{"keep-alive", "upgrade"}, []string{"h2c", "websocket"}, true},
		{[]string{"Upgrade"}, []string{"h2c"}, false},
		{[]string{"keep-alive"}, []string{"websocket"}, false},
		{nil, []string{"websocket"}, false},
		{[]string{"Upgrade"}, nil, false},
		{[]string{"Upgraded"}, []string{"websockets"}, false},
	}
	for _, tt := range tests {
		h := http.Header{"Connection": tt.connection, "Upgrade": tt.upgrade}
		if got := Requested(h); got != tt.want {
			t.Errorf("Requested(%v) = %v, want %v", h, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		lines []string
		want  []string
	}{
		{nil, nil},
		{[]string{""}, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{" a , b,,c ", "d", " , "}, []string{"a", "b", "c", "d"}},
	}
	for _, tt := range tests {
		if got := slices.Collect(Tokens(tt.lines)); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.lines, got, tt.want)
		}
	}
	// The iteration stops when asked to.
	for tok := range Tokens([]string{"a, b", "c"}) {
		if tok != "a" {
			t.Fatalf("token %q after the loop broke", tok)
		}
		break
	}
	if !HasToken([]string{"x, Trailers"}, "trailers") || HasToken([]string{"x"}, "trailers") {
		t.Error("HasToken")
	}
}

func TestPending(t *testing.T) {
	br := bufio.NewReader(strings.NewReader("GET / HTTP/1.1\r\n\r\nearly frame"))
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if got := string(Pending(br)); got != "early frame" {
		t.Errorf("Pending = %q", got)
	}
}

func TestOrigins(t *testing.T) {
	o := NewOrigins([]string{"https://*.Example.com", "http://localhost:*"})
	tests := []struct {
		origin string
		ok     bool
	}{
		{"", true}, // not from a browser
		{"https://a.b.EXAMPLE.com", true},
		{"http://localhost:3000", true},
		{"https://example.com.evil.test", false},
		{"http://localhost.evil.test", false},
		{"null", false},
	}
	for _, tt := range tests {
		if got := o.Allow(tt.origin); got != tt.ok {
			t.Errorf("Allow(%q) = %v, want %v", tt.origin, got, tt.ok)
		}
	}
	for _, none := range []Origins{{}, NewOrigins(nil)} {
		if !none.Allow("https://any.test") {
			t.Error("no patterns refused an origin")
		}
	}
}

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "anything", true},
		{"a*c", "abc", true},
		{"a*c", "ac", true},
		{"a*c", "ab", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false},
		{"exact", "exact", true},
		{"exact", "exactly", false},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v", tt.pattern, tt.s, got)
		}
	}
}

// FuzzMatchGlob checks matchGlob (allowed_origins patterns) against a
// regular expression built from the same pattern, for UTF-8 inputs (the
// reference needs them; UTF-8 being self-synchronizing, matching bytes or
// runes then agree).
func FuzzMatchGlob(f *testing.F) {
	f.Add("https://*.example.com", "https://app.example.com")
	f.Add("*", "")
	f.Add("a*b*c", "abbc")
	f.Add("*.com*", ".com")
	f.Add("x**y", "xy")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(s) {
			return
		}
		parts := strings.Split(pattern, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		want := regexp.MustCompile("^(?s:" + strings.Join(parts, ".*") + ")$").MatchString(s)
		if got := matchGlob(pattern, s); got != want {
			t.Fatalf("matchGlob(%q, %q) = %v, want %v", pattern, s, got, want)
		}
	})
}
