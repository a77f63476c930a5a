package router

import (
	"slices"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/wamp"
)

// subscriberSet is one version of a subscription's subscribers, copy on
// write: once it is a subscription's current set it is never modified.
// Subscribe and unsubscribe build the next version under broker.mu
// (write) and replace the current one; a publish takes the current set
// under broker.mu (read) and sends to it after unlocking, so that no
// broker lock is held during a fan-out.
//
// A session that unsubscribes must get no EVENT of the subscription after
// UNSUBSCRIBED (autobahn and other clients treat one as a protocol
// violation), but a publish may still be sending to a replaced set that
// includes it. So every set counts the publishes sending to it; a replaced
// set still in use stays in subscription.busy until its last publish is
// done, and unsubscribe waits for the busy sets before it answers.
type subscriberSet struct {
	sessions []*session
	// users is the number of publishes sending to the set, plus retired
	// once the set was replaced (after which it only goes down).
	users atomic.Int64
	idle  chan struct{} // made by retire; closed by the last release after it
}

const retired = 1 << 62

// with returns a new set of ss's sessions and s (ss may be nil). It appends
// in place when the array has room: only slots past len(ss.sessions),
// which no reader of ss or of an older set looks at, are written.
func (ss *subscriberSet) with(s *session) *subscriberSet {
	var cur []*session
	if ss != nil {
		cur = ss.sessions
	}
	return &subscriberSet{sessions: append(cur, s)}
}

// without returns a new set of ss's sessions but s, in a new array (ss's
// readers still read it) with room for one more, so that a subscribe
// right after appends in place; nil when none is left.
func (ss *subscriberSet) without(s *session) *subscriberSet {
	if len(ss.sessions) <= 1 {
		return nil
	}
	next := make([]*session, 0, len(ss.sessions))
	for _, r := range ss.sessions {
		if r != s {
			next = append(next, r)
		}
	}
	return &subscriberSet{sessions: next}
}

// acquire counts a publish that will send to ss. broker.mu must be held
// and ss must be a current set.
func (ss *subscriberSet) acquire() { ss.users.Add(1) }

// release ends what acquire began. No lock needed. The last release of a
// retired set lets go of its sessions, which may have left the realm: the
// set itself may stay in subscription.busy until the next change.
func (ss *subscriberSet) release() {
	if ss.users.Add(-1) == retired {
		ss.sessions = nil // nobody reads a retired set once it is idle
		close(ss.idle)
	}
}

// retire marks ss replaced and reports whether a publish still sends to
// it (then ss.idle is closed when the last one is done). broker.mu must be
// held for writing.
func (ss *subscriberSet) retire() (busy bool) {
	ss.idle = make(chan struct{})
	return ss.users.Add(retired) != retired
}

// done reports whether ss was retired and no publish sends to it anymore.
func (ss *subscriberSet) done() bool { return ss.users.Load() == retired }

// subscribers returns the current subscribers; broker.mu must be held.
func (sub *subscription) subscribers() []*session {
	if sub.set == nil {
		return nil
	}
	return sub.set.sessions
}

// replace makes next (nil: none) the current set and returns the replaced
// sets still in use; the caller clones them if it keeps them past the
// lock. broker.mu must be held for writing.
func (sub *subscription) replace(next *subscriberSet) []*subscriberSet {
	old := sub.set
	sub.set = next
	sub.busy = slices.DeleteFunc(sub.busy, (*subscriberSet).done)
	if old != nil && old.retire() {
		sub.busy = append(sub.busy, old)
	}
	return sub.busy
}

// waitIdle waits until no publish sends to any of sets anymore. No lock
// may be held: a publish in flight never waits for one, so this returns
// as soon as those publishes have queued their EVENTs.
func waitIdle(sets []*subscriberSet) {
	for _, ss := range sets {
		<-ss.idle
	}
}

// hold acquires the current subscriber set of s's subscription id, or
// returns nil if s is no longer its subscriber. The caller releases it.
// Takes broker.mu (read).
func (b *broker) hold(s *session, id wamp.ID) *subscriberSet {
	b.mu.RLock()
	defer b.mu.RUnlock()
	sub := s.subs[id]
	if sub == nil || sub.set == nil {
		return nil
	}
	sub.set.acquire()
	return sub.set
}
