package proxy

import (
	"cmp"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// link is one relayed session: the client's peer (front) and the
// backend session opened for it (back).
type link struct {
	relay *Relay
	entry *Entry
	front wamp.Peer
	label wamp.URI // id.Realm as counted (realmLabel), set once joined

	// id, key and backend are the client's identity, and the route and
	// backend the session took, set with back (under Relay.mu and mu).
	id      auth.Identity
	key     routeKey
	backend *Backend

	// welcomed is closed once the client has its WELCOME, which a
	// GOODBYE of the relay's must follow (close waits for it).
	welcomed chan struct{}
	// interruptible: the client announced the callee feature
	// call_canceling, so that the relay may send it INTERRUPT. Set by
	// join, before run.
	interruptible bool

	mu      sync.Mutex
	back    wamp.Peer // nil until the backend login succeeds
	closing atomic.Bool
	claimed atomic.Bool // picked to close by a reload (claim)
	bye     sync.Once   // the one GOODBYE the relay itself sends the client
}

// join runs the handshake: the client's authentication, the backend
// login as the client, then WELCOME to the client with the backend
// session's ID and details. It reports whether the session joined; if
// not, the client got ABORT (unless it left first).
func (l *link) join() bool {
	var at attempt
	id, err := l.entry.authenticate(l.front, &at)
	var b *Backend
	var k routeKey
	if err == nil {
		b, k, err = l.relay.pick(id.Realm, id.AuthRole, l.entry.o.Internal)
	}
	var back wamp.Peer
	var w *wamp.Welcome
	if err == nil {
		back, w, err = l.relay.login(b, at.hello, id)
	}
	if err != nil {
		if !errors.Is(err, errQuiet) {
			l.refused(&at, id, err)
			sendAbort(l.front, err)
		}
		return false
	}
	joined := *id
	joined.Session, joined.Peer = w.Session, l.front.Info()
	if err := l.setBack(k, b, back, joined); err != nil {
		back.Close()
		if !errors.Is(err, errQuiet) {
			sendAbort(l.front, err)
		}
		return false
	}
	l.label = l.relay.realmLabel(id.Realm)
	l.interruptible = cancels(at.hello.Details)
	l.relay.counts.joined(l.label, id.AuthMethod)
	err = l.front.Send(&wamp.Welcome{Session: w.Session, Details: welcomeDetails(w.Details, id)})
	close(l.welcomed)
	if unsent.Refused(err) {
		l.welcomeRefused(err)
		return false
	}
	l.relay.log.Debug("session joined", "realm", string(id.Realm), "authid", id.AuthID, "authrole", id.AuthRole,
		"authmethod", id.AuthMethod, "peer", l.front.Info().RemoteAddr, "backend", b.Name, "session", w.Session)
	if l.entry.o.OnJoin != nil {
		l.entry.o.OnJoin(l.id)
	}
	return true
}

// welcomeRefused ends the session whose WELCOME the client's peer refused
// with err (the backend's details, its authextra most likely, too long
// for the client or not encodable), as the router does: the client gets
// ABORT with the refusal's URI rather than wait for a WELCOME that never
// comes, and the backend session ends with its connection. Counted and
// logged as the other messages refused (toClient); the session, counted
// joined, leaves.
func (l *link) welcomeRefused(err error) {
	l.relay.byClient.Note(string(l.id.Realm), uint64(l.id.Session), wamp.TypeWelcome, err)
	l.bye.Do(func() { sendAbort(l.front, wamp.Errorf(unsent.Of(err).URI(), "%s", unsent.Text(err, "client"))) })
	l.back.Close()
	l.relay.counts.left(l.label)
}

// refused counts and logs the refusal of a join for err, as the router
// does: counted (by realm and authmethod) once a HELLO came, logged at
// warn ("join refused", rate-limited per client address) unless the
// client broke the protocol, which is logged at debug. id is the
// identity the client authenticated as, if it got that far.
func (l *link) refused(at *attempt, id *auth.Identity, err error) {
	re := refusal(err)
	remote := l.front.Info().RemoteAddr
	if re.URI == wamp.ErrProtocolViolation {
		l.relay.log.Debug("protocol violation", "peer", remote, "what", message(re))
	}
	h := at.hello
	if h == nil {
		return // no HELLO: a protocol violation
	}
	realm := h.Realm
	if id != nil && id.Realm != "" {
		realm = id.Realm
	}
	// Not the client's own words for a method: an unbounded label.
	l.relay.counts.refused(l.relay.realmLabel(realm), cmp.Or(at.method, OtherMethod))
	if re.URI == wamp.ErrProtocolViolation {
		return
	}
	authid, _ := h.Details[wamp.KeyAuthID].(string)
	methods, _ := h.Details[wamp.KeyAuthMethods].([]any)
	loginguard.LogRefused(l.relay.log, l.relay.refusedLog, loginguard.Refusal{Peer: remote, Realm: string(h.Realm),
		AuthID: authid, AuthMethod: at.method, AuthMethods: methods, URI: re.URI, Reason: message(re)})
}

// setBack records the backend peer p of backend b, which route k gave,
// and the client's identity id.
// It fails quietly when the link is shutting down (its client was told),
// and with junction.close.config_changed when the routes changed during
// the login so that k no longer goes to b (SetRoutes did not see the
// link, joining).
func (l *link) setBack(k routeKey, b *Backend, p wamp.Peer, id auth.Identity) error {
	l.relay.mu.Lock()
	defer l.relay.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing.Load() {
		return errQuiet
	}
	if !l.relay.serves(k, b) {
		return wamp.Errorf(wamp.ErrConfigChanged, "the proxy's routes changed")
	}
	l.key, l.backend, l.back, l.id = k, b, p, id
	return nil
}

// claim reports whether the caller is the first of a reload's closes
// (SetRoutes, CloseSessions) to pick the link, which then closes it.
func (l *link) claim() bool { return !l.claimed.Swap(true) }

// identity is the client's identity, once joined.
func (l *link) identity() auth.Identity {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

// joined reports whether the backend login is done (setBack) and the
// relay is not closing the session.
func (l *link) joined() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.back != nil && !l.closing.Load() && !l.claimed.Load()
}

// welcomeDetails are the backend's WELCOME details with the method and
// provider the client authenticated with (the backend saw the proxy's).
func welcomeDetails(backend wamp.Dict, id *auth.Identity) wamp.Dict {
	d := make(wamp.Dict, len(backend)+2)
	for k, v := range backend {
		d[k] = v
	}
	d[wamp.KeyAuthMethod] = id.AuthMethod
	d[wamp.KeyAuthProvider] = id.AuthProvider
	return d
}

// run relays both ways until either side ends, then closes both. A
// backend gone without GOODBYE ends the client's session with GOODBYE;
// a client gone ends the backend session with its connection. A message
// that the receiving peer refuses (too long, or not encodable) is
// answered for, most often without ending anything: the backend's
// (toClient), the client's (toBackend).
func (l *link) run() {
	var wg sync.WaitGroup
	wg.Go(func() {
		if !l.pump(l.back, l.front, &toClient{l: l}) {
			l.end(wamp.ErrCloseNormal, "the backend router's connection was lost")
		}
		l.front.Close()
	})
	l.pump(l.front, l.back, toBackend{l})
	l.back.Close()
	wg.Wait()
}

// direction is what a pump does besides relaying, for one way.
type direction interface {
	// keep sees each message first, and reports whether to relay it.
	keep(m wamp.Message) bool
	// refused answers for m, which the receiving peer's Send refused
	// with err before writing it (unsent.Refused): nil lets the pump go
	// on, an error ends it.
	refused(m wamp.Message, err error) error
}

// pump sends what from receives to to, as d says, until either fails or
// the link shuts down. It reports whether a GOODBYE or an ABORT went
// through: the session ended in words.
func (l *link) pump(from, to wamp.Peer, d direction) (said bool) {
	for {
		m, err := from.Recv()
		if err != nil || l.closing.Load() {
			return said || l.closing.Load()
		}
		if !d.keep(m) {
			continue
		}
		switch wamp.Unwrap(m).(type) {
		case *wamp.Goodbye, *wamp.Abort:
			said = true
		}
		err = to.Send(m)
		if unsent.Refused(err) {
			err = d.refused(m, err)
		}
		if err != nil {
			return said
		}
	}
}

// end sends the client the relay's GOODBYE, once.
func (l *link) end(reason wamp.URI, msg string) {
	l.bye.Do(func() {
		l.front.Send(&wamp.Goodbye{Details: wamp.Dict{wamp.KeyMessage: msg}, Reason: reason})
	})
}

// close ends the session for the relay (Shutdown, SetRoutes,
// CloseSessions): GOODBYE reason with msg to both sides (ABORT to a
// client whose backend login is not done; a client whose WELCOME is being
// sent gets it first), then both connections close.
func (l *link) close(reason wamp.URI, msg string) {
	l.mu.Lock()
	l.closing.Store(true)
	back := l.back
	l.mu.Unlock()
	if back == nil {
		l.bye.Do(func() { sendAbort(l.front, wamp.Errorf(reason, "%s", msg)) })
	} else {
		<-l.welcomed // set back: join is sending WELCOME
	}
	l.end(reason, msg)
	if back != nil {
		back.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: reason})
		back.Close()
	}
	l.front.Close()
}
