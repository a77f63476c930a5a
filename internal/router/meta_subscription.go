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
// or null; in a cluster, on any node (asked of the others when this node
// has none).
func (m *metaAPI) subscriptionLookup(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	uri, um, err := lookupArgs(m.rm, c, "topic")
	if err != nil {
		return nil, nil, err
	}
	if hidden(caller, uri) {
		return idOrNil(0, false), nil, nil
	}
	all, err := m.rm.askMeta(MetaQuery{Op: SubscriptionLookup, URI: uri, Match: um}, caller)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range all {
		if len(a.IDs) > 0 {
			return idOrNil(a.IDs[0], true), nil, nil
		}
	}
	return idOrNil(0, false), nil, nil
}

// lookup returns the ID of the subscription of exactly (uri, m). Takes
// broker.mu (read).
func (b *broker) lookup(uri wamp.URI, m uriindex.Match) (wamp.ID, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	sub, ok := b.index.Get(string(uri), m)
	if !ok {
		return 0, false
	}
	return sub.id, true
}

// subscriptionMatch serves wamp.subscription.match(topic) -> the IDs of
// every subscription an event to topic would reach, or null when none;
// in a cluster, on every node (each once).
func (m *metaAPI) subscriptionMatch(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "topic")
	if err != nil {
		return nil, nil, err
	}
	uri, err := a.uri(m.rm, 0, wamp.MatchExact)
	if err != nil {
		return nil, nil, err
	}
	all, err := m.rm.askMeta(MetaQuery{Op: SubscriptionMatch, URI: uri, Value: caller.ident.AuthRole}, caller)
	if err != nil {
		return nil, nil, err
	}
	var ids wamp.List
	seen := map[wamp.ID]bool{}
	for _, a := range all {
		for _, id := range a.IDs {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, uint64(id))
			}
		}
	}
	if len(ids) == 0 {
		return wamp.List{nil}, nil, nil
	}
	return wamp.List{ids}, nil, nil
}

// matching returns the IDs of the subscriptions an event to uri would
// reach that a session of role may see. Takes broker.mu (read).
func (b *broker) matching(uri wamp.URI, role string) []wamp.ID {
	var ids []wamp.ID
	b.mu.RLock()
	defer b.mu.RUnlock()
	b.index.Match(string(uri), func(_ string, _ uriindex.Match, sub *subscription) bool {
		if !hiddenFrom(role, sub.topic) {
			ids = append(ids, sub.id)
		}
		return true
	})
	return ids
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
