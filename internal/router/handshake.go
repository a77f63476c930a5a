package router

import (
	"cmp"
	"errors"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// errQuiet ends a handshake without an ABORT: the client aborted or left.
var errQuiet = loginguard.ErrQuiet

// handshake runs HELLO, authentication and WELCOME. It returns the realm
// the session joined, or nil when the session is over (ABORT was sent).
func (s *session) handshake() *realm {
	clock := newJoinClock(s)
	clock.start("HELLO")
	m, err := s.recv()
	if !clock.stop() {
		return nil
	}
	if err != nil {
		s.abortWith(err)
		return nil
	}
	hello, ok := m.(*wamp.Hello)
	if !ok {
		s.abort(wamp.ErrProtocolViolation, "first message must be HELLO, not %s", m.Type())
		return nil
	}
	rm, id, authsFrom, err := s.authenticate(hello, clock)
	if err == nil && !rm.hasRole(id.AuthRole) {
		err = wamp.Errorf(wamp.ErrNoSuchRole, "role %q does not exist on realm %q", id.AuthRole, rm.name)
	}
	if err != nil {
		s.refused(hello, rm, err)
		s.logRefused(hello, err)
		s.abortWith(err)
		return nil
	}
	s.realm, s.ident, s.joinedAt = rm, *id, time.Now().UnixNano()
	s.ident.Realm, s.ident.Session, s.ident.Peer = rm.name, s.id, s.peer.Info()
	s.canCancel = roleFeature(hello.Details, "callee", "call_canceling")
	s.revokeRegs = roleFeature(hello.Details, "callee", "registration_revocation")
	s.revokeSubs = roleFeature(hello.Details, "subscriber", "subscription_revocation")
	s.ppt = announcedPPT(hello.Details)
	if err := rm.join(s); err != nil {
		s.abortWith(err)
		return nil
	}
	s.joined.Store(true)
	// SetAuths ran during the handshake if the gate's authenticators are
	// no longer those s picked from: its CloseSessions may have missed s,
	// which was not joined yet, so s goes once welcomed (it reconnects
	// under the new authenticators). Read right after joined is set: a
	// SetAuths after this read is followed by a CloseSessions that sees s
	// and closes it only if its principal is stale.
	missed := authsFrom != nil && s.gate.auths.Current() != authsFrom
	rm.joins.note(s.ident.AuthMethod)
	if err := s.send(&wamp.Welcome{Session: s.id, Details: s.welcomeDetails()}); unsent.Refused(err) {
		// Its authextra, most likely (a dynamic authenticator's), too
		// long or holding a value that does not encode: the
		// client would wait for a WELCOME that never comes. The session
		// ends once it has joined, as any other that leaves.
		s.kill(abortMsg(unsent.Of(err).URI(), "%s", unsent.Text(err, "client")))
	}
	s.logSession("session joined")
	rm.hooks.SessionJoined(s.info())
	if rm.meta {
		s.startStats(rm)
	}
	if missed {
		s.shutdown(wamp.ErrConfigChanged)
		return rm
	}
	if s.gate.opts.OnJoin != nil {
		s.gate.opts.OnJoin(s.ident)
	}
	return rm
}

// recv reads one handshake message (loginguard.Recv): ABORT or GOODBYE
// from the client give errQuiet, a frame that is no message a
// protocolError.
func (s *session) recv() (wamp.Message, error) {
	m, err := loginguard.Recv(s.peer)
	if m != nil {
		s.received(m.Type())
	}
	var pe *loginguard.ProtocolError
	if errors.As(err, &pe) {
		return nil, violation("%s", pe.Msg)
	}
	if err != nil {
		return nil, errQuiet
	}
	return m, nil
}

// abortWith ends the handshake for err: a *wamp.RequestError gives ABORT
// with its URI and message, a protocolError protocol_violation, errQuiet
// nothing, and any other error authentication_failed.
func (s *session) abortWith(err error) {
	var re *wamp.RequestError
	var pe *protocolError
	switch {
	case errors.Is(err, errQuiet):
		s.killed.Store(true)
	case errors.As(err, &pe):
		s.abort(wamp.ErrProtocolViolation, "%s", pe.msg)
	case errors.As(err, &re):
		s.kill(&wamp.Abort{Details: abortDetails(re), Reason: re.URI})
	default:
		s.abort(wamp.ErrAuthenticationFailed, "%v", err)
	}
}

// abortDetails carries a RequestError's first argument as the message.
func abortDetails(e *wamp.RequestError) wamp.Dict {
	d := wamp.Dict{}
	for k, v := range e.Details {
		d[k] = v
	}
	if len(e.Args) > 0 {
		if msg, ok := e.Args[0].(string); ok {
			d[wamp.KeyMessage] = msg
		}
	}
	return d
}

// authenticate runs the authentication method the client and the gate
// agree on, with a challenge if the method needs one, and finds the realm
// the session joins: the HELLO's, or the one the authenticator assigned
// (a HELLO may then name a realm that does not exist: auth.AssignsRealm),
// and the gate's authenticators it picked from (nil before it picked).
func (s *session) authenticate(h *wamp.Hello, clock *joinClock) (rm *realm, id *auth.Identity, auths *[]auth.Authenticator, err error) {
	rm = s.router.realm(h.Realm)
	req, err := s.authRequest(h)
	if err != nil {
		return nil, nil, nil, err
	}
	a, auths := s.gate.pick(req)
	s.authMethodTried(a)
	if rm == nil && (a == nil || !auth.AssignsRealm(a)) {
		return nil, nil, auths, wamp.Errorf(wamp.ErrNoSuchRealm, "no realm %q", h.Realm)
	}
	if a == nil {
		return nil, nil, auths, wamp.Errorf(wamp.ErrNoAuthMethod, "no authentication method among %v", req.AuthMethods)
	}
	id, err = s.identify(a, req, clock)
	if err != nil {
		return nil, nil, auths, err
	}
	if id == nil {
		return nil, nil, auths, wamp.Errorf(wamp.ErrAuthenticationFailed, "authentication gave no identity")
	}
	if id.Realm != "" && id.Realm != h.Realm {
		rm = s.router.realm(id.Realm)
	}
	if rm == nil {
		return nil, nil, auths, wamp.Errorf(wamp.ErrNoSuchRealm, "no realm %q exists on this router", cmp.Or(id.Realm, h.Realm))
	}
	return rm, id, auths, nil
}

// identify runs a's authentication of req, a login attempt that the
// router's login throttle admits and counts (loginguard.Identify).
func (s *session) identify(a auth.Authenticator, req *auth.Request, clock *joinClock) (*auth.Identity, error) {
	return s.router.logins.Identify(s.loginKeyOf(req), a, req, func(ch auth.Challenge, wait time.Duration) (*auth.Identity, bool, error) {
		return s.challenge(ch, clock, wait)
	})
}

// loginKeyOf is whom req is counted against: nothing for the node's own
// sessions (an Internal gate) and for in-process peers (no address); no
// address for a Unix socket.
func (s *session) loginKeyOf(req *auth.Request) loginguard.Key {
	if s.gate.opts.Internal {
		return loginguard.Key{}
	}
	return loginguard.KeyOf(req.Peer.RemoteAddr, req.AuthID)
}

// challenge sends CHALLENGE, after wait, and verifies the client's
// AUTHENTICATE, which clock bounds from the CHALLENGE on. asked reports
// whether the CHALLENGE was sent.
func (s *session) challenge(ch auth.Challenge, clock *joinClock, wait time.Duration) (id *auth.Identity, asked bool, err error) {
	held := s.sendAfter(ch.Message(), wait, func() { clock.start("AUTHENTICATE") })
	m, err := s.recv()
	asked = held == nil || !held.Stop() // sent unless stopped in time
	if !clock.stop() {
		return nil, asked, errQuiet
	}
	if err != nil {
		return nil, asked, err
	}
	if !asked {
		return nil, false, violation("%s before CHALLENGE", m.Type())
	}
	a, ok := m.(*wamp.Authenticate)
	if !ok {
		return nil, true, violation("expected AUTHENTICATE, not %s", m.Type())
	}
	id, err = ch.Verify(a)
	return id, true, err
}

// refused counts a join refused after HELLO for err, by authmethod, on
// the realm the HELLO named (or the one the authenticator assigned), or
// as OtherLabel when the router has no such realm. A client that left
// (errQuiet) was not refused.
func (s *session) refused(h *wamp.Hello, rm *realm, err error) {
	if errors.Is(err, errQuiet) {
		return
	}
	method := s.ident.AuthMethod // the method tried, else the first offered
	if ms, _ := h.Details[wamp.KeyAuthMethods].([]any); method == "" && len(ms) > 0 {
		method, _ = ms[0].(string)
	}
	if rm == nil {
		rm = s.router.realm(h.Realm)
	}
	if rm == nil {
		s.router.otherAuthFailures.note(method)
		return
	}
	rm.authFailures.note(method)
}

// authRequest reads the authentication part of HELLO.Details.
func (s *session) authRequest(h *wamp.Hello) (*auth.Request, error) {
	req, err := auth.HelloRequest(h, s.id, s.peer.Info())
	if err != nil {
		return nil, violation("%v", err)
	}
	return req, nil
}

// roleFeature reports whether HELLO details announce role with feature
// set to true (details.roles.<role>.features.<feature>).
func roleFeature(details wamp.Dict, role, feature string) bool {
	roles, _ := details[wamp.KeyRoles].(map[string]any)
	r, _ := roles[role].(map[string]any)
	features, _ := r[wamp.KeyFeatures].(map[string]any)
	on, _ := features[feature].(bool)
	return on
}
