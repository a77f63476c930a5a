package router

import (
	"slices"
	"sync/atomic"

	"github.com/junction-wamp/junction/wamp"
)

// subscriberSet is one version of a subscription's subscribers. A publish
// takes the current set under broker.mu (read) and sends to it after
// unlocking, so that no broker lock is held during a fan-out; subscribe,
// unsubscribe and session removal change it under broker.mu (write).
//
// A set is changed in place when nothing reads it (see
// subscription.add and remove): no publish holds it, and no replaced set
// that may share its array is still in use. Otherwise the change is copy
// on write: the next version is built and replaces the current one, which
// is never modified again. So a client that subscribes and unsubscribes
// over and over on a topic with many subscribers costs no copy of them
// unless publishes are under way at that moment.
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

// add makes s a subscriber of sub. The current set is changed in place
// when no publish holds it (none can take it meanwhile: broker.mu is held
// for writing), the array of older sets still in use untouched: only a
// slot past their length is written, as in with. broker.mu must be held
// for writing.
func (sub *subscription) add(s *session) {
	if ss := sub.set; ss != nil && ss.unused() {
		ss.sessions = append(ss.sessions, s)
		return
	}
	sub.replace(sub.set.with(s))
}

// remove takes s out of sub's subscribers and returns the replaced sets
// still in use, as replace does. The current set is changed in place when
// nothing reads its array: no publish holds it, and no replaced set is
// still in use (one may share the array, see with). Otherwise it is
// replaced by a copy without s. broker.mu must be held for writing.
func (sub *subscription) remove(s *session) []*subscriberSet {
	sub.busy = slices.DeleteFunc(sub.busy, (*subscriberSet).done)
	ss := sub.set
	if !ss.unused() || len(sub.busy) > 0 {
		return sub.replace(ss.without(s))
	}
	if i := lastIndex(ss.sessions, s); i >= 0 {
		ss.sessions = slices.Delete(ss.sessions, i, i+1)
	}
	if len(ss.sessions) == 0 {
		sub.set = nil
	}
	return nil
}

// lastIndex is the position of s in ss, or -1. It looks from the end: a
// session that subscribes and unsubscribes over and over is among the
// last, and the subscribers after it are the ones slices.Delete moves.
func lastIndex(ss []*session, s *session) int {
	for i := len(ss) - 1; i >= 0; i-- {
		if ss[i] == s {
			return i
		}
	}
	return -1
}

// unused reports whether no publish holds ss. broker.mu must be held for
// writing, so that none can acquire it meanwhile; a publish's reads of ss
// happen before its release, which this load observes.
func (ss *subscriberSet) unused() bool { return ss.users.Load() == 0 }

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
	sub := s.subs.m[id]
	if sub == nil || sub.set == nil {
		return nil
	}
	sub.set.acquire()
	return sub.set
}
