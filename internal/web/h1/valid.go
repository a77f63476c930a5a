package h1

// The checks of a request's header fields that net/http's server makes
// after parsing (RFC 9110 section 5: field names are tokens, field values
// have no control characters but horizontal tab).

// isTokenByte reports whether b may appear in a token (RFC 9110 5.6.2).
func isTokenByte(b byte) bool {
	if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' {
		return true
	}
	switch b {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// validFieldName reports whether v is a valid header field name.
func validFieldName(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isTokenByte(v[i]) {
			return false
		}
	}
	return true
}

// validFieldValue reports whether v is a valid header field value: no
// control character but HTAB (obs-text, bytes 0x80 and up, is allowed).
func validFieldValue(v string) bool {
	for i := 0; i < len(v); i++ {
		b := v[i]
		if b < ' ' && b != '\t' || b == 0x7f {
			return false
		}
	}
	return true
}

// validHost reports whether h is a plausible Host header value: the bytes
// of a host (registered name, IPv4, or bracketed IPv6 with a zone) and a
// port. Like net/http's server it checks the alphabet, not the grammar.
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if !isHostByte(h[i]) {
			return false
		}
	}
	return true
}

func isHostByte(b byte) bool {
	if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' {
		return true
	}
	switch b {
	case '!', '$', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', ':', ';', '=', '[', ']', '_', '~':
		return true
	}
	return false
}

// trimBlanks is strings.Trim(s, " \t"), without building the set of the
// characters to trim at each call.
func trimBlanks(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
