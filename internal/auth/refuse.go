package auth

import "github.com/junction-wamp/junction/internal/wamp"

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
	return wamp.Errorf(wamp.ErrNoSuchPrincipal, "%s: no authid given", method)
}

// noPrincipal refuses a HELLO whose authid is not a configured principal.
func noPrincipal(method, authid string) *wamp.RequestError {
	return wamp.Errorf(wamp.ErrNoSuchPrincipal, "%s: no principal with authid %q exists", method, authid)
}

// failed refuses an authentication whose credentials do not check out.
func failed(method, format string, a ...any) *wamp.RequestError {
	return wamp.Errorf(wamp.ErrAuthenticationFailed, method+": "+format, a...)
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
