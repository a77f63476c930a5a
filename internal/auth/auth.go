// Package auth authenticates WAMP sessions (anonymous, ticket, wampcra,
// cryptosign against static principals) and authorizes their actions
// (static role permissions compiled into a uriindex).
package auth

import "github.com/junction-wamp/junction/internal/wamp"

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
	AuthProvider string    // "static" for config principals
	AuthExtra    wamp.Dict // sent to the client in WELCOME.Details.authextra
}

// Authenticator implements one authentication method.
type Authenticator interface {
	// Method is the WAMP authmethod: "anonymous", "ticket", "wampcra" or
	// "cryptosign".
	Method() string

	// Start begins authenticating req. It returns an Identity when no
	// challenge is needed (anonymous), or a Challenge to send the client.
	// A refusal is a *wamp.RequestError (wamp.error.authentication_denied)
	// that the router sends in ABORT. An authid that names no principal
	// gets a decoy Challenge, not a refusal, so that it cannot be told
	// from a real principal with a wrong secret.
	Start(req *Request) (*Identity, Challenge, error)
}

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
}

// Authorizer decides whether a session of a realm may perform an action on a
// URI. Implementations must be safe for concurrent use and fast: the router
// asks on every call, register, publish and subscribe.
type Authorizer interface {
	Authorize(id *Identity, action Action, uri wamp.URI) Permission
}

// AllowAll is an Authorizer that allows everything and discloses nothing.
type AllowAll struct{}

// Authorize allows every action.
func (AllowAll) Authorize(*Identity, Action, wamp.URI) Permission { return Permission{Allow: true} }
