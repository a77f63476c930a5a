package proxy

import (
	"errors"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/wamp"
)

// EntryOptions configure an Entry, as a router's gate options do.
type EntryOptions struct {
	// Auths are the authenticators, tried in the order of the client's
	// HELLO authmethods. None: anonymous with role "anonymous".
	Auths []auth.Authenticator
	// Internal marks the entry of the node's own sessions (bridge
	// services, dynamic authenticators' callers): no join timeout, and a
	// role without a route of its own takes the realm's first route.
	Internal bool
	// JoinTimeout bounds the client's HELLO, and each AUTHENTICATE after
	// a CHALLENGE; ABORT ErrJoinTimeoutURI past it. 0 means
	// DefaultJoinTimeout; negative, none.
	JoinTimeout time.Duration
	// OnJoin, if set, is called with the identity of each session once
	// it is welcome (Realm, Session and Peer set).
	OnJoin func(auth.Identity)
	// OnLogout, if set, is called with the identity of a session whose
	// client leaves with GOODBYE wamp.close.logout.
	OnLogout func(auth.Identity)
}

// DefaultJoinTimeout is EntryOptions.JoinTimeout's default, the router's.
const DefaultJoinTimeout = 10 * time.Second

// ErrJoinTimeoutURI is the ABORT reason of a client that did not send
// HELLO or AUTHENTICATE in time, the router's.
const ErrJoinTimeoutURI wamp.URI = "junction.error.join_timeout"

// Entry is a transport's entry into the relay: it satisfies the
// transports' Attacher interface.
type Entry struct {
	r     *Relay
	o     EntryOptions
	auths loginguard.Auths // o.Auths, or SetAuths'
}

var _ interface{ Attach(wamp.Peer) } = (*Entry)(nil)

// Entry returns an entry configured by o.
func (r *Relay) Entry(o EntryOptions) *Entry {
	switch {
	case o.Internal || o.JoinTimeout < 0:
		o.JoinTimeout = 0
	case o.JoinTimeout == 0:
		o.JoinTimeout = DefaultJoinTimeout
	}
	e := &Entry{r: r, o: o}
	e.auths.Set(o.Auths)
	return e
}

// SetAuths replaces the entry's authenticators (a reload), for the
// clients that join from now on; none means anonymous, as in
// EntryOptions.
func (e *Entry) SetAuths(auths []auth.Authenticator) { e.auths.Set(auths) }

// CloseSessions ends with GOODBYE reason (to the client and its backend
// session) every relayed session that joined through e and whose
// identity stale reports true, and returns how many. stale is called with
// no lock held. The sessions close in the background, as at Shutdown.
func (e *Entry) CloseSessions(stale func(auth.Identity) bool, reason wamp.URI) int {
	e.r.mu.Lock()
	mine := e.r.liveWhere(func(l *link) bool { return l.entry == e })
	e.r.mu.Unlock()
	n := 0
	for _, l := range mine {
		if stale(l.identity()) && l.claim() {
			go l.close(reason, "the proxy's configuration changed")
			n++
		}
	}
	return n
}

// Attach runs the session of client p on the calling goroutine: its
// handshake, the backend login, then the relay until either side ends.
// It closes p before it returns.
func (e *Entry) Attach(p wamp.Peer) {
	l := &link{relay: e.r, entry: e, front: p, welcomed: make(chan struct{})}
	if !e.r.track(l) {
		sendAbort(p, wamp.Errorf(wamp.ErrSystemShutdown, "the proxy is shutting down"))
		p.Close()
		return
	}
	defer e.r.untrack(l)
	defer p.Close()
	if !l.join() {
		return
	}
	defer e.r.counts.left(l.label)
	l.run()
}

// errQuiet ends a handshake without an ABORT: the client aborted, left or
// timed out (its ABORT is sent).
var errQuiet = loginguard.ErrQuiet

// expire ends the client's connection with ABORT ErrJoinTimeoutURI once
// the entry's join timeout passes (never, without one): the wait for
// what. Stop it when the message has come; Stop reports false if it ran.
func (e *Entry) expire(p wamp.Peer, what string) *loginguard.Timer {
	d := e.o.JoinTimeout
	if d <= 0 {
		return nil
	}
	return loginguard.AfterFunc(d, func() {
		sendAbort(p, wamp.Errorf(ErrJoinTimeoutURI, "no %s within %v", what, d))
		p.Close()
	})
}

// recv reads the client's HELLO, within the join timeout.
func (e *Entry) recv(p wamp.Peer) (wamp.Message, error) {
	expiry := e.expire(p, "HELLO")
	m, err := loginguard.Recv(p)
	if !expiry.Stop() {
		return nil, errQuiet
	}
	return m, handshakeError(err)
}

// handshakeError is err of loginguard.Recv as the proxy answers it: a
// protocol violation as a wamp.error.protocol_violation refusal.
func handshakeError(err error) error {
	var pe *loginguard.ProtocolError
	if errors.As(err, &pe) {
		return violation("%s", pe.Msg)
	}
	return err
}

// violation is a protocol violation of the client's.
func violation(format string, a ...any) error {
	return wamp.Errorf(wamp.ErrProtocolViolation, format, a...)
}

// attempt is what the client's side of the handshake tells of the
// client, for the refusal's log line and counters.
type attempt struct {
	hello  *wamp.Hello // nil until one came
	method string      // the authentication method picked; "" for none
}

// authenticate runs the client's side of the handshake up to WELCOME:
// HELLO, then the method the client and the entry agree on, with its
// CHALLENGE if it has one, as a login attempt that the relay's login
// throttle admits and counts (loginguard.Identify). The identity's Realm
// is set; at records what the client asked for.
func (e *Entry) authenticate(p wamp.Peer, at *attempt) (*auth.Identity, error) {
	m, err := e.recv(p)
	if err != nil {
		return nil, err
	}
	h, ok := m.(*wamp.Hello)
	if !ok {
		return nil, violation("first message must be HELLO, not %s", m.Type())
	}
	at.hello = h
	req, err := auth.HelloRequest(h, wamp.GlobalID(), p.Info())
	if err != nil {
		return nil, violation("%v", err)
	}
	a, _ := e.auths.Pick(req)
	if a == nil {
		return nil, wamp.Errorf(wamp.ErrNoAuthMethod, "no authentication method among %v", req.AuthMethods)
	}
	at.method = a.Method()
	id, err := e.r.logins.Identify(e.loginKey(req), a, req, func(ch auth.Challenge, wait time.Duration) (*auth.Identity, bool, error) {
		return e.challenge(p, ch, wait)
	})
	if err == nil && id == nil {
		err = wamp.Errorf(wamp.ErrAuthenticationFailed, "authentication gave no identity")
	}
	if err != nil {
		return nil, err
	}
	if id.Realm == "" {
		id.Realm = h.Realm
	}
	return id, nil
}

// loginKey is whom req is counted against by the login throttle: nothing
// for the node's own sessions (an Internal entry) and for in-process
// peers (no address); no address for a Unix socket.
func (e *Entry) loginKey(req *auth.Request) loginguard.Key {
	if e.o.Internal {
		return loginguard.Key{}
	}
	return loginguard.KeyOf(req.Peer.RemoteAddr, req.AuthID)
}

// challenge sends the CHALLENGE after wait (the login throttle's delay:
// meanwhile the client's answer is already awaited, so that a client that
// leaves ends the wait) and verifies the client's AUTHENTICATE, which the
// join timeout bounds from the CHALLENGE on. asked reports whether the
// CHALLENGE was sent: an answer before it is a protocol violation.
func (e *Entry) challenge(p wamp.Peer, ch auth.Challenge, wait time.Duration) (id *auth.Identity, asked bool, err error) {
	var expiry *loginguard.Timer // written by send, read once held is stopped
	send := func() {
		p.Send(ch.Message())
		expiry = e.expire(p, "AUTHENTICATE")
	}
	var held *loginguard.Timer
	if wait > 0 {
		held = loginguard.AfterFunc(wait, send)
	} else {
		send()
	}
	m, err := loginguard.Recv(p)
	asked = held == nil || !held.Stop() // sent unless stopped in time
	if !expiry.Stop() {
		return nil, asked, errQuiet
	}
	if err != nil {
		return nil, asked, handshakeError(err)
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

// sendAbort sends err as ABORT (see refusal).
func sendAbort(p wamp.Peer, err error) {
	re := refusal(err)
	d := wamp.Dict{}
	if msg := message(re); msg != "" {
		d[wamp.KeyMessage] = msg
	}
	p.Send(&wamp.Abort{Details: d, Reason: re.URI})
}

// refusal is the ABORT that err gives: a *wamp.RequestError with its URI
// and message, anything else authentication_failed.
func refusal(err error) *wamp.RequestError {
	var re *wamp.RequestError
	if !errors.As(err, &re) {
		re = wamp.Errorf(wamp.ErrAuthenticationFailed, "%v", err)
	}
	return re
}

// message is the ABORT message of re: its first argument.
func message(re *wamp.RequestError) string {
	if len(re.Args) == 0 {
		return ""
	}
	msg, _ := re.Args[0].(string)
	return msg
}
