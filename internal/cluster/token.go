package cluster

import "strings"

const hexDigits = "0123456789ABCDEF"

// Token escapes a URI component or a name for one token of a NATS subject
// or a KV key: ASCII letters, digits, '_' and '-' are kept, every other
// byte becomes =XX (upper-case hex). The escaping is injective, so two
// different strings never share a token; the empty string is "=".
func Token(s string) string {
	if s == "" {
		return "="
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !plain(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plain(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('=')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xF])
	}
	return b.String()
}

// plain reports whether Token keeps c as it is.
func plain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// validName reports whether s is non-empty and made of the bytes Token
// keeps: the only names that may go into a bucket name (where '=' is not
// allowed).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !plain(s[i]) {
			return false
		}
	}
	return true
}
