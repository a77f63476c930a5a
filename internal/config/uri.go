package config

import (
	"net/url"
	"strings"

	"github.com/junction-wamp/junction/internal/wamp"
)

// looseURI reports whether s is a valid loose URI (a realm name, a
// procedure or topic matched exactly).
func looseURI(s string) bool {
	return wamp.ValidURI(wamp.URI(s), false, wamp.MatchExact)
}

// webSocketURL reports whether s is a ws:// or wss:// URL with a host.
func webSocketURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "ws" || u.Scheme == "wss") && u.Host != ""
}

// httpURL parses s as an absolute http:// or https:// URL with a host.
func httpURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
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
