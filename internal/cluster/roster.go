package cluster

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// The roster: the sess table holds one key per session of every node,
// r.<member>.<realm and session> (hashed, as the testaments' keys),
// with the session's realm, ID, authid and authrole and the
// subscriptions and registrations it holds (but those of wamp.* URIs,
// which make no meta events). When a node is lost, the node that reaps
// it (will.go) publishes, for each of its sessions, what the session's
// own node would have published had it left: on_unsubscribe and
// on_delete, on_unregister and on_delete, its testaments, on_leave.
//
// A node writes its sessions' keys off their goroutines, through a writer
// (only the last wish for a key counts; a failed write is logged and
// tried again, with a backoff): when a session joins, when its
// subscriptions or registrations change, and a delete when it leaves.
// Nothing is written per PUBLISH, EVENT or CALL.
type roster struct {
	node *Node
	w    *writer // into the sess table, once started
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	done func() // ends the membership's watch

	mu      sync.Mutex // guards the fields below; before writer.mu
	self    Member     // the life of this node the keys are written under
	entries map[sessionRef]*rosterEntry
}

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
	return &roster{node: n, w: newWriter(log, "sess"), ctx: ctx, stop: cancel, done: func() {},
		self: n.Self(), entries: map[sessionRef]*rosterEntry{}}
}

// start writes into the sess table kv, and rewrites the roster under
// this node's new life when it rejoins after an isolation.
func (ro *roster) start(kv jetstream.KeyValue) {
	ro.mu.Lock()
	ro.rewriteLocked(ro.node.Self())
	ro.mu.Unlock()
	ro.w.start(ro.ctx, &ro.wg, kv)
	ro.done = ro.node.Watch(ro.membership)
}

// close stops the writer: what it has not written yet is dropped (the
// other members delete this node's keys when it leaves).
func (ro *roster) close() {
	ro.done()
	ro.stop()
	ro.wg.Wait()
}

// membership rewrites the roster under this node's new life when it
// rejoins. The keys of its earlier life stay for the members that reaped
// it (they publish their sessions' leaving and delete them).
func (ro *roster) membership(ev MemberEvent) {
	if !ev.Up || ev.Member.Name != ro.node.Self().Name {
		return
	}
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if ev.Member != ro.self {
		ro.rewriteLocked(ev.Member)
	}
}

// rewriteLocked writes every entry under life self. ro.mu must be held.
func (ro *roster) rewriteLocked(self Member) {
	if self == ro.self {
		return
	}
	ro.self = self
	for _, e := range ro.entries {
		ro.w.put(sessionKey("r", self, e.realm, e.session), appendRoster(nil, e))
	}
}

// realmRoster is a realm's side of the roster: router.RosterFabric.
type realmRoster struct {
	ro   *roster
	name wamp.URI
}

var _ router.RosterFabric = (*realmFabric)(nil)

// Roster applies a change of one of the realm's sessions and queues the
// write of its key (router.RosterFabric). A session that leaves while
// this node is fenced keeps its key: the members that reap this node
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
	case router.RosterLeft:
		if e != nil && !ro.node.Fenced() {
			ro.w.delete(sessionKey("r", ro.self, r.name, c.Session))
		}
		delete(ro.entries, ref)
		return
	case router.RosterSubscribed, router.RosterRegistered:
		if e != nil {
			l := e.items(c.Op)
			*l = append(*l, c.Item)
		}
	case router.RosterUnsubscribed, router.RosterUnregistered:
		if e != nil {
			l := e.items(c.Op)
			*l = slices.DeleteFunc(*l, func(it router.RosterItem) bool { return it.ID == c.Item.ID })
		}
	}
	if e != nil {
		ro.w.put(sessionKey("r", ro.self, r.name, c.Session), appendRoster(nil, e))
	}
}

// items returns the list op changes.
func (e *rosterEntry) items(op router.RosterOp) *[]router.RosterItem {
	if op == router.RosterSubscribed || op == router.RosterUnsubscribed {
		return &e.subs
	}
	return &e.regs
}
