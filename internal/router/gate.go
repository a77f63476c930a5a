package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/wamp"
)

// Gate is a transport's entry into the router, with the authenticators that
// transport accepts. It satisfies the transports' Attacher interface.
type Gate struct {
	r    *Router
	opts GateOptions // opts.Auths: the first ones; see auths
	// auths are the authenticators now (never empty): opts.Auths until
	// SetAuths replaces them.
	auths loginguard.Auths
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
	// ActsFor marks the gate of the node's own sessions that act for
	// others (the HTTP bridge's, whose requests authenticate with
	// options.auth): a CALL, PUBLISH or SUBSCRIBE of theirs may carry a
	// wamp.Identity, which the router then authorizes and discloses
	// instead of the session's own (a message of any other session that
	// carries one is refused). Their EVENTs carry the publication's
	// wamp.Audience, which the router does not apply to them: they apply
	// it to each identity they serve, their own included. Implies
	// Internal.
	ActsFor bool
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
	o.Internal = o.Internal || o.ActsFor
	g := &Gate{r: r, opts: o}
	g.auths.Set(o.Auths)
	return g
}

// SetAuths replaces the gate's authenticators (none: anonymous, as
// NewGate); the handshakes that pick one from now on use them, sessions
// already joined stay. CloseSessions ends those the change disowns.
func (g *Gate) SetAuths(auths []auth.Authenticator) { g.auths.Set(auths) }

// CloseSessions ends with GOODBYE reason every joined session that came
// through g and whose identity stale reports true, and returns how many.
// stale is called with no lock held. The sessions close in the
// background, as with Router.Shutdown.
func (g *Gate) CloseSessions(stale func(auth.Identity) bool, reason wamp.URI) int {
	g.r.mu.Lock()
	var mine []*session
	for s := range g.r.sessions {
		if s.gate == g && s.joined.Load() {
			mine = append(mine, s)
		}
	}
	g.r.mu.Unlock()
	n := 0
	for _, s := range mine {
		if stale(s.ident) {
			s.shutdown(reason)
			n++
		}
	}
	return n
}

// Attach runs a session over p on the calling goroutine: handshake, then
// messages until GOODBYE, ABORT, an error or Router.Close. It closes p and
// cleans the session up before it returns, except when p is a
// wamp.Parker that parked: Attach then returns at once, the session goes
// on on the goroutines that resume it, and the one that ends it cleans up
// and calls p.Ended.
func (g *Gate) Attach(p wamp.Peer) {
	s := newSession(g, p)
	if !g.r.track(s) {
		s.abort(wamp.ErrSystemShutdown, "router is shutting down")
		return
	}
	rm := s.handshakeAside()
	if rm == nil {
		p.Close()
		g.r.untrack(s)
		return
	}
	if s.parkJoined() || s.serve(rm) {
		return // parked
	}
	s.finish(rm)
}

// parkJoined parks a session that has just joined, when its peer is a
// wamp.Parker and its client sent nothing more yet, rather than waiting
// for the next message with a goroutine and a read buffer for a while as
// serve does: a storm of joins then never holds thousands of goroutines
// at once, whose descriptors the runtime keeps for good. It reports
// whether the session parked (resume serves it once a message arrives).
func (s *session) parkJoined() bool {
	pk, ok := s.peer.(wamp.Parker)
	return ok && !pk.Buffered() && s.park(pk)
}

// finish cleans up after the session's last message: it leaves its realm,
// closes its peer and is no longer tracked.
func (s *session) finish(rm *realm) {
	rm.leave(s)
	s.logSession("session left")
	s.peer.Close()
	s.router.untrack(s)
}

// handshakeAside runs s.handshake on a goroutine of its own and waits for
// it. Authentication goes deep (a dynamic authenticator, the login
// throttle, challenges): run on the calling goroutine, it grew that
// goroutine's stack to 8 KiB, which the runtime never shrinks back while
// the idle session's read keeps more than a quarter of it in use. An idle
// session then held 4 KiB more than it needs (41.5 -> 82.6 MB of stacks
// for 10,000 sessions in BenchmarkIdleSessions). Aside, the deep stack
// goes back to the runtime when the handshake ends.
func (s *session) handshakeAside() *realm {
	done := make(chan *realm, 1)
	go func() { done <- s.handshake() }()
	return <-done
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
// has and that applies to req (see auth.Pick), and the authenticators it
// was picked from (SetAuths may replace them meanwhile).
func (g *Gate) pick(req *auth.Request) (auth.Authenticator, *[]auth.Authenticator) {
	return g.auths.Pick(req)
}
