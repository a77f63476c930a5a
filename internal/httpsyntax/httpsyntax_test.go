package httpsyntax

import (
	"bufio"
	"io"
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

// TestLengthBody: a body of N bytes ends with io.EOF at its last byte,
// leaves what follows it in the reader, and ends with
// io.ErrUnexpectedEOF, then io.EOF, when the reader ends first.
func TestLengthBody(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("hello, next"))
	b := &LengthBody{R: r, N: 5}
	got, err := io.ReadAll(b)
	if string(got) != "hello" || err != nil {
		t.Fatalf("ReadAll = %q, %v; want hello", got, err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != ", next" {
		t.Errorf("left in the reader: %q", rest)
	}
	short := &LengthBody{R: bufio.NewReader(strings.NewReader("hel")), N: 5}
	got, err = io.ReadAll(short)
	if string(got) != "hel" || err != io.ErrUnexpectedEOF {
		t.Errorf("short body: %q, %v; want hel and io.ErrUnexpectedEOF", got, err)
	}
	if n, err := short.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Errorf("after the short end: %d, %v; want io.EOF", n, err)
	}
	if n, err := (&LengthBody{R: r}).Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Errorf("an empty body: %d, %v; want io.EOF", n, err)
	}
}
