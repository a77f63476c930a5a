// Package auth authenticates WAMP sessions (anonymous, ticket, wampcra,
// cryptosign, scram and tls against static principals, or by asking a
// dynamic authenticator; cookie by a CookieStore's tracking cookies) and
// authorizes their actions (static role permissions
// compiled into a uriindex, or a dynamic authorizer's answers).
package auth

import (
	"errors"

	"github.com/junction-wamp/junction/wamp"
)

// Request is what an authenticator sees of a session's HELLO.
type Request struct {
	Realm       wamp.URI
	Session     wamp.ID  // the ID the session will have (wampcra puts it in its challenge)
	AuthID      string   // HELLO.Details.authid, "" when not sent
	AuthMethods []string // HELLO.Details.authmethods, in the client's order
	Details     wamp.Dict
	Peer        wamp.PeerInfo
}

// Identity is who a session is, once authenticated.
type Identity struct {
	AuthID       string
	AuthRole     string
	AuthMethod   string
	AuthProvider string    // "static" for config principals, "dynamic" for a dynamic authenticator's
	AuthExtra    wamp.Dict // sent to the client in WELCOME.Details.authextra

	// Realm, when not "", is the realm the session joins instead of the
	// one its HELLO names: a dynamic authenticator's redirection. The
	// router sets it to the realm joined.
	Realm wamp.URI
	// Session and Peer are set by the router when the session joins
	// (authenticators leave them zero): what a dynamic authorizer is told
	// of the session besides the fields above.
	Session wamp.ID
	Peer    wamp.PeerInfo
}

// Authenticator implements one authentication method.
type Authenticator interface {
	// Method is the WAMP authmethod: "anonymous", "ticket", "wampcra",
	// "cryptosign", "scram", "tls" or "cookie".
	Method() string

	// Start begins authenticating req. It returns an Identity when no
	// challenge is needed (anonymous), or a Challenge to send the client.
	// A refusal is a *wamp.RequestError (wamp.error.authentication_denied)
	// that the router sends in ABORT. An authid that names no principal
	// gets a decoy Challenge, not a refusal, so that it cannot be told
	// from a real principal with a wrong secret.
	//
	// A dynamic authenticator (see IsDynamic) may block in Start or
	// Verify while it asks, never longer than its timeout; the router
	// calls both from the session's goroutine, holding no lock.
	Start(req *Request) (*Identity, Challenge, error)
}

// ErrUnavailable marks the errors of a dynamic authenticator or
// authorizer that could not be asked (none registered, no answer in time,
// the session that calls it down), as opposed to its refusals. The router
// does not count such a login as a failed one (see its login throttle).
var ErrUnavailable = errors.New("auth: dynamic authenticator unavailable")

// Challenge is an authentication in progress.
type Challenge interface {
	// Message is the CHALLENGE to send.
	Message() *wamp.Challenge
	// Verify checks the client's AUTHENTICATE and completes the
	// authentication, or returns a *wamp.RequestError.
	Verify(a *wamp.Authenticate) (*Identity, error)
}

// Action is what a session asks permission for.
type Action string

// Actions checked by the router.
const (
	ActionCall      Action = "call"
	ActionRegister  Action = "register"
	ActionPublish   Action = "publish"
	ActionSubscribe Action = "subscribe"
)

// Permission is the answer to an authorization request.
type Permission struct {
	Allow bool
	// Disclose: the router discloses the caller (for call) or the
	// publisher (for publish) to the receivers, whatever the session asked.
	Disclose bool
	// Cache: the router may keep this answer for the same action on the
	// same URI by the same session, for the rest of that session (a
	// dynamic authorizer's "cache": true). Never shared between sessions.
	Cache bool
}

// Authorizer decides whether a session of a realm may perform an action on a
// URI. The router asks on every call, register, publish and subscribe, from
// the session's goroutine, holding no lock; options are the request's
// options (SUBSCRIBE's match, CALL's disclose_me, ...), not to be
// modified. An error means the authorizer could not decide (a dynamic
// authorizer that failed or did not answer in time): the action is
// refused. Implementations must be safe for concurrent use; the static
// ones answer in nanoseconds, a dynamic one blocks its session (only that
// one) until it has an answer or its timeout passes.
type Authorizer interface {
	Authorize(id *Identity, action Action, uri wamp.URI, options wamp.Dict) (Permission, error)
}

// AllowAll is an Authorizer that allows everything and discloses nothing.
type AllowAll struct{}

// Authorize allows every action.
func (AllowAll) Authorize(*Identity, Action, wamp.URI, wamp.Dict) (Permission, error) {
	return Permission{Allow: true}, nil
}
