package httpsyntax

import (
	"strconv"
	"strings"
	"testing"
)

func TestTrimBlanks(t *testing.T) {
	for _, s := range []string{"", " ", "\t \t", "a", " a", "a\t", " \ta b\t ", "\ta\r\n", "\xa0a\xa0"} {
		if got, want := TrimBlanks(s), strings.Trim(s, " \t"); got != want {
			t.Errorf("TrimBlanks(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestFieldSyntax: the token bytes are RFC 9110's (letters, digits and
// "!#$%&'*+-.^_`|~"), and a field value refuses the control bytes but
// HTAB.
func TestFieldSyntax(t *testing.T) {
	const tokenPunct = "!#$%&'*+-.^_`|~"
	for b := range 256 {
		c := byte(b)
		one := string([]byte{c})
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		token := isAlnum || strings.IndexByte(tokenPunct, c) >= 0
		if IsTokenByte(c) != token || ValidFieldName(one) != token {
			t.Errorf("%#x: IsTokenByte %v, ValidFieldName %v, want %v", c, IsTokenByte(c), ValidFieldName(one), token)
		}
		value := c == '\t' || c >= ' ' && c != 0x7f
		if got := ValidFieldValue("a" + one + "b"); got != value {
			t.Errorf("ValidFieldValue with %#x = %v, want %v", c, got, value)
		}
	}
	if ValidFieldName("") || !ValidFieldName("X-Forwarded-For") || ValidFieldName("Bad Name") {
		t.Error("ValidFieldName of a whole name")
	}
}

func TestPlainLength(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1024", 1024}, {"007", 7}, {"999999999999999999", 999999999999999999},
		{"", -1}, {"1000000000000000000", -1}, {"+1", -1}, {"-1", -1}, {" 1", -1}, {"1 ", -1}, {"0x10", -1}, {"1,2", -1},
	} {
		if got := PlainLength(tt.in); got != tt.want {
			t.Errorf("PlainLength(%q) = %d, want %d", tt.in, got, tt.want)
		}
		if n, err := strconv.ParseInt(tt.in, 10, 64); tt.want >= 0 && (err != nil || n != tt.want) {
			t.Errorf("PlainLength(%q) = %d, strconv %d %v", tt.in, tt.want, n, err)
		}
	}
}
