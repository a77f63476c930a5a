package config

import (
	"net/url"
	"slices"
	"strings"

	"github.com/junction-wamp/junction/wamp"
)

// looseURI reports whether s is a valid loose URI (a realm name, a
// procedure or topic matched exactly).
func looseURI(s string) bool {
	return wamp.ValidURI(wamp.URI(s), false, wamp.MatchExact)
}

// webSocketURL reports whether s is a ws:// or wss:// URL with a host.
func webSocketURL(s string) bool {
	_, ok := absoluteURL(s, "ws", "wss")
	return ok
}

// httpURL parses s as an absolute http:// or https:// URL with a host.
func httpURL(s string) (*url.URL, bool) { return absoluteURL(s, "http", "https") }

// absoluteURL parses s as a URL of one of schemes with a host (so never
// an opaque one, such as "http:x").
func absoluteURL(s string, schemes ...string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || !slices.Contains(schemes, u.Scheme) || u.Host == "" {
		return nil, false
	}
	return u, true
}

// httpToken reports whether s is an HTTP token (RFC 9110 5.6.2), as a
// method is.
func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (r >= 0x80 || !strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}
