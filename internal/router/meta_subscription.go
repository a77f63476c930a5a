package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// Subscription meta events.
const (
	topicSubOnCreate      wamp.URI = "wamp.subscription.on_create"
	topicSubOnSubscribe   wamp.URI = "wamp.subscription.on_subscribe"
	topicSubOnUnsubscribe wamp.URI = "wamp.subscription.on_unsubscribe"
	topicSubOnDelete      wamp.URI = "wamp.subscription.on_delete"
)

// SubscriptionCreated publishes on_create(session, details); in a
// cluster, only when no other node has the subscription already.
func (m *metaAPI) SubscriptionCreated(session wamp.ID, sub subInfo) {
	if !restricted(sub.Topic) && !m.rm.elsewhere(sub.Topic, sub.Match) {
		m.rm.publishInternal(topicSubOnCreate, nil, wamp.List{uint64(session), subscriptionDetails(sub)}, nil)
	}
}

// Subscribed publishes on_subscribe(session, subscription).
func (m *metaAPI) Subscribed(session wamp.ID, sub subInfo) {
	m.subEvent(topicSubOnSubscribe, session, sub)
}

// Unsubscribed publishes on_unsubscribe(session, subscription).
func (m *metaAPI) Unsubscribed(session wamp.ID, sub subInfo) {
	m.subEvent(topicSubOnUnsubscribe, session, sub)
}

// SubscriptionDeleted publishes on_delete(session, subscription); in a
// cluster, only when no other node has the subscription any more.
func (m *metaAPI) SubscriptionDeleted(session wamp.ID, sub subInfo) {
	if !m.rm.elsewhere(sub.Topic, sub.Match) {
		m.subEvent(topicSubOnDelete, session, sub)
	}
}

// subEvent publishes a subscription meta event, but not for subscriptions
// to wamp.* topics (the meta API itself), as Crossbar.
func (m *metaAPI) subEvent(topic wamp.URI, session wamp.ID, sub subInfo) {
	if !restricted(sub.Topic) {
		m.rm.publishInternal(topic, nil, wamp.List{uint64(session), uint64(sub.ID)}, nil)
	}
}

// subscriptionDetails are the details of wamp.subscription.get and
// on_create.
func subscriptionDetails(s subInfo) wamp.Dict {
	return wamp.Dict{
		"id":      uint64(s.ID),
		"created": s.Created.UTC().Format(isoTime),
		"uri":     string(s.Topic),
		"match":   s.Match,
	}
}

// subscriptionList serves wamp.subscription.list() -> {exact: [ids],
// prefix: [ids], wildcard: [ids]}, of the whole cluster (a subscription
// has one ID on every node: it is listed once).
func (m *metaAPI) subscriptionList(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	if _, err := parseArgs(c); err != nil {
		return nil, nil, err
	}
	all, err := m.rm.askMeta(MetaQuery{Op: SubscriptionList, Value: caller.ident.AuthRole}, caller)
	if err != nil {
		return nil, nil, err
	}
	lists := newMatchLists()
	seen := map[uint64]bool{}
	for _, a := range all {
		for i, name := range []string{wamp.MatchExact, wamp.MatchPrefix, wamp.MatchWildcard} {
			l, _ := a.Details[name].(wamp.List)
			for _, v := range l {
				id, ok := wamp.AsInt(v)
				if ok && !seen[uint64(id)] {
					seen[uint64(id)] = true
					lists[i] = append(lists[i], uint64(id))
				}
			}
		}
	}
	return wamp.List{lists.dict()}, nil, nil
}

// list returns the subscriptions by match policy that a session of role
// may see. Takes broker.mu (read).
func (b *broker) list(role string) *matchLists {
	lists := newMatchLists()
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, sub := range b.byID {
		if !hiddenFrom(role, sub.topic) {
			lists.add(sub.match, sub.id)
		}
	}
	return lists
}

// subscriptionLookup serves wamp.subscription.lookup(topic,
// options={match}) -> the ID of the subscription of exactly that pattern,
// or null.
func (m *metaAPI) subscriptionLookup(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	uri, um, err := lookupArgs(m.rm, c, "topic")
	if err != nil {
		return nil, nil, err
	}
	b := m.rm.broker
	b.mu.RLock()
	sub, ok := b.index.Get(string(uri), um)
	b.mu.RUnlock()
	if !ok || hidden(caller, uri) {
		return idOrNil(0, false), nil, nil
	}
	return idOrNil(sub.id, true), nil, nil
}

// subscriptionMatch serves wamp.subscription.match(topic) -> the IDs of
// every subscription an event to topic would reach, or null when none.
func (m *metaAPI) subscriptionMatch(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "topic")
	if err != nil {
		return nil, nil, err
	}
	uri, err := a.uri(m.rm, 0, wamp.MatchExact)
	if err != nil {
		return nil, nil, err
	}
	var ids wamp.List
	b := m.rm.broker
	b.mu.RLock()
	b.index.Match(string(uri), func(_ string, _ uriindex.Match, sub *subscription) bool {
		if !hidden(caller, sub.topic) {
			ids = append(ids, uint64(sub.id))
		}
		return true
	})
	b.mu.RUnlock()
	if len(ids) == 0 {
		return wamp.List{nil}, nil, nil
	}
	return wamp.List{ids}, nil, nil
}

// subscriptionGet serves wamp.subscription.get(subscription) -> details.
func (m *metaAPI) subscriptionGet(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	info, _, err := m.subscriptionByID(caller, c)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{subscriptionDetails(info)}, nil, nil
}

// subscriptionListSubscribers serves wamp.subscription.list_subscribers(
// subscription) -> [session IDs].
func (m *metaAPI) subscriptionListSubscribers(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	_, subscribers, err := m.subscriptionByID(caller, c)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{idList(subscribers)}, nil, nil
}

// subscriptionCountSubscribers serves wamp.subscription.count_subscribers(
// subscription) -> count.
func (m *metaAPI) subscriptionCountSubscribers(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	_, subscribers, err := m.subscriptionByID(caller, c)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{len(subscribers)}, nil, nil
}

// subscriptionByID reads the subscription argument and returns that
// subscription and its subscribers' session IDs.
func (m *metaAPI) subscriptionByID(caller *session, c *wamp.Call) (subInfo, []wamp.ID, error) {
	a, err := parseArgs(c, "subscription")
	if err != nil {
		return subInfo{}, nil, err
	}
	id, err := a.id(0)
	if err != nil {
		return subInfo{}, nil, err
	}
	info, subscribers, ok, err := m.subscriptionAnywhere(caller, id)
	if err != nil {
		return subInfo{}, nil, err
	}
	if !ok {
		return subInfo{}, nil, wamp.Errorf(wamp.ErrNoSuchSubscription, "no subscription with ID %d exists on this broker", id)
	}
	if hidden(caller, info.Topic) {
		return subInfo{}, nil, wamp.Errorf(wamp.ErrNotAuthorized, "not authorized to look at subscription %d of protected URI %q", id, info.Topic)
	}
	return info, subscribers, nil
}

// subscriptionAnywhere returns subscription id and its subscribers on
// every node of the cluster: its details are those of the first node
// that has it.
func (m *metaAPI) subscriptionAnywhere(caller *session, id wamp.ID) (info subInfo, subscribers []wamp.ID, ok bool, err error) {
	all, err := m.rm.askMeta(MetaQuery{Op: SubscriptionGet, ID: id}, caller)
	if err != nil {
		return subInfo{}, nil, false, err
	}
	for _, a := range all {
		if a.Details == nil {
			continue
		}
		if !ok {
			info, ok = subInfoOf(a.Details), true
		}
		subscribers = append(subscribers, a.IDs...)
	}
	return info, subscribers, ok, nil
}

// subInfoOf reads back subscriptionDetails.
func subInfoOf(d wamp.Dict) subInfo {
	id, _ := wamp.AsInt(d["id"])
	topic, _ := d["uri"].(string)
	match, _ := d["match"].(string)
	created, _ := d["created"].(string)
	t, _ := time.Parse(isoTime, created)
	return subInfo{ID: wamp.ID(id), Topic: wamp.URI(topic), Match: match, Created: t}
}

// snapshot returns subscription id and its subscribers' session IDs; ok is
// false when there is none. Takes broker.mu (read).
func (b *broker) snapshot(id wamp.ID) (info subInfo, subscribers []wamp.ID, ok bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	sub := b.byID[id]
	if sub == nil {
		return subInfo{}, nil, false
	}
	subscribers = make([]wamp.ID, len(sub.subscribers()))
	for i, s := range sub.subscribers() {
		subscribers[i] = s.id
	}
	return sub.info(), subscribers, true
}
