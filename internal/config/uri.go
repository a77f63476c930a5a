package config

import (
	"net/url"

	"github.com/junction-wamp/junction/internal/wamp"
)

// wampValidRealm reports whether s is a valid realm name (a loose URI).
func wampValidRealm(s string) bool {
	return wamp.ValidURI(wamp.URI(s), false, wamp.MatchExact)
}

// webSocketURL reports whether s is a ws:// or wss:// URL with a host.
func webSocketURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "ws" || u.Scheme == "wss") && u.Host != ""
}
