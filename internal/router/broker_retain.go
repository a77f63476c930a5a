package router

import (
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// retainStore is a realm's retained events, the last of each topic, and
// what they hold against the realm's limits and their publishers'.
//
// mu is a leaf lock, never held with broker.mu: a retained event is
// stored before its publication is delivered, and read (then sent, after
// unlocking) once SUBSCRIBED was sent.
type retainStore struct {
	mu     sync.Mutex
	events map[wamp.URI]retainedEvent
	total  usage
	// shares are the retained events of each joined session that are
	// still retained; a session's entry goes when it leaves (its events
	// stay, counted by total).
	shares map[wamp.ID]*usage
	// displaced is, by topic, the last event of this node's sessions
	// that another node's took the place of (keep), until the cluster's
	// table brings it back (if ever: one entry per topic at most).
	displaced map[wamp.URI]displacedEvent
}

// displacedEvent is a publication that counted in share until another
// node's event replaced it.
type displacedEvent struct {
	publication wamp.ID
	share       *usage
}

// retainedEvent is a topic's retained event, with its estimated size and
// its publisher's share (nil for the router's own events). A raw payload
// is kept as its bytes, which its size counts: the event is a detached
// copy of the publication's, and each delivery of it another, so that
// what a delivery decodes (for a subscriber of another serializer, often
// many times the bytes) goes with the delivery.
type retainedEvent struct {
	e     *outEvent
	size  int
	share *usage
}

// retain keeps e, of size bytes (see wamp.PayloadSize), as the retained event
// of its topic, in place of the one before, or returns the limitError
// that refuses it: the realm's retained events, and pub's share, must
// stay within their limits. The event it replaces is released, and no
// longer counted in its publisher's share. pub is nil for the router's
// own events. The publication is refused as a whole, never delivered
// without its retain: the caller delivers only once this returned nil.
func (b *broker) retain(pub *session, e *outEvent, size int) error {
	lim, st := b.realm.limits.now(), &b.retained
	st.mu.Lock()
	defer st.mu.Unlock()
	old, replaced := st.events[e.topic]
	dn := 1
	if replaced {
		dn = 0
	}
	if err := lim.retainedRealm.admit(st.total, dn, size-old.size); err != nil {
		return err
	}
	share, err := st.admitShare(pub, lim.retainedSession, old, size)
	if err != nil {
		return err
	}
	if old.share != nil {
		old.share.add(-1, -old.size)
	}
	if share != nil {
		share.add(1, size)
	}
	st.total.add(dn, size-old.size)
	if st.events == nil {
		st.events = make(map[wamp.URI]retainedEvent)
	}
	st.events[e.topic] = retainedEvent{e: e.detached(), size: size, share: share}
	return nil
}

// admitShare returns pub's share, nil for the router's, if it can take an
// event of size bytes in place of old. Only pub's own old event is
// replaced within its share; another session's is taken over, one more
// event in pub's share however small, so that a share never passes its
// limit. st.mu must be held.
func (st *retainStore) admitShare(pub *session, b budget, old retainedEvent, size int) (*usage, error) {
	if pub == nil {
		return nil, nil
	}
	share := st.shares[pub.id]
	if share == nil {
		share = &usage{}
		if st.shares == nil {
			st.shares = make(map[wamp.ID]*usage)
		}
		st.shares[pub.id] = share
	}
	dn, db := 1, size
	if old.share == share {
		dn, db = 0, size-old.size
	}
	return share, b.admit(*share, dn, db)
}

// keep keeps e, of size bytes, another node's publication that the
// cluster's table holds as its topic's retained event, in place of the
// one before; the publication that is retained already changes nothing.
//
// It is not refused by the realm's limits: the publishing node admitted
// it against them, counting every node's retained events as this one
// does, and every node must end with the table's events (a node that
// refused one would answer get_retained otherwise than the others). It
// counts in the realm's total, and in the share of its publisher when
// that is a session of this node: a publication of this node that
// another node's replaced (two nodes retaining to one topic at once)
// and that the table then brings back, as the later, counts in its
// publisher's share again. A share thus counts the events that are its
// session's topics' retained events now, as on one node.
func (b *broker) keep(e *outEvent, size int) {
	st := &b.retained
	st.mu.Lock()
	defer st.mu.Unlock()
	old, replaced := st.events[e.topic]
	if replaced && old.e.publication == e.publication {
		return
	}
	var share *usage
	if d, ok := st.displaced[e.topic]; ok && d.publication == e.publication {
		delete(st.displaced, e.topic)
		share = d.share
	}
	if old.share != nil {
		old.share.add(-1, -old.size)
		if st.displaced == nil {
			st.displaced = make(map[wamp.URI]displacedEvent)
		}
		st.displaced[e.topic] = displacedEvent{publication: old.e.publication, share: old.share}
	}
	if share != nil {
		share.add(1, size)
	}
	dn := 1
	if replaced {
		dn = 0
	}
	st.total.add(dn, size-old.size)
	if st.events == nil {
		st.events = make(map[wamp.URI]retainedEvent)
	}
	st.events[e.topic] = retainedEvent{e: e.detached(), size: size, share: share}
}

// forget drops the share of a session that left; its retained events
// stay.
func (st *retainStore) forget(id wamp.ID) {
	st.mu.Lock()
	delete(st.shares, id)
	st.mu.Unlock()
}

// retainedGrace is how long after SUBSCRIBED was written the retained
// events follow (see sendRetained).
const retainedGrace = time.Millisecond

// sendRetained sends s the retained events that sub's pattern matches,
// each with details retained: true. Runs after SUBSCRIBED was sent.
//
// Clients that attach their event handler only once SUBSCRIBED has
// arrived (nexus's and xconn's Go clients) drop an EVENT that they read
// together with it. So the retained events go out in a later write,
// retainedGrace after SUBSCRIBED was written (afterFlusher): a
// separate write alone is mostly read at once with SUBSCRIBED, as the
// client wakes up for it. Best effort: a client slower than that still
// reads both at once. A peer that cannot tell when it wrote gets them at
// once, and so does a session of the node's own (an Internal gate's):
// its clients (the Go client, Autobahn in the Python runner) attach the
// handler as they read SUBSCRIBED, and there the retained events follow
// SUBSCRIBED at once, before the session's next message is handled, so
// that a session that subscribes to one topic for many receivers (the
// HTTP bridge's event streams) can tell whose they are.
func (b *broker) sendRetained(s *session, sub subInfo) {
	f, ok := s.peer.(afterFlusher)
	if !ok || s.gate.opts.Internal {
		b.sendRetainedNow(s, sub)
		return
	}
	f.AfterFlush(func() {
		time.AfterFunc(retainedGrace, func() { b.sendRetainedNow(s, sub) })
	})
}

// sendRetainedNow is sendRetained once SUBSCRIBED is written, maybe on
// another goroutine than s's: it sends nothing if s has unsubscribed
// meanwhile, and holds the subscription's subscriber set while it sends,
// so that an UNSUBSCRIBE waits for it (see subscriberSet).
func (b *broker) sendRetainedNow(s *session, sub subInfo) {
	set := b.hold(s, sub.ID)
	if set == nil {
		return
	}
	defer set.release()
	m, _ := uriindex.ParseMatch(sub.Match)
	var one uriindex.Index[struct{}]
	one.Set(string(sub.Topic), m, struct{}{})
	var events []*outEvent
	st := &b.retained
	st.mu.Lock()
	for topic, r := range st.events {
		if matches(&one, topic) && r.e.filter.allows(s) {
			events = append(events, r.e)
		}
	}
	st.mu.Unlock()
	// One EVENT at a time, each of its own copy of the payload: what its
	// encoding decodes is garbage once it is sent.
	for _, e := range events {
		s.send(e.detached().forSession(s, sub.ID, m, true))
	}
}

// matches reports whether x has any pattern that matches uri.
func matches(x *uriindex.Index[struct{}], uri wamp.URI) bool {
	found := false
	x.Match(string(uri), func(string, uriindex.Match, struct{}) bool {
		found = true
		return false
	})
	return found
}
