package proxy

import (
	"errors"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/wamp"
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
	r *Relay
	o EntryOptions
}

var _ interface{ Attach(wamp.Peer) } = (*Entry)(nil)

// Entry returns an entry configured by o.
func (r *Relay) Entry(o EntryOptions) *Entry {
	if len(o.Auths) == 0 {
		o.Auths = []auth.Authenticator{auth.Anonymous("")}
	}
	switch {
	case o.Internal || o.JoinTimeout < 0:
		o.JoinTimeout = 0
	case o.JoinTimeout == 0:
		o.JoinTimeout = DefaultJoinTimeout
	}
	return &Entry{r: r, o: o}
}

// Attach runs the session of client p on the calling goroutine: its
// handshake, the backend login, then the relay until either side ends.
// It closes p before it returns.
func (e *Entry) Attach(p wamp.Peer) {
	l := &link{relay: e.r, entry: e, front: p}
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
	l.run()
}

// errQuiet ends a handshake without an ABORT: the client aborted, left or
// timed out (its ABORT is sent).
var errQuiet = errors.New("proxy: handshake ended by the client")

// clock is the join timeout of one wait for the client: past it, the
// client gets ABORT ErrJoinTimeoutURI and its connection closes.
type clock struct {
	mu    sync.Mutex
	t     *time.Timer
	fired bool
}

// start starts a wait of d (0: none) for what; stop ends it and reports
// whether it ran out.
func (c *clock) start(p wamp.Peer, d time.Duration, what string) {
	if d <= 0 {
		return
	}
	c.t = time.AfterFunc(d, func() {
		c.mu.Lock()
		c.fired = true
		c.mu.Unlock()
		sendAbort(p, wamp.Errorf(ErrJoinTimeoutURI, "no %s within %v", what, d))
		p.Close()
	})
}

func (c *clock) stop() (fired bool) {
	if c.t == nil {
		return false
	}
	c.t.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fired
}

// recv reads one handshake message of the client, within d.
func recv(p wamp.Peer, d time.Duration, what string) (wamp.Message, error) {
	var c clock
	c.start(p, d, what)
	m, err := p.Recv()
	if c.stop() {
		return nil, errQuiet
	}
	if err != nil {
		if errors.Is(err, wamp.ErrProtocol) {
			return nil, violation("%v", err)
		}
		return nil, errQuiet
	}
	m = wamp.Unwrap(m)
	switch m.(type) {
	case *wamp.Abort, *wamp.Goodbye:
		return nil, errQuiet
	case nil:
		return nil, violation("no message")
	}
	return m, nil
}

// violation is a protocol violation of the client's.
func violation(format string, a ...any) error {
	return wamp.Errorf(wamp.ErrProtocolViolation, format, a...)
}

// authenticate runs the client's side of the handshake up to WELCOME:
// HELLO, then the method the client and the entry agree on, with its
// CHALLENGE if it has one. The identity's Realm is set.
func (e *Entry) authenticate(p wamp.Peer) (*wamp.Hello, *auth.Identity, error) {
	m, err := recv(p, e.o.JoinTimeout, "HELLO")
	if err != nil {
		return nil, nil, err
	}
	h, ok := m.(*wamp.Hello)
	if !ok {
		return nil, nil, violation("first message must be HELLO, not %s", m.Type())
	}
	req, err := auth.HelloRequest(h, wamp.GlobalID(), p.Info())
	if err != nil {
		return nil, nil, violation("%v", err)
	}
	a := auth.Pick(e.o.Auths, req)
	if a == nil {
		return nil, nil, wamp.Errorf(wamp.ErrNoAuthMethod, "no authentication method among %v", req.AuthMethods)
	}
	id, err := e.identify(p, a, req)
	if err != nil {
		return nil, nil, err
	}
	if id.Realm == "" {
		id.Realm = h.Realm
	}
	return h, id, nil
}

// identify runs a's authentication of req: at once, or with a CHALLENGE
// and the client's AUTHENTICATE.
func (e *Entry) identify(p wamp.Peer, a auth.Authenticator, req *auth.Request) (*auth.Identity, error) {
	id, ch, err := a.Start(req)
	if err != nil || ch == nil {
		if err == nil && id == nil {
			err = wamp.Errorf(wamp.ErrAuthenticationFailed, "authentication gave no identity")
		}
		return id, err
	}
	if err := p.Send(ch.Message()); err != nil {
		return nil, errQuiet
	}
	m, err := recv(p, e.o.JoinTimeout, "AUTHENTICATE")
	if err != nil {
		return nil, err
	}
	am, ok := m.(*wamp.Authenticate)
	if !ok {
		return nil, violation("expected AUTHENTICATE, not %s", m.Type())
	}
	return ch.Verify(am)
}

// sendAbort sends err as ABORT: a *wamp.RequestError with its URI and
// message, anything else as authentication_failed.
func sendAbort(p wamp.Peer, err error) {
	var re *wamp.RequestError
	if !errors.As(err, &re) {
		re = wamp.Errorf(wamp.ErrAuthenticationFailed, "%v", err)
	}
	d := wamp.Dict{}
	if len(re.Args) > 0 {
		if msg, ok := re.Args[0].(string); ok {
			d[wamp.KeyMessage] = msg
		}
	}
	p.Send(&wamp.Abort{Details: d, Reason: re.URI})
}
