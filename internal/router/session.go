package router

import (
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// session is one client's WAMP session. Its goroutine (the one in
// Gate.Attach) reads and handles its messages; other goroutines only send
// to it (send, end) and read its immutable fields.
type session struct {
	id        wamp.ID
	peer      wamp.Peer
	router    *Router
	gate      *Gate
	invIDs    wamp.IDGen // session scope: INVOCATION request IDs sent to s
	killed    atomic.Bool
	slow      atomic.Bool
	joined    atomic.Bool // WELCOME sent: the router ends it with GOODBYE, not ABORT
	unmetered bool        // its peer is not wamp.Metered (see messages); immutable

	// Set once during the handshake, before the session joins its realm;
	// read-only afterwards.
	realm    *realm
	ident    auth.Identity
	joinedAt int64 // when it joined realm, Unix nanoseconds (router.Sessions sorts by it)
	// stats are s's session statistics once joined (meta API on), nil
	// before or without.
	stats *sessionStats
	// canCancel: the client announced callee feature call_canceling, so
	// it may be sent INTERRUPT.
	canCancel bool
	// revokeRegs and revokeSubs: the client announced callee feature
	// registration_revocation and subscriber feature
	// subscription_revocation, so the router may tell it that a
	// registration or subscription was revoked (UpdateRealm).
	// (The booleans side by side: the struct fits a smaller size class.)
	revokeRegs, revokeSubs bool
	// ppt: the roles for which the client announced the feature
	// payload_passthru_mode (passthru.go).
	ppt pptRoles
	// burst: more of the client's messages wait in its peer's buffer
	// (wamp.Parker), so what s sends goes to writers that batch it rather
	// than straight to the socket (see sendPeer). Set by s's goroutine.
	// (Beside the booleans: it fits in their padding.)
	burst atomic.Bool

	// authzCache are the authorizer's answers s may keep (authorize.go);
	// nil until one is kept. authzFrom is the realm access they were
	// given under: once the realm has another, they are dropped. Read
	// and written by s's goroutine only.
	authzCache map[authzKey]auth.Permission
	authzFrom  *access

	// subs are s's subscriptions, subWeight what they count against its
	// limit (the sum of their weights); guarded by realm.broker.mu.
	subs      idTable[*subscription]
	subWeight int

	// Dealer state; guarded by realm.dealer.mu.
	regs      idTable[*registration] // registrations s is a callee of
	regWeight int                    // what regs count against s's limit
	calls     idTable[*call]         // calls s made, by CALL request ID
	invs      idTable[*call]         // calls s serves, by INVOCATION request ID

	// messages counts what s sent and received, either way, for its
	// session statistics when its peer is not wamp.Metered (unmetered);
	// the router's counts by type are in Router.msgs. Last, away from
	// the fields every sender reads (id, peer, router), so that counting
	// does not take their cache line from the other CPUs.
	messages atomic.Uint64
}

func newSession(g *Gate, p wamp.Peer) *session {
	id := g.r.newSessionID()
	_, metered := p.(wamp.Metered)
	return &session{
		id:        id,
		peer:      p,
		router:    g.r,
		gate:      g,
		unmetered: !metered,
	}
}

// logger is the router's logger with s's session ID and, once s has
// joined, its realm. It is made for each use (sessions log rarely): a
// logger kept by every session cost an idle session a handler clone per
// attribute, some 400 bytes with the JSON or text handler. Safe for
// concurrent use.
func (s *session) logger() *slog.Logger {
	l := s.router.log.With("session", uint64(s.id))
	if s.joined.Load() {
		l = l.With("realm", string(s.realm.name))
	}
	return l
}

// received counts a message the client sent. Safe for concurrent use.
func (s *session) received(t wamp.MessageType) {
	s.router.msgs.stripe(s.id).received(t)
	if s.unmetered {
		s.messages.Add(1)
	}
}

// sent counts a message queued for the client, in the stripe of session
// by (see sendFrom), once its peer took it. Safe for concurrent use.
func (s *session) sent(t wamp.MessageType, by *session) {
	s.router.msgs.stripe(by.id).sent(t)
	if s.unmetered {
		s.messages.Add(1)
	}
}

// send queues m for the client. A slow consumer is counted and logged; the
// peer is already closed then, and the session's goroutine cleans up when
// its Recv fails. A message the peer refuses (longer than the client
// accepts, or holding a value its serializer cannot encode) is counted and
// logged, and replaced by a plainer one if it has one (see refused.go).
// It returns nil once m (or its replacement) is queued, or Send's error:
// the senders of a RESULT or an INVOCATION answer for one refused.
// Safe for concurrent use; no lock needed.
func (s *session) send(m wamp.Message) error {
	return s.sendFrom(s, m, wamp.Unwrap(m).Type())
}

// sendFrom is send for a message whose type t the caller knows, sent on
// the goroutine of session by (a publisher's fan-out, a call passed from
// caller to callee and back): it counts in by's stripe of the router's
// message counts (messageCounts), the one by counts everything else in,
// rather than in s's, which other CPUs' sessions use at the same time.
// send counts in s's stripe.
//
// Only what the peer took (queued, or written) counts as sent, the
// plainer form of a refused message included; a message it refused, or a
// Send that failed (closed, too slow), does not. Counted after Send, so
// that a counter never goes back (Prometheus would read that as a reset);
// a receiver may see the message before it is counted.
func (s *session) sendFrom(by *session, m wamp.Message, t wamp.MessageType) error {
	if t == wamp.TypeError {
		s.router.noteCallError(wamp.Unwrap(m))
	}
	err := s.sendPeer(by, m)
	if err == nil {
		s.sent(t, by)
		return nil
	}
	switch {
	case unsent.Refused(err):
		s.router.unsent.Note(string(s.realmName()), uint64(s.id), t, err)
		if err = s.sendPlainer(by, m, err); err == nil {
			s.sent(t, by) // the plainer form, of m's type
		}
		return err
	case errors.Is(err, wamp.ErrSlowConsumer):
		if s.slow.CompareAndSwap(false, true) {
			s.router.slow.note(string(s.realmName()), uint64(s.id), err)
		}
	case !errors.Is(err, wamp.ErrClosed):
		s.logger().Warn("send failed", "type", t.String(), "err", err)
	}
	return err
}

// sendPeer hands m to s's peer: with SendNow (written at once on this
// goroutine when the connection is not busy, see wamp.NowSender) when the
// sender by has no more of its client's messages waiting and m is not one
// of many (a fan-out's shared EVENT), with Send otherwise, so that bursts
// go out in batches.
func (s *session) sendPeer(by *session, m wamp.Message) error {
	if ns, ok := s.peer.(wamp.NowSender); ok && !by.burst.Load() {
		if _, shared := m.(*wamp.Shared); !shared {
			return ns.SendNow(m)
		}
	}
	return s.peer.Send(m)
}

// afterFlusher is an optional capability of a wamp.Peer (the WebSocket
// and RawSocket peers, through their outbox, and the local peer):
// AfterFlush calls fn once everything queued before the call has been
// written to the connection, so that what fn sends comes in a later write;
// never if the peer closes first. fn must not block.
type afterFlusher interface {
	AfterFlush(fn func())
}

// kill sends m (a GOODBYE or ABORT) and closes the peer, which may take
// the peer's close timeout when the client does not read; the session's
// goroutine then ends. Only for the session's own goroutine, or one that
// works for it alone such as its join clock's timer (others call end).
// Only the first kill or end acts.
func (s *session) kill(m wamp.Message) {
	if s.markKilled(m) {
		s.peer.Close()
	}
}

// end is kill for any other goroutine (Router.Close, realm removal,
// wamp.session.kill*): it sends m and closes the peer in the background,
// so that a client that does not read holds up nobody. Router.Close waits
// for those closes. Safe for concurrent use; only the first kill or end
// acts.
func (s *session) end(m wamp.Message) {
	if s.markKilled(m) {
		s.router.closeLater(s)
	}
}

// markKilled sends m if s was not killed yet, and reports whether it was
// the first to kill s.
func (s *session) markKilled(m wamp.Message) bool {
	if !s.killed.CompareAndSwap(false, true) {
		return false
	}
	s.send(m)
	return true
}

// shutdown ends the session because the router or its realm goes away:
// GOODBYE once joined, ABORT during the handshake. See end.
func (s *session) shutdown(reason wamp.URI) {
	if s.joined.Load() {
		s.end(&wamp.Goodbye{Details: wamp.Dict{}, Reason: reason})
		return
	}
	s.end(abortMsg(reason, "the router is closing the session"))
}

// abort ends the session with ABORT reason and a message detail. Only for
// the goroutines that may call kill.
func (s *session) abort(reason wamp.URI, format string, a ...any) {
	m := abortMsg(reason, format, a...)
	if reason == wamp.ErrProtocolViolation {
		s.logViolation(m.Details[wamp.KeyMessage].(string))
	}
	s.kill(m)
}

func abortMsg(reason wamp.URI, format string, a ...any) *wamp.Abort {
	return &wamp.Abort{Details: wamp.Dict{wamp.KeyMessage: fmt.Sprintf(format, a...)}, Reason: reason}
}

func (s *session) realmName() wamp.URI {
	if s.realm == nil {
		return ""
	}
	return s.realm.name
}

// info describes s for hooks.
func (s *session) info() sessionInfo {
	return sessionInfo{
		ID: s.id, AuthID: s.ident.AuthID, AuthRole: s.ident.AuthRole,
		AuthMethod: s.ident.AuthMethod, AuthProvider: s.ident.AuthProvider,
		AuthExtra: s.ident.AuthExtra, Peer: s.peer.Info(),
	}
}

// serve reads and handles messages until the session ends (false), or
// until its peer, a wamp.Parker, has been idle for a while and parked
// (true): the goroutine then ends, and resume goes on once a message has
// arrived. One goroutine at a time reads s's messages: the next one only
// starts once this one has parked.
func (s *session) serve(rm *realm) (parked bool) {
	pk, _ := s.peer.(wamp.Parker)
	for {
		m, err := s.recvParked(pk)
		if err == wamp.ErrIdle {
			if s.park(pk) {
				return true
			}
			continue // closing: the next read fails
		}
		if err != nil {
			if errors.Is(err, wamp.ErrProtocol) {
				s.abort(wamp.ErrProtocolViolation, "%v", err)
			}
			return false
		}
		if pk != nil {
			s.burst.Store(pk.Buffered())
		}
		m = wamp.Unwrap(m)
		if m != nil {
			s.received(m.Type())
		}
		if !s.dispatch(m) {
			return false
		}
	}
}

// recvParked reads the next message, through pk when the peer can park.
func (s *session) recvParked(pk wamp.Parker) (wamp.Message, error) {
	if pk != nil {
		return pk.RecvOrIdle()
	}
	return s.peer.Recv()
}

// park parks s's peer, to be resumed by resume; see wamp.Parker.Park.
// The method value holds s alone (16 bytes for as long as s is parked,
// where a closure over pk and rm took 48).
func (s *session) park(pk wamp.Parker) bool {
	return pk.Park(s.resume)
}

// resume serves a parked session again on the goroutine its peer started,
// and ends it there if it ends. s joined s.realm before it first parked.
func (s *session) resume() {
	if s.serve(s.realm) {
		return
	}
	s.finish(s.realm)
	s.peer.(wamp.Parker).Ended()
}
