package router

import "github.com/junction-wamp/junction/wamp"

// errHistoryUnavailable answers get_events for a subscription with no
// event history, as Crossbar.
const errHistoryUnavailable wamp.URI = "wamp.error.history_unavailable"

// defaultGetEvents is the limit of wamp.subscription.get_events when the
// caller gives none, as in Crossbar.
const defaultGetEvents = 10

// subscriptionGetEvents serves wamp.subscription.get_events(subscription,
// limit=10) -> [events], newest first, at most limit, each {time_ns,
// realm, session_id, authid, authrole, publication, topic, args, kwargs}.
// Errors as Crossbar: no_such_subscription, not_authorized for a
// protected topic, history_unavailable when it keeps no history.
func (m *metaAPI) subscriptionGetEvents(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "subscription", "limit")
	if err != nil {
		return nil, nil, err
	}
	id, err := a.id(0)
	if err != nil {
		return nil, nil, err
	}
	limit, err := a.integer(1, defaultGetEvents)
	if err != nil {
		return nil, nil, err
	}
	h, err := m.history(caller, id)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{m.rm.broker.histories.latest(h, limit)}, nil, nil
}

// history returns the event history of subscription id, or the error
// that get_events answers.
func (m *metaAPI) history(caller *session, id wamp.ID) (*history, error) {
	b := m.rm.broker
	b.mu.RLock()
	sub := b.byID[id]
	b.mu.RUnlock()
	switch {
	case sub == nil:
		return nil, wamp.Errorf(wamp.ErrNoSuchSubscription, "no subscription with ID %d exists on this broker", id)
	case hidden(caller, sub.topic):
		return nil, wamp.Errorf(wamp.ErrNotAuthorized, "not authorized to retrieve event history for protected URI %q", sub.topic)
	case sub.hist == nil:
		return nil, wamp.Errorf(errHistoryUnavailable, "event history for the given subscription is not available or enabled")
	}
	return sub.hist, nil
}
