package router

import (
	"slices"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// historyRealm is realm1 with event histories hs and limits l.
func historyRealm(l Limits, hs ...EventHistory) Options {
	return Options{Realms: []RealmOptions{{Name: "realm1", EventHistory: hs, Limits: l}}}
}

// publishAcked publishes args to topic and waits for PUBLISHED.
func (c *client) publishAcked(topic wamp.URI, kwargs wamp.Dict, args ...any) wamp.ID {
	c.t.Helper()
	c.send(&wamp.Publish{Request: c.nextReq(), Options: wamp.Dict{"acknowledge": true}, Topic: topic, Args: args, Kwargs: wamp.ObjectOf(kwargs)})
	return expect[*wamp.Published](c).Publication
}

// lookup returns the ID of the subscription of (topic, match).
func (c *client) lookup(topic wamp.URI, match string) uint64 {
	c.t.Helper()
	id, ok := c.result("wamp.subscription.lookup", wamp.List{string(topic), wamp.Dict{"match": match}}, nil).(uint64)
	if !ok {
		c.t.Fatalf("no subscription of %s (%s)", topic, match)
	}
	return id
}

// events calls get_events and returns the publications and topics of
// the events, in the order given.
func (c *client) events(args ...any) (pubs []uint64, topics []string) {
	c.t.Helper()
	return c.eventsKw(args, nil)
}

// eventsKw is events with keyword arguments too.
func (c *client) eventsKw(args wamp.List, kwargs wamp.Dict) (pubs []uint64, topics []string) {
	c.t.Helper()
	for _, it := range c.result("wamp.subscription.get_events", args, kwargs).(wamp.List) {
		item := it.(wamp.Dict)
		pubs = append(pubs, item["publication"].(uint64))
		topics = append(topics, item["topic"].(string))
	}
	return pubs, topics
}

func TestEventHistoryItems(t *testing.T) {
	bubble(t, historyRealm(Limits{}, EventHistory{Topic: "com.h", Limit: 3}), func(t *testing.T, r *Router) {
		a := ticketJoin(t, r.Gate(ticketAuth{role: "user"}), "realm1", "alice")
		sub := a.lookup("com.h", "exact")
		var pubs []uint64
		for i := range 5 {
			pubs = append(pubs, uint64(a.publishAcked("com.h", wamp.Dict{"i": i}, i)))
		}
		a.publishAcked("com.other", nil, "not kept")
		items := a.result("wamp.subscription.get_events", wamp.List{sub, 1}, nil).(wamp.List)
		item := items[0].(wamp.Dict)
		if _, ok := item["time_ns"].(int64); !ok {
			t.Errorf("time_ns = %#v", item["time_ns"])
		}
		delete(item, "time_ns")
		equal(t, "newest item", item, wamp.Dict{
			"realm": "realm1", "session_id": uint64(a.id), "authid": "alice", "authrole": "user",
			"publication": pubs[4], "topic": "com.h", "args": wamp.List{4}, "kwargs": wamp.Object{{Key: "i", Value: 4}},
		})
		got, _ := a.events(sub)
		equal(t, "default limit: all 3 kept, newest first", got, []uint64{pubs[4], pubs[3], pubs[2]})
		got, _ = a.events(sub, 2)
		equal(t, "limit 2", got, []uint64{pubs[4], pubs[3]})
		got, _ = a.events(sub, 0)
		equal(t, "limit 0", got, []uint64(nil))
	})
}

func TestEventHistoryErrors(t *testing.T) {
	hs := []EventHistory{{Topic: "com.h"}, {Topic: "wamp.session.on_join"}}
	bubble(t, historyRealm(Limits{}, hs...), func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		plain := uint64(a.subscribe("com.plain", nil))
		protected := uint64(r.realm("realm1").broker.lookupID("wamp.session.on_join"))
		sub := a.lookup("com.h", "exact")
		for _, tc := range []struct {
			name   string
			args   wamp.List
			kwargs wamp.Dict
			want   wamp.URI
		}{
			{"unknown subscription", wamp.List{uint64(123456789)}, nil, wamp.ErrNoSuchSubscription},
			{"no history", wamp.List{plain}, nil, errHistoryUnavailable},
			{"protected topic", wamp.List{protected}, nil, wamp.ErrNotAuthorized},
			{"limit not an integer", wamp.List{sub, "ten"}, nil, wamp.ErrInvalidArgument},
			{"no subscription", nil, nil, wamp.ErrInvalidArgument},
			{"unknown keyword", wamp.List{sub}, wamp.Dict{"since": 1}, wamp.ErrInvalidArgument},
		} {
			t.Log(tc.name)
			a.callFails("wamp.subscription.get_events", tc.args, tc.kwargs, tc.want)
		}
	})
}

// lookupID returns the ID of the exact subscription to topic, 0 if none.
func (b *broker) lookupID(topic wamp.URI) wamp.ID {
	b.mu.RLock()
	defer b.mu.RUnlock()
	sub, _ := b.index.Get(string(topic), 0)
	if sub == nil {
		return 0
	}
	return sub.id
}

func TestEventHistoryPatterns(t *testing.T) {
	hs := []EventHistory{
		{Topic: "com.", Match: wamp.MatchPrefix},
		{Topic: "com..t", Match: wamp.MatchWildcard, Limit: 1},
	}
	bubble(t, historyRealm(Limits{}, hs...), func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		prefix, wild := a.lookup("com.", "prefix"), a.lookup("com..t", "wildcard")
		p1 := uint64(a.publishAcked("com.a.t", nil))
		p2 := uint64(a.publishAcked("com.b", nil))
		p3 := uint64(a.publishAcked("com.c.t", nil))
		a.publishAcked("org.a.t", nil)
		pubs, topics := a.events(prefix)
		equal(t, "prefix", pubs, []uint64{p3, p2, p1})
		equal(t, "prefix topics", topics, []string{"com.c.t", "com.b", "com.a.t"})
		pubs, _ = a.events(wild)
		equal(t, "wildcard, limit 1", pubs, []uint64{p3})
	})
}

func TestEventHistorySubscription(t *testing.T) {
	bubble(t, historyRealm(Limits{}, EventHistory{Topic: "com.h"}), func(t *testing.T, r *Router) {
		obs := join(t, r.Gate(), "realm1", nil)
		obs.subscribe(topicSubOnCreate, nil) // obs.quiet: none of these
		obs.subscribe(topicSubOnDelete, nil)
		onSubscribe := obs.subscribe(topicSubOnSubscribe, nil)
		onUnsubscribe := obs.subscribe(topicSubOnUnsubscribe, nil)
		a := join(t, r.Gate(), "realm1", nil)
		id := a.lookup("com.h", "exact")
		equal(t, "list", a.result("wamp.subscription.list", nil, nil), wamp.Dict{
			"exact": wamp.List{id}, "prefix": wamp.List{}, "wildcard": wamp.List{},
		})
		sub := a.subscribe("com.h", nil)
		equal(t, "a joins the router's subscription", uint64(sub), id)
		equal(t, "on_subscribe, no on_create", obs.expectEvent(onSubscribe), wamp.List{uint64(a.id), id})
		p1 := uint64(a.publishAcked("com.h", nil, 1))
		a.send(&wamp.Unsubscribe{Request: a.nextReq(), Subscription: sub})
		expect[*wamp.Unsubscribed](a)
		equal(t, "on_unsubscribe, no on_delete", obs.expectEvent(onUnsubscribe), wamp.List{uint64(a.id), id})
		obs.quiet()
		equal(t, "still there", a.lookup("com.h", "exact"), id)
		equal(t, "no subscriber", a.result("wamp.subscription.count_subscribers", wamp.List{id}, nil), 0)
		p2 := uint64(a.publishAcked("com.h", nil, 2))
		got, _ := a.eventsKw(nil, wamp.Dict{"subscription": id, "limit": 5})
		equal(t, "events with and without subscribers", got, []uint64{p2, p1})
	})
}

func TestEventHistoryBytesLimit(t *testing.T) {
	big := string(make([]byte, 600))
	lim := Limits{HistoryBytesPerRealm: 2000}
	hs := []EventHistory{{Topic: "com.a"}, {Topic: "com.b"}}
	bubble(t, historyRealm(lim, hs...), func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		subA, subB := a.lookup("com.a", "exact"), a.lookup("com.b", "exact")
		var pubs []uint64
		for range 4 {
			pubs = append(pubs, uint64(a.publishAcked("com.a", nil, big)))
		}
		got, _ := a.events(subA)
		equal(t, "oldest dropped to fit the bytes", got, []uint64{pubs[3], pubs[2], pubs[1]})
		a.publishAcked("com.b", nil, big) // no room left: a holds it
		got, _ = a.events(subA)
		equal(t, "history a after b took its share", got, []uint64{pubs[3], pubs[2], pubs[1]})
		got, _ = a.events(subB)
		equal(t, "history b", got, []uint64(nil))
		a.publishAcked("com.a", nil, string(make([]byte, 3000)))
		got, _ = a.events(subA)
		equal(t, "too big for the realm: not kept, history a empty", got, []uint64(nil))
		if n := r.realm("realm1").limits.refused.Load(); n != 2 {
			t.Errorf("refusals = %d, want 2", n)
		}
	})
}

func TestEventHistoryOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    EventHistory
		ok   bool
	}{
		{"exact", EventHistory{Topic: "com.h"}, true},
		{"prefix", EventHistory{Topic: "com.", Match: wamp.MatchPrefix, Limit: 5}, true},
		{"wildcard", EventHistory{Topic: "com..h", Match: wamp.MatchWildcard}, true},
		{"bad topic", EventHistory{Topic: "com..h"}, false},
		{"bad match", EventHistory{Topic: "com.h", Match: "regex"}, false},
		{"negative limit", EventHistory{Topic: "com.h", Limit: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(historyRealm(Limits{}, tc.h))
			if err == nil {
				r.Close()
			}
			if (err == nil) != tc.ok {
				t.Errorf("New: %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// TestNewestMerged: the events of several nodes' histories merge newest
// first by time_ns, each node's in its own order, at most n.
func TestNewestMerged(t *testing.T) {
	ev := func(name string, ns int64) wamp.Dict { return wamp.Dict{"time_ns": ns, "name": name} }
	remote := func(name string, ns int64) wamp.Object { return wamp.ObjectOf(ev(name, ns)) }
	for _, tc := range []struct {
		name  string
		lists []wamp.List
		n     int
		want  []string
	}{
		{"one node", []wamp.List{{ev("b", 2), ev("a", 1)}}, 10, []string{"b", "a"}},
		{"one node, limited", []wamp.List{{ev("c", 3), ev("b", 2), ev("a", 1)}}, 2, []string{"c", "b"}},
		{"one node, its order kept", []wamp.List{{ev("b", 1), ev("a", 2)}}, 10, []string{"b", "a"}},
		{"interleaved", []wamp.List{{ev("e", 5), ev("c", 3), ev("a", 1)}, {remote("d", 4), remote("b", 2)}}, 10, []string{"e", "d", "c", "b", "a"}},
		{"limited", []wamp.List{{ev("e", 5), ev("c", 3), ev("a", 1)}, {remote("d", 4), remote("b", 2)}}, 3, []string{"e", "d", "c"}},
		{"a tie: the earlier list first", []wamp.List{{ev("x", 7)}, {remote("y", 7)}}, 10, []string{"x", "y"}},
		{"an empty history", []wamp.List{{}, {remote("a", 1)}}, 10, []string{"a"}},
		{"none asked", []wamp.List{{ev("a", 1)}, {remote("b", 2)}}, 0, nil},
		{"none asked of one", []wamp.List{{ev("a", 1)}}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range newest(tc.lists, tc.n) {
				var d wamp.Dict
				switch e := e.(type) {
				case wamp.Dict:
					d = e
				case wamp.Object:
					d = e.Dict()
				}
				got = append(got, d["name"].(string))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("newest = %v, want %v", got, tc.want)
			}
		})
	}
}
