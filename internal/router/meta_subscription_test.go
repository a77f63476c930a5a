package router

import (
	"slices"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestSubscriptionMetaProcedures(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		b := join(t, r.Gate(), "realm1", nil)
		exact := a.subscribe("com.t", nil)
		b.subscribe("com.t", nil)
		prefix := a.subscribe("com.", wamp.Dict{"match": "prefix"})
		wild := a.subscribe("com..t", wamp.Dict{"match": "wildcard"})
		meta := a.subscribe(topicSessionOnJoin, nil)
		id := func(v wamp.ID) uint64 { return uint64(v) }

		equal(t, "list", a.result("wamp.subscription.list", nil, nil), wamp.Dict{
			"exact": wamp.List{id(exact)}, "prefix": wamp.List{id(prefix)}, "wildcard": wamp.List{id(wild)},
		})
		equal(t, "lookup exact", a.result("wamp.subscription.lookup", wamp.List{"com.t"}, nil), id(exact))
		equal(t, "lookup prefix", a.result("wamp.subscription.lookup", wamp.List{"com."}, wamp.Dict{"options": wamp.Dict{"match": "prefix"}}), id(prefix))
		equal(t, "lookup none", a.result("wamp.subscription.lookup", wamp.List{"com.u"}, nil), nil)
		equal(t, "lookup protected", a.result("wamp.subscription.lookup", wamp.List{string(topicSessionOnJoin)}, nil), nil)

		matched := a.result("wamp.subscription.match", wamp.List{"com.x.t"}, nil)
		equal(t, "match com.x.t", sortedIDs(matched), sorted(id(prefix), id(wild)))
		equal(t, "match com.t", sortedIDs(a.result("wamp.subscription.match", wamp.List{"com.t"}, nil)), sorted(id(exact), id(prefix)))
		equal(t, "match none", a.result("wamp.subscription.match", wamp.List{"org.t"}, nil), nil)
		equal(t, "match protected", a.result("wamp.subscription.match", wamp.List{string(topicSessionOnJoin)}, nil), nil)

		got := a.result("wamp.subscription.get", wamp.List{id(prefix)}, nil).(wamp.Dict)
		if _, ok := got["created"].(string); !ok {
			t.Errorf("created = %v", got["created"])
		}
		delete(got, "created")
		equal(t, "get", got, wamp.Dict{"id": id(prefix), "uri": "com.", "match": "prefix"})
		equal(t, "list_subscribers", sortedIDs(a.result("wamp.subscription.list_subscribers", wamp.List{id(exact)}, nil)), ids(a, b))
		equal(t, "count_subscribers", a.result("wamp.subscription.count_subscribers", nil, wamp.Dict{"subscription": id(exact)}), 2)
		for _, proc := range []wamp.URI{"wamp.subscription.get", "wamp.subscription.list_subscribers", "wamp.subscription.count_subscribers"} {
			a.callFails(proc, wamp.List{id(meta)}, nil, wamp.ErrNotAuthorized)
		}
		b.leave()
		equal(t, "count_subscribers after leave", a.result("wamp.subscription.count_subscribers", wamp.List{id(exact)}, nil), 1)
	})
}

func sorted(v ...uint64) []uint64 {
	slices.Sort(v)
	return v
}

func TestSubscriptionMetaEvents(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		obs := join(t, r.Gate(), "realm1", nil)
		subs := map[wamp.URI]wamp.ID{}
		for _, topic := range []wamp.URI{topicSubOnCreate, topicSubOnSubscribe, topicSubOnUnsubscribe, topicSubOnDelete} {
			subs[topic] = obs.subscribe(topic, nil)
		}
		obs.quiet() // subscriptions to wamp.* topics make no meta events
		a := join(t, r.Gate(), "realm1", nil)
		b := join(t, r.Gate(), "realm1", nil)
		sub := a.subscribe("com.", wamp.Dict{"match": "prefix"})
		sid := func(c *client) uint64 { return uint64(c.id) }

		created := obs.expectEvent(subs[topicSubOnCreate])
		details := created[1].(wamp.Dict)
		equal(t, "on_create session", created[0], sid(a))
		equal(t, "on_create details", []any{details["id"], details["uri"], details["match"]}, []any{uint64(sub), "com.", "prefix"})
		equal(t, "on_subscribe", obs.expectEvent(subs[topicSubOnSubscribe]), wamp.List{sid(a), uint64(sub)})

		b.subscribe("com.", wamp.Dict{"match": "prefix"})
		equal(t, "on_subscribe b", obs.expectEvent(subs[topicSubOnSubscribe]), wamp.List{sid(b), uint64(sub)})

		a.send(&wamp.Unsubscribe{Request: a.nextReq(), Subscription: sub})
		expect[*wamp.Unsubscribed](a)
		equal(t, "on_unsubscribe a", obs.expectEvent(subs[topicSubOnUnsubscribe]), wamp.List{sid(a), uint64(sub)})

		b.leave() // the last subscriber leaves
		equal(t, "on_unsubscribe b", obs.expectEvent(subs[topicSubOnUnsubscribe]), wamp.List{sid(b), uint64(sub)})
		equal(t, "on_delete", obs.expectEvent(subs[topicSubOnDelete]), wamp.List{sid(b), uint64(sub)})

		a.subscribe("wamp.session.on_leave", nil)
		obs.quiet()
	})
}
