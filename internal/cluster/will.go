package cluster

import (
	"context"
	"encoding/binary"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// Testaments across the cluster: the table sess (meta.go) holds
// the testaments of every node's sessions, one key per session
// (w.<member>.<realm and session>, hashed), written on the session's
// goroutine as they change and deleted once the session's own node
// published them. When a member is lost (and the members agree on it:
// agree.go), the live node that creates the key reap.<member> first (the
// lock of that member) publishes its sessions' leaving from their roster
// keys and testaments (reap.go) and deletes them; when the reaper is
// itself lost, or leaves, before it finished, another member takes the
// lock over.

// will is one session's testaments as the table keeps them.
type will struct {
	realm   wamp.URI
	session wamp.ID
	ts      []router.Testament
}

func memberKey(m Member) string { return hashKey(m.String()) }

// sessionKey is the key of a session of member m in the sess table:
// kind (w: its testaments, r: its roster entry), then m, then the
// session, hashed.
func sessionKey(kind string, m Member, realm wamp.URI, session wamp.ID) string {
	return kind + "." + memberKey(m) + "." + sessionHash(sessionRef{realm, session})
}

// sessionHash is the last token of a session's keys.
func sessionHash(ref sessionRef) string {
	return hashKey(string(ref.realm), strconv.FormatUint(uint64(ref.session), 10))
}

// Testaments writes the testaments of this node's session to the sess
// table, or deletes its key when there are none (router.TestamentFabric),
// but not while this node is fenced: the members that reap this node's
// earlier life publish the testaments its sessions held when it was cut
// off (and this node publishes them to its own subscribers as its
// sessions leave); those of its sessions that live on are written under
// its new life when it rejoins (rejoined). Nor once this node stops
// (Fabric.Leave, which also ends a write under way): its sessions publish
// their testaments here as they leave, and the members that stay delete
// what they left in the table when this node leaves (reap.go); when none
// stays, nothing needs the records, and the table, its quorum gone,
// would hold each session's leaving for seconds.
func (r *realmSessions) Testaments(session wamp.ID, ts []router.Testament) error {
	s := r.s
	kv := s.table()
	if kv == nil {
		return errNotStarted
	}
	h := s.wills.hold(sessionRef{r.name, session})
	h.mu.Lock() // the session's writes, and a rejoin's, in order
	defer h.mu.Unlock()
	h.ts, h.gone = ts, len(ts) == 0
	if h.gone {
		s.wills.drop(sessionRef{r.name, session}, h)
	}
	if s.node.Fenced() || s.ctx.Err() != nil {
		return nil
	}
	return s.writeWill(s.ctx, kv, s.node.Self(), r.name, session, ts)
}

// writeWill writes the testaments ts of session of realm under this
// node's life self, or deletes their key when there are none, until ctx
// ends or tableTimeout passed.
func (s *sessions) writeWill(ctx context.Context, kv jetstream.KeyValue, self Member, realm wamp.URI, session wamp.ID, ts []router.Testament) error {
	key := sessionKey("w", self, realm, session)
	var body []byte
	if len(ts) > 0 {
		var err error
		if body, err = appendWill(nil, will{realm: realm, session: session, ts: ts}); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, tableTimeout)
	defer cancel()
	for {
		var err error
		if body == nil {
			err = kv.Delete(ctx, key)
		} else {
			_, err = kv.Put(ctx, key, body)
		}
		if err == nil || !s.again(ctx, err) {
			return err
		}
	}
}

// wills are the testaments of this node's sessions as last written (or
// to be written when a fenced node rejoins), by session.
type wills struct {
	mu   sync.Mutex // guards held; a leaf (a heldWill's mu may be held)
	held map[sessionRef]*heldWill
}

// heldWill is one session's testaments. Its mu is held across the
// table's write, so that the session's changes and a rejoin's rewrite of
// them reach the table in order.
type heldWill struct {
	mu   sync.Mutex
	ts   []router.Testament
	gone bool // none left: the session left, or flushed them
}

// hold returns the testaments of ref, made if need be.
func (w *wills) hold(ref sessionRef) *heldWill {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		w.held = map[sessionRef]*heldWill{}
	}
	h := w.held[ref]
	if h == nil {
		h = &heldWill{}
		w.held[ref] = h
	}
	return h
}

// drop forgets ref's testaments h, none left.
func (w *wills) drop(ref sessionRef, h *heldWill) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held[ref] == h {
		delete(w.held, ref)
	}
}

// get returns the testaments of ref, nil when it has none.
func (w *wills) get(ref sessionRef) *heldWill {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held[ref]
}

// all returns the testaments held, by session.
func (w *wills) all() map[sessionRef]*heldWill {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.held)
}

// rejoined follows this node's rejoin under a new life after a fence
// (old: the earlier one): it writes the testaments of its sessions that
// live on under the new life, then, once the writes of the earlier life
// under way are done (settled), and the other members had the time to
// begin reaping the earlier life, it deletes what the earlier life left
// in the sess table that they did not take: the records of sessions
// that live on here (written again under the new life), that left while
// this node was fenced (their leaving published here then, when no
// member reaped this node: every member was cut off), or that a write
// late in the cut left after the reapers read the table. It publishes
// nothing. It does so as the reaper of the earlier life (its lock, as
// for a member that left): never while a member that reaps it holds the
// lock, and taken over if this node is lost before it finished.
func (s *sessions) rejoined(old Member, settled <-chan struct{}) {
	s.wg.Go(func() {
		kv := s.table()
		if kv == nil {
			return
		}
		for ref, h := range s.wills.all() {
			h.mu.Lock()
			if !h.gone && !s.node.Fenced() {
				if err := s.writeWill(s.ctx, kv, s.node.Self(), ref.realm, ref.session, h.ts); err != nil && s.ctx.Err() == nil {
					s.log.Error("cluster: testaments not kept in the cluster's table: they are lost if this node dies",
						"realm", string(ref.realm), "session", uint64(ref.session), "err", err)
				}
			}
			h.mu.Unlock()
		}
		// The members reap the earlier life when they lose it, at the
		// latest as they hear the new life's first heartbeat: a lease and
		// a second gives their lock time to be taken first.
		t := time.NewTimer(s.node.cfg.Lease + time.Second)
		defer t.Stop()
		bound := time.NewTimer(reapTimeout) // a writer never idle (sessions changing all the time)
		defer bound.Stop()
		select {
		case <-settled:
		case <-bound.C:
		case <-s.ctx.Done():
			return
		}
		select {
		case <-t.C:
		case <-s.ctx.Done():
			return
		}
		l := reapLock{reaper: s.node.Self(), member: old}
		ctx, cancel, ok := s.node.majority(s.ctx) // reaped only with a majority, as every member
		defer cancel()
		if !ok {
			s.postpone(l)
			return
		}
		s.reap(ctx, l)
	})
}

// realm returns the link of realm name, or nil.
func (s *sessions) realm(name wamp.URI) *router.RealmLink {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.realms[name]
}

// The will's wire format, versioned by its first byte:
//
//	1 | realm | session | count | testaments: topic | options | payload
//
// options are a MessagePack dictionary (empty for none), a payload as in
// a call (rpc_wire.go).
func appendWill(b []byte, w will) ([]byte, error) {
	b = append(b, wireVersion)
	b = appendString(b, string(w.realm))
	b = binary.AppendUvarint(b, uint64(w.session))
	b = binary.AppendUvarint(b, uint64(len(w.ts)))
	for _, t := range w.ts {
		b = appendString(b, string(t.Topic))
		var err error
		if b, err = appendDict(b, t.Options); err != nil {
			return b, err
		}
		if b, err = appendPayload(b, t.Payload); err != nil {
			return b, err
		}
	}
	return b, nil
}

// decodeWill decodes b, which it does not retain.
func decodeWill(b []byte) (will, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return will{}, errWire
	}
	w := will{realm: wamp.URI(r.string()), session: r.id()}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return will{}, errWire
	}
	for range n {
		t := router.Testament{Topic: wamp.URI(r.string()), Options: r.dict()}
		t.Payload.Args, t.Payload.Kwargs, t.Payload.Raw = r.payload()
		if len(t.Options) == 0 {
			t.Options = nil
		}
		w.ts = append(w.ts, t)
	}
	if r.err != nil || len(r.b) > 0 {
		return will{}, errWire
	}
	return w, nil
}
