package router

import "github.com/junction-wamp/junction/wamp"

// errHistoryUnavailable answers get_events for a subscription with no
// event history, as Crossbar.
const errHistoryUnavailable wamp.URI = "wamp.error.history_unavailable"

// defaultGetEvents is the limit of wamp.subscription.get_events when the
// caller gives none, as in Crossbar.
const defaultGetEvents = 10

// historyEvents is the key of a SubscriptionEvents answer's events.
const historyEvents = "events"

// subscriptionGetEvents serves wamp.subscription.get_events(subscription,
// limit=10) -> [events], newest first, at most limit, each {time_ns,
// realm, session_id, authid, authrole, publication, topic, args, kwargs}.
// Errors as Crossbar: no_such_subscription, not_authorized for a
// protected topic, history_unavailable when it keeps no history.
//
// In a cluster a node's histories hold the events published on that
// node: the node called asks every node for its newest limit events of
// the subscription and merges them by time_ns (each node's in its own
// order), so the answer is the cluster's newest limit events. The
// subscription is unknown only when no node has it, and its history
// unavailable only when no node keeps one.
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
	limit = max(limit, 0) // a negative limit gives none, as 0
	all, err := m.rm.askMeta(MetaQuery{Op: SubscriptionEvents, ID: id, Limit: limit}, caller)
	if err != nil {
		return nil, nil, err
	}
	var (
		info  subInfo
		found bool
		lists []wamp.List // each node's events, newest first
	)
	for _, a := range all {
		if a.Details == nil {
			continue
		}
		if !found {
			info, found = subInfoOf(a.Details), true
		}
		if l, ok := a.Details[historyEvents].(wamp.List); ok {
			lists = append(lists, l)
		}
	}
	switch {
	case !found:
		return nil, nil, wamp.Errorf(wamp.ErrNoSuchSubscription, "no subscription with ID %d exists on this broker", id)
	case hidden(caller, info.Topic):
		return nil, nil, wamp.Errorf(wamp.ErrNotAuthorized, "not authorized to retrieve event history for protected URI %q", info.Topic)
	case lists == nil:
		return nil, nil, wamp.Errorf(errHistoryUnavailable, "event history for the given subscription is not available or enabled")
	}
	return wamp.List{newest(lists, limit)}, nil, nil
}

// historyOf returns subscription id and the n newest events of its
// history, newest first (nil when it keeps none); ok is false when there
// is no such subscription. Takes broker.mu (read), then the histories'.
func (b *broker) historyOf(id wamp.ID, n int) (info subInfo, events wamp.List, ok bool) {
	b.mu.RLock()
	sub := b.byID[id]
	var h *history
	if sub != nil {
		info, h = sub.info(), sub.hist
	}
	b.mu.RUnlock()
	if sub == nil {
		return subInfo{}, nil, false
	}
	if h != nil {
		events = b.histories.latest(h, n)
	}
	return info, events, true
}

// newest merges lists of events, each newest first, into the n newest
// of them all by time_ns, newest first. Each list keeps its own order
// (a node's events are in the order it recorded them), and of two events
// of one time the earlier list's comes first.
func newest(lists []wamp.List, n int) wamp.List {
	if len(lists) == 1 {
		return lists[0][:min(n, len(lists[0]))]
	}
	out := wamp.List{}
	next := make([]int, len(lists))
	for len(out) < n {
		best, bestTime := -1, int64(0)
		for i, l := range lists {
			if next[i] == len(l) {
				continue
			}
			if t := eventTime(l[next[i]]); best < 0 || t > bestTime {
				best, bestTime = i, t
			}
		}
		if best < 0 {
			break
		}
		out = append(out, lists[best][next[best]])
		next[best]++
	}
	return out
}

// eventTime is an event's time_ns, as this node stored it (wamp.Dict) or
// another node sent it (wamp.Object); 0 when it has none.
func eventTime(e any) int64 {
	var v any
	switch e := e.(type) {
	case wamp.Dict:
		v = e["time_ns"]
	case wamp.Object:
		v, _ = e.Get("time_ns")
	}
	t, _ := wamp.AsInt(v)
	return t
}
