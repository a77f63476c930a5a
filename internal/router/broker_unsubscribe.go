package router

import (
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// handleUnsubscribe removes s from one of its subscriptions.
func (s *session) handleUnsubscribe(m *wamp.Unsubscribe) error {
	rm := s.realm
	info, deleted, ok := rm.broker.unsubscribe(s, m.Subscription)
	if !ok {
		return wamp.Errorf(wamp.ErrNoSuchSubscription, "no subscription %d", m.Subscription)
	}
	s.send(&wamp.Unsubscribed{Request: m.Request})
	rm.hooks.Unsubscribed(s.id, info)
	if deleted {
		rm.hooks.SubscriptionDeleted(s.id, info)
	}
	return nil
}

// unsubscribe removes s from subscription id; ok is false if s is not a
// subscriber of it. It returns once no publish can send s an EVENT of the
// subscription anymore (those in flight have queued theirs), so that
// UNSUBSCRIBED comes after the last one.
func (b *broker) unsubscribe(s *session, id wamp.ID) (info subInfo, deleted, ok bool) {
	b.mu.Lock()
	sub := s.subs.m[id]
	if sub == nil {
		b.mu.Unlock()
		return subInfo{}, false, false
	}
	deleted, busy := b.drop(sub, s)
	busy = slices.Clone(busy)
	b.mu.Unlock()
	waitIdle(busy)
	return sub.info(), deleted, true
}
