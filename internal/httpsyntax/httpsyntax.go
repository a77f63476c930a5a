// Package httpsyntax holds the HTTP/1.1 message syntax that the web
// transport's parsers of their own read as net/http does, the h1
// engine's and the loop engine's request heads and the reverse proxy's
// upstream answers: field names and values (RFC 9110 section 5), the
// bytes of a path that need no escape, a plain Content-Length, and a
// body of that length. A leaf: the standard library only.
package httpsyntax

import (
	"bufio"
	"io"
)

// IsTokenByte reports whether b may appear in a token (RFC 9110 section
// 5.6.2).
func IsTokenByte(b byte) bool {
	if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' {
		return true
	}
	switch b {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// ValidFieldName reports whether s is a header field name: one or more
// token characters.
func ValidFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// ValidFieldValue reports whether s is a header field value as textproto
// accepts it: no control character but HTAB (obs-text, bytes 0x80 and
// up, is allowed).
func ValidFieldValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < ' ' && b != '\t' || b == 0x7f {
			return false
		}
	}
	return true
}

// TrimBlanks is strings.Trim(s, " \t"), without building the set of the
// characters to trim at each call.
func TrimBlanks(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// PlainPathByte reports a byte that url.URL.EscapedPath leaves as it is
// in a path: unreserved, and the sub-delimiters it does not escape.
func PlainPathByte(b byte) bool {
	if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' {
		return true
	}
	switch b {
	case '-', '_', '.', '~', '/', '$', '&', '+', ',', ':', ';', '=', '@':
		return true
	}
	return false
}

// PlainLength parses a Content-Length of decimal digits only, not so
// many that they could overflow; -1 for anything else.
func PlainLength(s string) int64 {
	if s == "" || len(s) > 18 {
		return -1
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = 10*n + int64(s[i]-'0')
	}
	return n
}

// LengthBody is a message body of N bytes read from R, the connection's
// buffered reader, as net/http's body reads one: io.EOF with its last
// bytes, io.ErrUnexpectedEOF when R ends first, and io.EOF from then on.
// Close does nothing: the caller reads or discards what is left.
type LengthBody struct {
	R      *bufio.Reader
	N      int64 // bytes left
	sawEOF bool
}

func (b *LengthBody) Read(p []byte) (int, error) {
	if b.sawEOF || b.N <= 0 {
		b.sawEOF = true
		return 0, io.EOF
	}
	if int64(len(p)) > b.N {
		p = p[:b.N]
	}
	n, err := b.R.Read(p)
	b.N -= int64(n)
	switch {
	case err == io.EOF:
		b.sawEOF = true
		if b.N > 0 {
			err = io.ErrUnexpectedEOF
		}
	case err == nil && n > 0 && b.N == 0:
		b.sawEOF = true
		err = io.EOF
	}
	return n, err
}

// Close does nothing.
func (b *LengthBody) Close() error { return nil }
