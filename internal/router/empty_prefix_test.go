package router

import (
	"slices"
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// expectTopic receives an EVENT of subscription sub on topic (details
// "topic") and returns its arguments.
func (c *client) expectTopic(sub wamp.ID, topic wamp.URI) wamp.List {
	c.t.Helper()
	ev := expect[*wamp.Event](c)
	if ev.Subscription != sub || ev.Details["topic"] != string(topic) {
		c.t.Fatalf("EVENT of subscription %d on %v %v, want %d on %s", ev.Subscription, ev.Details["topic"], ev.Args, sub, topic)
	}
	return ev.Args
}

// TestEmptyPrefixSubscription: a prefix subscription to "" (MQTT's "#")
// is accepted, as Crossbar's broker accepts it, and matches every topic:
// the router's meta events too, its own subscription's among them.
func TestEmptyPrefixSubscription(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		all := join(t, r.Gate(), "realm1", nil)
		id := all.subscribe("", wamp.Dict{"match": "prefix"})
		all.expectTopic(id, topicSubOnCreate)
		equal(t, "on_subscribe", all.expectTopic(id, topicSubOnSubscribe), wamp.List{uint64(all.id), uint64(id)})

		pub := join(t, r.Gate(), "realm1", nil)
		all.expectTopic(id, topicSessionOnJoin)
		for _, topic := range []wamp.URI{"com.a", "x", "org.example.deep.topic", "wamp"} {
			pub.publish(topic, nil, string(topic))
			equal(t, "args", all.expectTopic(id, topic), wamp.List{string(topic)})
		}
		all.quiet()

		all.send(&wamp.Unsubscribe{Request: all.nextReq(), Subscription: id})
		expect[*wamp.Unsubscribed](all)
		pub.publish("com.a", nil)
		all.quiet()
		if n := r.Stats().Realms["realm1"].Subscriptions; n != 0 {
			t.Errorf("%d subscriptions left", n)
		}
	})
}

// TestEmptyPatterns: which empty patterns SUBSCRIBE and REGISTER accept,
// under loose and strict URI rules, as autobahn's patterns that Crossbar
// checks them against: the empty prefix and the empty (one-component)
// wildcard, never an empty exact URI.
func TestEmptyPatterns(t *testing.T) {
	tests := []struct {
		match string
		want  bool
	}{
		{wamp.MatchExact, false},
		{wamp.MatchPrefix, true},
		{wamp.MatchWildcard, true},
	}
	for _, strict := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.match
			if strict {
				name += " strict"
			}
			t.Run(name, func(t *testing.T) {
				opts := Options{Realms: []RealmOptions{{Name: "realm1", StrictURIs: strict, DisableMetaAPI: true}}}
				bubble(t, opts, func(t *testing.T, r *Router) {
					c := join(t, internalGate(r), "realm1", nil)
					c.send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{"match": tt.match}, Topic: ""})
					c.send(&wamp.Register{Request: 2, Options: wamp.Dict{"match": tt.match}, Procedure: ""})
					if tt.want {
						expect[*wamp.Subscribed](c)
						expect[*wamp.Registered](c)
						return
					}
					c.expectError(wamp.ErrInvalidURI)
					c.expectError(wamp.ErrInvalidURI)
				})
			})
		}
	}
}

// TestEmptyWildcardSubscription: the wildcard "" is one empty component,
// so it matches every one-component topic and no other.
func TestEmptyWildcardSubscription(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", DisableMetaAPI: true}}}, func(t *testing.T, r *Router) {
		sub := join(t, r.Gate(), "realm1", nil)
		id := sub.subscribe("", wamp.Dict{"match": "wildcard"})
		pub := join(t, r.Gate(), "realm1", nil)
		pub.publish("com.a", nil)
		pub.publish("x", nil)
		sub.expectTopic(id, "x")
		sub.quiet()
	})
}

// TestEmptyPrefixAuthorization: SUBSCRIBE to the "" prefix is authorized
// against the URI "" (as Crossbar's broker asks), so only a role whose
// permissions cover "" itself may subscribe to everything.
func TestEmptyPrefixAuthorization(t *testing.T) {
	subscribe := auth.Actions{Subscribe: true}
	authz := auth.NewStaticAuthorizer(map[string][]auth.Rule{
		"all":         {{URI: "", Match: uriindex.Prefix, Allow: subscribe}},
		"com":         {{URI: "com.", Match: uriindex.Prefix, Allow: subscribe}},
		"exact-empty": {{URI: "", Match: uriindex.Exact, Allow: subscribe}},
		"all-but-empty": {
			{URI: "", Match: uriindex.Prefix, Allow: subscribe},
			{URI: "", Match: uriindex.Exact},
		},
	})
	tests := []struct {
		role string
		want bool
	}{
		{"all", true},
		{"com", false},
		{"exact-empty", true},
		{"all-but-empty", false},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: authz}}}, func(t *testing.T, r *Router) {
				c := ticketJoin(t, r.Gate(ticketAuth{role: tt.role}), "realm1", "alice")
				c.send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{"match": "prefix"}, Topic: ""})
				if tt.want {
					expect[*wamp.Subscribed](c)
				} else if e := c.expectError(wamp.ErrNotAuthorized); e.Request != 1 || e.RequestType != wamp.TypeSubscribe {
					t.Errorf("ERROR %+v", e)
				}
			})
		})
	}
}

// TestEmptyPrefixAuthorizerAsked: a dynamic authorizer is asked about
// the URI "" for a SUBSCRIBE to the "" prefix, with the match in the
// options.
func TestEmptyPrefixAuthorizerAsked(t *testing.T) {
	type ask struct {
		action auth.Action
		uri    wamp.URI
	}
	var asked []ask
	authz := authzFunc(func(_ *auth.Identity, a auth.Action, uri wamp.URI) auth.Permission {
		asked = append(asked, ask{a, uri})
		return auth.Permission{Allow: false}
	})
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: authz}}}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		c.send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{"match": "prefix"}, Topic: ""})
		c.expectError(wamp.ErrNotAuthorized)
		if !slices.Contains(asked, ask{auth.ActionSubscribe, ""}) {
			t.Errorf("authorizer asked %v", asked)
		}
	})
}

// TestEmptyPrefixMeta: the subscription meta API names the "" prefix
// subscription like any other: lookup finds it, match returns it for
// every topic, get gives its uri "".
func TestEmptyPrefixMeta(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		sub := join(t, r.Gate(), "realm1", nil)
		id := sub.subscribe("", wamp.Dict{"match": "prefix"})
		a := join(t, r.Gate(), "realm1", nil)
		want := uint64(id)
		prefix := wamp.Dict{"options": wamp.Dict{"match": "prefix"}}
		equal(t, "lookup", a.result("wamp.subscription.lookup", wamp.List{""}, prefix), want)
		a.callFails("wamp.subscription.lookup", wamp.List{""}, nil, wamp.ErrInvalidURI)
		equal(t, "match", a.result("wamp.subscription.match", wamp.List{"any.topic"}, nil), wamp.List{want})
		equal(t, "list", a.result("wamp.subscription.list", nil, nil), wamp.Dict{
			"exact": wamp.List{}, "prefix": wamp.List{want}, "wildcard": wamp.List{},
		})
		got := a.result("wamp.subscription.get", wamp.List{want}, nil).(wamp.Dict)
		equal(t, "get", []any{got["id"], got["uri"], got["match"]}, []any{want, "", "prefix"})
	})
}

// TestEmptyPrefixRetained: get_retained on the "" prefix sends every
// retained event.
func TestEmptyPrefixRetained(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", DisableMetaAPI: true}}}, func(t *testing.T, r *Router) {
		pub := join(t, r.Gate(), "realm1", nil)
		for _, topic := range []wamp.URI{"com.a", "x"} {
			pub.publish(topic, wamp.Dict{"retain": true, "acknowledge": true}, string(topic)[len(topic)-1:])
			expect[*wamp.Published](pub)
		}
		sub := join(t, r.Gate(), "realm1", nil)
		id := sub.subscribe("", wamp.Dict{"match": "prefix", "get_retained": true})
		var got []string
		for range 2 {
			ev := expect[*wamp.Event](sub)
			if ev.Subscription != id || ev.Details["retained"] != true {
				t.Fatalf("EVENT %+v", ev)
			}
			got = append(got, ev.Args[0].(string))
		}
		slices.Sort(got)
		equal(t, "retained", got, []string{"a", "x"})
		sub.quiet()
	})
}

// TestEmptyPrefixRegistration: a trusted session's "" prefix
// registration answers every call that nothing more specific does (an
// exact or longer prefix registration wins); the router's own procedures
// stay the router's. The registration meta API finds it.
func TestEmptyPrefixRegistration(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		all := join(t, internalGate(r), "realm1", nil)
		allID := all.register("", wamp.Dict{"match": "prefix"})
		exact := join(t, r.Gate(), "realm1", nil)
		exactID := exact.register("com.exact", nil)
		caller := join(t, r.Gate(), "realm1", nil)

		for _, tt := range []struct {
			proc   wamp.URI
			callee *client
			reg    wamp.ID
		}{{"com.other", all, allID}, {"x", all, allID}, {"com.exact", exact, exactID}} {
			caller.call(tt.proc, nil)
			inv := expect[*wamp.Invocation](tt.callee)
			if inv.Registration != tt.reg {
				t.Errorf("%s: INVOCATION %+v", tt.proc, inv)
			}
			tt.callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
			expect[*wamp.Result](caller)
		}
		equal(t, "session count", caller.result("wamp.session.count", nil, nil), 3)
		prefix := wamp.Dict{"options": wamp.Dict{"match": "prefix"}}
		equal(t, "lookup", caller.result("wamp.registration.lookup", wamp.List{""}, prefix), uint64(allID))
		equal(t, "match", caller.result("wamp.registration.match", wamp.List{"any.thing"}, nil), uint64(allID))
		all.quiet()
	})
}

// TestEmptyPrefixHistory: an event history of the prefix "" keeps the
// events of every topic, the router's meta events too (a's join).
func TestEmptyPrefixHistory(t *testing.T) {
	bubble(t, historyRealm(Limits{}, EventHistory{Topic: "", Match: wamp.MatchPrefix, Limit: 10}), func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		sub := a.lookup("", "prefix")
		com, x := uint64(a.publishAcked("com.a", nil)), uint64(a.publishAcked("x", nil))
		pubs, topics := a.events(sub)
		equal(t, "topics", topics, []string{"x", "com.a", string(topicSessionOnJoin)})
		equal(t, "publications", pubs[:2], []uint64{x, com})
	})
}
