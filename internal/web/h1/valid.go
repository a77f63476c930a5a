package h1

// The Host check that net/http's server makes after parsing; the field
// names and values are checked with package httpsyntax.

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
