package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/wamp"
)

// Gate is a transport's entry into the router, with the authenticators that
// transport accepts. It satisfies the transports' Attacher interface.
type Gate struct {
	r    *Router
	opts GateOptions // Auths never empty
}

// GateOptions configures a Gate. The zero value is a gate for outside
// clients where every session is anonymous with role "anonymous", under
// DefaultJoinTimeout and the router's login throttle (throttle.go).
type GateOptions struct {
	// Auths are the authenticators, tried in the order of the client's
	// HELLO authmethods. None: every session is anonymous with role
	// "anonymous" and a random authid (auth.Anonymous).
	Auths []auth.Authenticator
	// Internal marks the gate of the node's own sessions (the bridge
	// services' embedded sessions, components running in the router):
	// the limits meant for outside clients (the join timeout, the login
	// throttle, ...) do not apply to them.
	Internal bool
	// JoinTimeout bounds the client's share of the handshake: HELLO must
	// come within it after attach, and AUTHENTICATE within it after each
	// CHALLENGE; otherwise the session is ended with ABORT
	// ErrJoinTimeoutURI. 0 means DefaultJoinTimeout; negative, none.
	// Internal gates have none.
	JoinTimeout time.Duration
	// OnJoin, if set, is called with each session's identity once it has
	// joined (Identity.Realm, Session and Peer set), from the session's
	// goroutine, holding no lock (a cookie store remembers who the
	// client's cookie authenticated).
	OnJoin func(auth.Identity)
	// OnLogout, if set, is called with the identity of a session that
	// leaves with GOODBYE wamp.close.logout, from its goroutine, holding
	// no lock (a cookie store forgets who the cookie authenticated).
	OnLogout func(auth.Identity)
}

// Gate and Router satisfy the transports' Attacher interface.
var (
	_ interface{ Attach(wamp.Peer) } = (*Gate)(nil)
	_ interface{ Attach(wamp.Peer) } = (*Router)(nil)
)

// Gate returns an entry that authenticates with auths, tried in the order of
// the client's HELLO authmethods. With none, every session is anonymous with
// role "anonymous".
func (r *Router) Gate(auths ...auth.Authenticator) *Gate {
	return r.NewGate(GateOptions{Auths: auths})
}

// NewGate returns an entry configured by o.
func (r *Router) NewGate(o GateOptions) *Gate {
	if len(o.Auths) == 0 {
		o.Auths = []auth.Authenticator{auth.Anonymous("")}
	}
	return &Gate{r: r, opts: o}
}

// Attach runs a session over p on the calling goroutine: handshake, then
// messages until GOODBYE, ABORT, an error or Router.Close. It closes p and
// cleans the session up before it returns.
func (g *Gate) Attach(p wamp.Peer) {
	s := newSession(g, p)
	if !g.r.track(s) {
		s.abort(wamp.ErrSystemShutdown, "router is shutting down")
		return
	}
	defer g.r.untrack(s)
	defer p.Close()
	rm := s.handshake()
	if rm == nil {
		return
	}
	defer rm.leave(s)
	s.serve()
	s.logSession("session left")
}

// JoinTimeout is the gate's join timeout, 0 for none.
func (g *Gate) JoinTimeout() time.Duration {
	switch d := g.opts.JoinTimeout; {
	case g.opts.Internal || d < 0:
		return 0
	case d == 0:
		return DefaultJoinTimeout
	default:
		return d
	}
}

// pick returns the authenticator for the first of req's methods the gate
// has and that applies to req (see auth.Applies).
func (g *Gate) pick(req *auth.Request) auth.Authenticator {
	for _, m := range req.AuthMethods {
		for _, a := range g.opts.Auths {
			if a.Method() == m && auth.Applies(a, req) {
				return a
			}
		}
	}
	return nil
}
