package router

import (
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// broker routes events on one realm. Subscriptions are shared: every
// session subscribed to the same topic with the same match policy is a
// subscriber of one subscription with one ID.
type broker struct {
	realm *realm
	// events is the realm's link to the other nodes of a cluster; nil on
	// one node. Set by newRealm before any session joins, never changed
	// after.
	events EventFabric

	// mu guards the fields below and every session's subs. It is
	// read-locked by a publish only to find the matching subscriptions and
	// take their subscriber sets, and released before the EVENTs are sent
	// (see subscriberSet); it is write-locked to change subscriptions.
	// After realm.mu in the order.
	mu    sync.RWMutex
	index uriindex.Index[*subscription]
	byID  map[wamp.ID]*subscription
	// holders counts the subscriptions the realm's sessions hold (the sum
	// of their len(subs)), and their weight, what the realm's limit
	// counts.
	holders tally

	retained  retainStore  // has its own (leaf) lock
	histories historyStore // has its own (leaf) lock
}

// subscription is a topic pattern and its subscribers. id, topic, match,
// weight and created never change; broker.mu guards the rest.
type subscription struct {
	id      wamp.ID
	topic   wamp.URI
	match   uriindex.Match
	weight  int // what it counts against the limits (subscriptionCost)
	created time.Time
	set     *subscriberSet   // the current subscribers; nil: none left
	busy    []*subscriberSet // replaced sets that publishes still send to
	// hist is the subscription's event history, nil for none; set when
	// the realm starts, never changed after. A subscription with one is
	// held by the router: it stays when its last subscriber leaves.
	hist *history
}

func newBroker(rm *realm) *broker {
	return &broker{
		realm: rm,
		byID:  make(map[wamp.ID]*subscription),
	}
}

func (sub *subscription) info() subInfo {
	return subInfo{ID: sub.id, Topic: sub.topic, Match: sub.match.String(), Created: sub.created}
}

// count returns the number of subscriptions, of subscriptions held by
// sessions (each subscriber of each), and what the realm's limit counts.
func (b *broker) count() (subs, held, weight int) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.byID), b.holders.held, b.holders.weight
}

// drop removes s from sub, and sub from the index once it has no
// subscriber left (then deleted is true). It returns the replaced
// subscriber sets that publishes still send to (see subscriberSet), which
// the caller clones to keep. b.mu must be held for writing.
func (b *broker) drop(sub *subscription, s *session) (deleted bool, busy []*subscriberSet) {
	s.subs.remove(sub.id)
	s.subWeight -= sub.weight
	busy = sub.remove(s)
	if sub.set == nil {
		b.interest(sub, false)
	}
	deleted = sub.set == nil && sub.hist == nil
	b.holders.release(sub.weight, deleted)
	if !deleted {
		return false, busy
	}
	b.index.Delete(string(sub.topic), sub.match)
	delete(b.byID, sub.id)
	return true, busy
}

// removeSession unsubscribes s from everything and drops its share of
// the retained events, then tells the hooks. Runs on s's goroutine when
// it leaves.
func (b *broker) removeSession(s *session) {
	type gone struct {
		sub     subInfo
		deleted bool
	}
	b.mu.Lock()
	subs := s.subs.take() // drop's removals from s.subs are then no-ops
	all := make([]gone, 0, len(subs))
	for _, sub := range subs {
		deleted, _ := b.drop(sub, s) // s leaves: late EVENTs do not matter
		all = append(all, gone{sub.info(), deleted})
	}
	b.mu.Unlock()
	b.retained.forget(s.id)
	for _, g := range all {
		b.realm.hooks.Unsubscribed(s.id, g.sub)
		if g.deleted {
			b.realm.hooks.SubscriptionDeleted(s.id, g.sub)
		}
	}
}
