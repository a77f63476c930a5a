package cluster

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// The roster: the sess table holds one record per session of every node,
// key r.<member>.<realm and session> (hashed, as the testaments' keys),
// with the session's realm, ID, authid and authrole and the
// subscriptions and registrations it holds (but those of wamp.* URIs,
// which make no meta events). When a node is lost, the node that reaps
// it (reap.go) publishes, for each of its sessions, what the session's
// own node would have published had it left: on_unsubscribe and
// on_delete, on_unregister and on_delete, its testaments, on_leave.
//
// A node writes its sessions' records off their goroutines: a change
// marks the session's record dirty, and the dirty records are encoded
// and handed to a writer (a failed write is logged and tried again, with
// a backoff) each time the writer has written the last ones. So a
// session's changes made while a write is on its way cost one write, a
// session that leaves before its record was written costs none, and
// nothing is written per PUBLISH, EVENT or CALL.
type roster struct {
	node *Node
	log  *slog.Logger
	warn lograte.Limit // records cut to their size limit
	w    *writer       // into the sess table, once started
	wake chan struct{} // a record is dirty
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	done func() // ends the membership's watch
	// onRejoin is told of this node's earlier life when it rejoined under
	// a new one, once the writer has dropped the earlier life's wishes,
	// with a channel closed once the writer's writes under way are done
	// (sessions.rejoined).
	onRejoin func(old Member, settled <-chan struct{})
	// onWillRemoved is told of a session whose testaments' key another
	// member deleted, and willsMissing of the keys of self in the table
	// when the watch of this node's keys starts (roster_repair.go): the
	// sessions part writes again the testaments it holds.
	onWillRemoved func(sessionRef)
	willsMissing  func(self Member, present map[string]bool)
	rewarn        lograte.Limit // records written again
	rewatch       chan struct{} // a member lost, or a new life: watch this node's keys again

	mu      sync.Mutex // guards the fields below; before writer.mu
	self    Member     // the life of this node the records are written under
	entries map[sessionRef]*rosterEntry
	byHash  map[string]sessionRef // the entries, by their keys' last token
	dirty   map[sessionRef]bool   // changed since handed to the writer
	written map[sessionRef]bool   // handed to the writer: a leave deletes them
}

// rosterMax bounds a record: a session that holds more subscriptions and
// registrations than fit (about 2,000 of 50-byte URIs) has its record
// written without them, and only its on_leave is published if its node
// is lost.
const rosterMax = 128 << 10

// sessionRef names a session of this node.
type sessionRef struct {
	realm   wamp.URI
	session wamp.ID
}

// rosterEntry is a session as the roster keeps it.
type rosterEntry struct {
	realm            wamp.URI
	session          wamp.ID
	authID, authRole string
	subs, regs       []router.RosterItem // in the order made
}

func newRoster(n *Node, log *slog.Logger) *roster {
	ctx, cancel := context.WithCancel(context.Background())
	return &roster{node: n, log: log, warn: lograte.Limit{Interval: 10 * time.Second},
		rewarn: lograte.Limit{Interval: 10 * time.Second}, rewatch: make(chan struct{}, 1),
		w: newWriter(log, "sess"), wake: make(chan struct{}, 1), ctx: ctx, stop: cancel, done: func() {},
		self: n.Self(), entries: map[sessionRef]*rosterEntry{}, byHash: map[string]sessionRef{},
		dirty: map[sessionRef]bool{}, written: map[sessionRef]bool{}}
}

// start writes into the sess table kv, rewrites the roster under this
// node's new life when it rejoins after an isolation, and writes again
// the records another member deletes while this node lives
// (roster_repair.go).
func (ro *roster) start(kv jetstream.KeyValue) {
	ro.rejoined(ro.node.Self())
	ro.w.start(ro.ctx, &ro.wg, kv)
	ro.wg.Go(ro.run)
	ro.wg.Go(func() { ro.watchOwn(kv) })
	ro.done = ro.node.Watch(ro.membership)
}

// close stops the writer: what it has not written yet is dropped (the
// other members delete this node's records when it leaves).
func (ro *roster) close() {
	ro.done()
	ro.stop()
	ro.wg.Wait()
}

// run hands the dirty records to the writer each time it has written
// the last ones, until close.
func (ro *roster) run() {
	for {
		select {
		case <-ro.ctx.Done():
			return
		case <-ro.wake:
		}
		select {
		case <-ro.ctx.Done():
			return
		case <-ro.w.flushed():
		}
		ro.flush()
	}
}

// flush encodes the dirty records and hands them to the writer: a record
// of a session gone is deleted if it was written. A fenced node writes
// nothing: the members that reap its earlier life publish its sessions
// as they were when it was cut off, and it writes them under its new
// life when it rejoins (rejoined marks them all dirty).
func (ro *roster) flush() {
	if ro.node.Fenced() {
		return
	}
	ro.mu.Lock()
	defer ro.mu.Unlock()
	for ref := range ro.dirty {
		key := sessionKey("r", ro.self, ref.realm, ref.session)
		if e := ro.entries[ref]; e != nil {
			ro.w.put(key, ro.encode(e))
			ro.written[ref] = true
		} else if ro.written[ref] {
			ro.w.delete(key)
			delete(ro.written, ref)
		}
	}
	clear(ro.dirty)
}

// encode encodes e, without its subscriptions and registrations when
// they make it longer than rosterMax.
func (ro *roster) encode(e *rosterEntry) []byte {
	b := appendRoster(nil, e)
	if len(b) <= rosterMax {
		return b
	}
	if ok, suppressed := ro.warn.Allow(); ok {
		ro.log.Warn("cluster: a session holds too many subscriptions and registrations for its roster record: if its node is lost, only its on_leave is published",
			"realm", string(e.realm), "session", uint64(e.session), "bytes", len(b), "suppressed", suppressed)
	}
	return appendRoster(nil, &rosterEntry{realm: e.realm, session: e.session, authID: e.authID, authRole: e.authRole})
}

// membership rewrites the roster under this node's new life when it
// rejoins. The records of its earlier life stay for the members that
// reap it (they publish their sessions' leaving and delete them); what
// they leave, onRejoin deletes (sessions.rejoined).
func (ro *roster) membership(ev MemberEvent) {
	self := ev.Member.Name == ro.node.Self().Name
	if !ev.Up && !self {
		ro.watchAgain() // the watch of this node's keys may have lived on its server
	}
	if !ev.Up || !self {
		return
	}
	if old, settled, ok := ro.rejoined(ev.Member); ok {
		ro.watchAgain() // its keys are the new life's
		if ro.onRejoin != nil {
			ro.onRejoin(old, settled)
		}
	}
}

// watchAgain has watchOwn start its watch again.
func (ro *roster) watchAgain() {
	select {
	case ro.rewatch <- struct{}{}:
	default:
	}
}

// rejoined makes self the life the records are written under, and
// marks them all dirty when it is a new one; the writes of the earlier
// life not made yet are dropped. It returns the earlier life, and a
// channel closed once the writes under way are done.
func (ro *roster) rejoined(self Member) (old Member, settled <-chan struct{}, ok bool) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if self == ro.self {
		return Member{}, nil, false
	}
	old = ro.self
	ro.self = self
	ro.w.forget("r." + memberKey(old) + ".")
	clear(ro.written)
	for ref := range ro.entries {
		ro.dirty[ref] = true
	}
	ro.signal()
	return old, ro.w.flushed(), true
}

// signal wakes run. ro.mu must be held.
func (ro *roster) signal() {
	select {
	case ro.wake <- struct{}{}:
	default:
	}
}

// realmRoster is a realm's side of the roster: router.RosterFabric.
type realmRoster struct {
	ro   *roster
	name wamp.URI
}

var _ router.RosterFabric = (*realmFabric)(nil)

// Roster applies a change of one of the realm's sessions and marks its
// record dirty (router.RosterFabric). A session that leaves while this
// node is fenced keeps its record: the members that reap this node
// publish its leaving to theirs.
func (r *realmRoster) Roster(c router.RosterChange) {
	ro := r.ro
	ref := sessionRef{r.name, c.Session}
	ro.mu.Lock()
	defer ro.mu.Unlock()
	e := ro.entries[ref]
	switch c.Op {
	case router.RosterJoined:
		e = &rosterEntry{realm: r.name, session: c.Session, authID: c.AuthID, authRole: c.AuthRole}
		ro.entries[ref] = e
		ro.byHash[sessionHash(ref)] = ref
	case router.RosterLeft:
		delete(ro.entries, ref)
		delete(ro.byHash, sessionHash(ref))
		if ro.node.Fenced() {
			delete(ro.dirty, ref)
			delete(ro.written, ref)
			return
		}
	case router.RosterSubscribed, router.RosterRegistered:
		if e == nil {
			return
		}
		l := e.items(c.Op)
		*l = append(*l, c.Item)
	case router.RosterUnsubscribed, router.RosterUnregistered:
		if e == nil {
			return
		}
		l := e.items(c.Op)
		*l = slices.DeleteFunc(*l, func(it router.RosterItem) bool { return it.ID == c.Item.ID })
	}
	ro.dirty[ref] = true
	ro.signal()
}

// items returns the list op changes.
func (e *rosterEntry) items(op router.RosterOp) *[]router.RosterItem {
	if op == router.RosterSubscribed || op == router.RosterUnsubscribed {
		return &e.subs
	}
	return &e.regs
}
