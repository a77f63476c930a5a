package auth

import "github.com/junction-wamp/junction/wamp"

// Authentication methods and the provider of the static principals.
const (
	MethodAnonymous  = "anonymous"
	MethodTicket     = "ticket"
	MethodWampCRA    = "wampcra"
	MethodCryptosign = "cryptosign"

	// ProviderStatic is the authprovider of principals from the node
	// configuration, as Crossbar names it.
	ProviderStatic = "static"
)

// noAuthID refuses a HELLO without the authid that method needs.
func noAuthID(method string) *wamp.RequestError {
	return denied(method, "no authid given")
}

// denied refuses an authentication: wamp.error.authentication_denied, the
// WAMP URI for credentials that do not check out. An unknown authid gets
// the same refusal as a wrong secret (after a decoy challenge, see
// decoy.go), and the message never names the authid, so that the answers
// do not tell which principals exist.
func denied(method, format string, a ...any) *wamp.RequestError {
	return wamp.Errorf(wamp.ErrAuthenticationDenied, method+": "+format, a...)
}

// once guards a Challenge against a second Verify, so that one challenge
// cannot be answered twice. Not safe for concurrent use: the router calls
// Verify from the session's goroutine.
type once struct{ used bool }

// take reports whether this is the first call.
func (o *once) take() bool {
	if o.used {
		return false
	}
	o.used = true
	return true
}
