package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// handleSubscribe subscribes s to a topic pattern, answers SUBSCRIBED and,
// with get_retained, sends the retained events the pattern matches.
func (s *session) handleSubscribe(m *wamp.Subscribe) error { return s.handleSubscribeAs(m, nil) }

// handleSubscribeAs is handleSubscribe for a subscription made for as
// (nil: s itself); it is s's subscription all the same.
func (s *session) handleSubscribeAs(m *wamp.Subscribe, as *wamp.Identity) error {
	rm := s.realm
	match, err := optMatch(m.Options)
	if err != nil {
		return err
	}
	getRetained, err := optBool(m.Options, wamp.OptGetRetained, false)
	if err != nil {
		return err
	}
	if err := rm.limits.admitURI(s, m.Topic, "subscription"); err != nil {
		return err
	}
	if !rm.validURI(m.Topic, match) {
		return wamp.Errorf(wamp.ErrInvalidURI, "invalid topic %q", m.Topic)
	}
	if _, err := s.authorizeAs(as, auth.ActionSubscribe, m.Topic, m.Options); err != nil {
		return err
	}
	um, _ := uriindex.ParseMatch(match)
	sub, created, added, err := rm.broker.subscribe(s, m.Request, m.Topic, um)
	if err != nil {
		return err
	}
	if created {
		rm.hooks.SubscriptionCreated(s.id, sub)
	}
	if added {
		rm.hooks.Subscribed(s.id, sub)
	}
	if getRetained {
		rm.broker.sendRetained(s, sub)
	}
	return nil
}

// subscribe adds s to the subscription of (topic, match), creating it if
// needed, and sends SUBSCRIBED while holding the lock, so that no EVENT of
// the subscription reaches the client before it. added is false when s
// was already a subscriber. A session at its subscription limit, or in a
// realm at its own, gets a limitError, unless it is a subscriber already:
// the subscription counts its weight for s, and for the realm its weight
// when it is new, one when s joins its other subscribers.
func (b *broker) subscribe(s *session, req wamp.ID, topic wamp.URI, m uriindex.Match) (info subInfo, created, added bool, err error) {
	w := subscriptionCost.weight(topic, m)
	b.mu.Lock()
	defer b.mu.Unlock()
	sub, ok := b.index.Get(string(topic), m)
	if !ok || s.subs.m[sub.id] == nil {
		if err := b.realm.limits.now().subs.admit(s, s.subWeight, b.holders.weight, w, growth(w, ok)); err != nil {
			return subInfo{}, false, false, err
		}
	}
	if !ok {
		sub = &subscription{id: b.newSubscriptionID(topic, m), topic: topic, match: m, weight: w, created: time.Now()}
		b.index.Set(string(topic), m, sub)
		b.byID[sub.id] = sub
		created = true
	}
	if s.subs.m[sub.id] == nil {
		b.addSubscriber(s, sub, created)
		added = true
	}
	s.send(&wamp.Subscribed{Request: req, Subscription: sub.id})
	return sub.info(), created, added, nil
}

// addSubscriber makes s a subscriber of sub, new if created, counted
// against the limits. b.mu must be held for writing.
func (b *broker) addSubscriber(s *session, sub *subscription, created bool) {
	s.subs.put(sub.id, sub)
	s.subWeight += sub.weight
	b.holders.hold(sub.weight, created)
	first := sub.set == nil
	sub.add(s)
	if first {
		b.interest(sub, true)
	}
}
