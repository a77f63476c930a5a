package router

import (
	"slices"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestFabricEventMatching(t *testing.T) {
	tests := []struct {
		name    string
		pattern wamp.URI
		match   string
		topic   wamp.URI
		want    bool
	}{
		{"exact", "com.a.b", "exact", "com.a.b", true},
		{"exact other", "com.a.b", "exact", "com.a.bc", false},
		{"prefix", "com.a", "prefix", "com.a.b", true},
		{"prefix string rule", "com.a", "prefix", "com.ab", true},
		{"prefix other", "com.a", "prefix", "com.b", false},
		{"wildcard", "com..c", "wildcard", "com.b.c", true},
		{"wildcard other", "com..c", "wildcard", "com.b.c.d", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster(t, 2, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
				sub := join(t, rs[1].Gate(), "realm1", nil)
				id := sub.subscribe(tt.pattern, wamp.Dict{"match": tt.match})
				pub := join(t, rs[0].Gate(), "realm1", nil)
				pub.publish(tt.topic, nil, "hi")
				if !tt.want {
					sub.quiet()
					if _, received := ns[1].stats(); received != 0 {
						t.Errorf("%d envelopes to a node without interest", received)
					}
					return
				}
				ev := expect[*wamp.Event](sub)
				if ev.Subscription != id || !slices.Equal(ev.Args, wamp.List{"hi"}) {
					t.Errorf("EVENT %+v", ev)
				}
				if got := ev.Details["topic"]; (got == string(tt.topic)) != (tt.match != "exact") {
					t.Errorf("details.topic = %v", got)
				}
				sub.quiet()
				if _, received := ns[1].stats(); received != 1 {
					t.Errorf("%d envelopes, want 1", received)
				}
			})
		})
	}
}

// TestFabricOverlapping: one envelope per publication and node; the
// receiving node delivers it once per matching subscription, as one node
// does.
func TestFabricOverlapping(t *testing.T) {
	cluster(t, 3, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
		all := join(t, rs[1].Gate(), "realm1", nil)
		ids := []wamp.ID{
			all.subscribe("com.a.b", nil),
			all.subscribe("com.a", wamp.Dict{"match": "prefix"}),
			all.subscribe("com..b", wamp.Dict{"match": "wildcard"}),
		}
		one := join(t, rs[1].Gate(), "realm1", nil)
		one.subscribe("com.a.b", nil)
		local := join(t, rs[0].Gate(), "realm1", nil)
		local.subscribe("com.a", wamp.Dict{"match": "prefix"})
		pub := join(t, rs[0].Gate(), "realm1", nil)
		pub.publish("com.a.b", nil)
		var got []wamp.ID
		for range 3 {
			got = append(got, expect[*wamp.Event](all).Subscription)
		}
		slices.Sort(got)
		slices.Sort(ids)
		if !slices.Equal(got, ids) {
			t.Errorf("events on %v, want %v", got, ids)
		}
		expect[*wamp.Event](one)
		expect[*wamp.Event](local)
		for _, c := range []*client{all, one, local, pub} {
			c.quiet()
		}
		_, to1 := ns[1].stats()
		_, to2 := ns[2].stats()
		if to1 != 1 || to2 != 0 {
			t.Errorf("envelopes: %d to the subscribers' node, %d to the idle one; want 1, 0", to1, to2)
		}
	})
}

// TestFabricInterest: the fabric hears of a subscription's first
// subscriber on the node and of its last one gone, whether it
// unsubscribes or leaves, and of nothing in between.
func TestFabricInterest(t *testing.T) {
	hist := []EventHistory{{Topic: "com.h", Match: "exact", Limit: 10}}
	opts := Options{Realms: []RealmOptions{{Name: "realm1", EventHistory: hist}}}
	cluster(t, 1, opts, func(t *testing.T, rs []*Router, ns []*evNode) {
		a, b := join(t, rs[0].Gate(), "realm1", nil), join(t, rs[0].Gate(), "realm1", nil)
		sa := a.subscribe("com.t", wamp.Dict{"match": "prefix"})
		b.subscribe("com.t", wamp.Dict{"match": "prefix"})
		a.send(&wamp.Unsubscribe{Request: a.nextReq(), Subscription: sa})
		expect[*wamp.Unsubscribed](a)
		h := a.subscribe("com.h", nil)
		a.send(&wamp.Unsubscribe{Request: a.nextReq(), Subscription: h})
		expect[*wamp.Unsubscribed](a)
		b.send(&wamp.Goodbye{Reason: wamp.ErrCloseRealm, Details: wamp.Dict{}})
		expect[*wamp.Goodbye](b)
		b.waitDone()
		log, _ := ns[0].stats()
		want := []string{"+prefix com.t", "+exact com.h", "-exact com.h", "-prefix com.t"}
		if !slices.Equal(log, want) {
			t.Errorf("interest %q, want %q", log, want)
		}
	})
}

// TestFabricSubscriptionIDs: every node gives a subscription the same ID,
// the history's included; another realm's differs.
func TestFabricSubscriptionIDs(t *testing.T) {
	hist := []EventHistory{{Topic: "com.h", Match: "prefix"}}
	opts := Options{Realms: []RealmOptions{{Name: "realm1", EventHistory: hist}, {Name: "realm2"}}}
	cluster(t, 2, opts, func(t *testing.T, rs []*Router, ns []*evNode) {
		a, b := join(t, rs[0].Gate(), "realm1", nil), join(t, rs[1].Gate(), "realm1", nil)
		other := join(t, rs[0].Gate(), "realm2", nil)
		for _, s := range []struct {
			topic wamp.URI
			match string
		}{{"com.t", "exact"}, {"com.t", "prefix"}, {"com..t", "wildcard"}, {"com.h", "prefix"}} {
			opts := wamp.Dict{"match": s.match}
			ida, idb, idr2 := a.subscribe(s.topic, opts), b.subscribe(s.topic, opts), other.subscribe(s.topic, opts)
			if ida != idb || idr2 == ida {
				t.Errorf("%s %s: IDs %d, %d on the other node, %d on realm2", s.match, s.topic, ida, idb, idr2)
			}
		}
	})
}

// TestFabricExclusion: exclude/eligible by session, authid and authrole
// select the receivers on the other node; exclude_me the publisher's own
// subscription on its node.
func TestFabricExclusion(t *testing.T) {
	tests := []struct {
		name string
		opts func(ids map[string]wamp.ID) wamp.Dict
		want []string
	}{
		{"default excludes me", func(map[string]wamp.ID) wamp.Dict { return nil }, []string{"alice", "bob", "carol"}},
		{"exclude_me false", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude_me": false} }, []string{"alice", "bob", "carol", "dave"}},
		{"exclude session", func(ids map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude": []any{uint64(ids["bob"])}} }, []string{"alice", "carol"}},
		{"eligible session", func(ids map[string]wamp.ID) wamp.Dict {
			return wamp.Dict{"eligible": []any{uint64(ids["bob"]), uint64(ids["dave"])}}
		}, []string{"bob"}},
		{"eligible empty", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"eligible": []any{}} }, nil},
		{"exclude authid", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude_authid": []any{"alice"}} }, []string{"bob", "carol"}},
		{"eligible authid", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"eligible_authid": []any{"alice", "dave"}} }, []string{"alice"}},
		{"exclude authrole", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude_authrole": []any{"admin"}} }, []string{"alice", "bob"}},
		{"eligible authrole", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"eligible_authrole": []any{"admin"}} }, []string{"carol"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster(t, 2, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
				users, admins := rs[1].Gate(ticketAuth{role: "user"}), rs[1].Gate(ticketAuth{role: "admin"})
				cs := map[string]*client{
					"alice": ticketJoin(t, users, "realm1", "alice"),
					"bob":   ticketJoin(t, users, "realm1", "bob"),
					"carol": ticketJoin(t, admins, "realm1", "carol"),
					"dave":  ticketJoin(t, rs[0].Gate(ticketAuth{role: "user"}), "realm1", "dave"),
				}
				ids := map[string]wamp.ID{}
				for name, c := range cs {
					ids[name] = c.id
					c.subscribe("com.t", nil)
				}
				cs["dave"].publish("com.t", tt.opts(ids))
				for name, c := range cs {
					if slices.Contains(tt.want, name) {
						expect[*wamp.Event](c)
					}
					c.quiet()
				}
			})
		})
	}
}

// TestFabricDisclosureAndAck: the publisher's identity reaches the other
// node when disclosed; PUBLISHED answers an acknowledged publication.
func TestFabricDisclosureAndAck(t *testing.T) {
	cluster(t, 2, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
		sub := join(t, rs[1].Gate(), "realm1", nil)
		sub.subscribe("com", wamp.Dict{"match": "prefix"})
		pub := ticketJoin(t, rs[0].Gate(ticketAuth{role: "user"}), "realm1", "alice")
		req := pub.publish("com.t", wamp.Dict{"disclose_me": true, "acknowledge": true}, 1)
		if p := expect[*wamp.Published](pub); p.Request != req {
			t.Errorf("PUBLISHED %+v", p)
		}
		ev := expect[*wamp.Event](sub)
		d := ev.Details
		if d["publisher"] != uint64(pub.id) || d["publisher_authid"] != "alice" || d["publisher_authrole"] != "user" || d["topic"] != "com.t" {
			t.Errorf("details %v", d)
		}
		pub.publish("com.t", nil, 2)
		if d := expect[*wamp.Event](sub).Details; len(d) != 1 {
			t.Errorf("undisclosed details %v", d)
		}
	})
}

// TestFabricPublisherOrder: one publisher's events reach a subscriber on
// another node in publication order.
func TestFabricPublisherOrder(t *testing.T) {
	cluster(t, 2, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
		sub := join(t, rs[1].Gate(), "realm1", nil)
		sub.subscribe("com.t", nil)
		pub := join(t, rs[0].Gate(), "realm1", nil)
		const n = 200
		go func() {
			for i := range n {
				pub.publish("com.t", nil, i)
			}
		}()
		for i := range n {
			if ev := expect[*wamp.Event](sub); ev.Args[0] != i {
				t.Fatalf("event %d carries %v", i, ev.Args)
			}
		}
	})
}

// TestFabricLocalRealm: a realm kept local is not linked: its
// subscriptions are the node's own, and its fabric is never asked.
func TestFabricLocalRealm(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1"}, {Name: "here", Local: true}}}
	cluster(t, 2, opts, func(t *testing.T, rs []*Router, ns []*evNode) {
		sub := join(t, rs[1].Gate(), "here", nil)
		sub.subscribe("com.t", nil)
		join(t, rs[0].Gate(), "here", nil).publish("com.t", nil)
		sub.quiet()
		log, _ := ns[1].stats()
		if _, linked := ns[1].links["here"]; linked || len(log) != 0 {
			t.Errorf("local realm linked: interest %q", log)
		}
		rs[1].RemoveRealm("realm1")
		if !slices.Equal(ns[1].closed, []wamp.URI{"realm1"}) {
			t.Errorf("closed fabrics %v", ns[1].closed)
		}
	})
}

// TestFabricRetained: a retained publication is kept on the other nodes
// too, for their subscribers asking get_retained, with its ID and
// details; seen again on its own node it changes nothing.
func TestFabricRetained(t *testing.T) {
	cluster(t, 2, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
		pub := ticketJoin(t, rs[0].Gate(ticketAuth{role: "user"}), "realm1", "alice")
		pub.publish("com.t", wamp.Dict{"retain": true, "disclose_me": true, "acknowledge": true}, "kept")
		id := expect[*wamp.Published](pub).Publication
		for _, r := range rs {
			sub := join(t, r.Gate(), "realm1", nil)
			sub.subscribe("com", wamp.Dict{"match": "prefix", "get_retained": true})
			ev := expect[*wamp.Event](sub)
			if ev.Publication != id || ev.Details["retained"] != true || ev.Details["publisher_authid"] != "alice" ||
				!slices.Equal(ev.Args, wamp.List{"kept"}) {
				t.Errorf("retained EVENT %+v", ev)
			}
		}
		st := &rs[0].realm("realm1").broker.retained
		st.mu.Lock()
		defer st.mu.Unlock()
		if share := st.shares[pub.id]; share == nil || share.n != 1 || st.total.n != 1 {
			t.Errorf("publisher's share %+v, total %+v; want the event counted in both", share, st.total)
		}
	})
}

// retainedUsage returns the realm's retained total on r and the share of
// session id (zero when it has none).
func retainedUsage(r *Router, id wamp.ID) (total, share usage) {
	st := &r.realm("realm1").broker.retained
	st.mu.Lock()
	defer st.mu.Unlock()
	if s := st.shares[id]; s != nil {
		share = *s
	}
	return st.total, share
}

// TestFabricRetainedRace: when two nodes retain an event to one topic at
// once, each node keeps its own first, then the table's events in the
// table's order: an event of this node's session that another node's
// replaced, and that the table then brings back, counts in its
// publisher's share again: a share counts its session's events that are
// retained now.
func TestFabricRetainedRace(t *testing.T) {
	cluster(t, 2, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
		a := join(t, rs[0].Gate(), "realm1", nil)
		a.publish("com.x", wamp.Dict{"retain": true, "acknowledge": true}, "a")
		mine := expect[*wamp.Published](a).Publication
		link := ns[0].links["realm1"]
		remote := func(id wamp.ID) *Publication {
			return &Publication{Topic: "com.x", ID: id, Details: wamp.Dict{}, Payload: wamp.Payload{Args: wamp.List{"b"}}}
		}
		size := wamp.PayloadSize("com.x", remote(0).Payload, nil)
		steps := []struct {
			name  string
			id    wamp.ID // the publication the table brings
			share int     // a's share after it
		}{
			{"another node's replaces a's", 77, 0},
			{"the table brings a's back, as the last", mine, 1},
			{"a's again: nothing changes", mine, 1},
			{"another node's replaces it again", 78, 0},
			{"yet another of another node's", 79, 0},
			{"a's comes back after both", mine, 1},
			{"another node's, then a's alone was displaced", 80, 0},
		}
		for _, s := range steps {
			link.Retain(remote(s.id))
			total, share := retainedUsage(rs[0], a.id)
			if total.n != 1 || share.n != s.share || (s.share == 1) != (share.bytes == size) {
				t.Errorf("%s: total %+v, a's share %+v; want 1 event, %d in a's share", s.name, total, share, s.share)
			}
		}
	})
}

// TestFabricRetainedPastLimit: another node's retained event is kept even
// past the realm's limits (its node admitted it, and every node keeps the
// table's events), without a refusal counted; it counts in the realm's
// total, so this node's next retained event on a new topic is refused.
func TestFabricRetainedPastLimit(t *testing.T) {
	logs := &recordHandler{}
	cluster(t, 2, limitRealm(Limits{RetainedEventsPerRealm: 1}, logs), func(t *testing.T, rs []*Router, ns []*evNode) {
		a := join(t, rs[0].Gate(), "realm1", nil)
		a.publish("com.a", wamp.Dict{"retain": true, "acknowledge": true}, 1)
		expect[*wamp.Published](a)
		ns[0].links["realm1"].Retain(&Publication{Topic: "com.b", ID: 5, Details: wamp.Dict{}, Payload: wamp.Payload{Args: wamp.List{2}}})
		if total, _ := retainedUsage(rs[0], a.id); total.n != 2 {
			t.Errorf("total %+v, want the other node's event kept past the limit", total)
		}
		if n := rs[0].realm("realm1").limits.refused.Load(); n != 0 {
			t.Errorf("%d refusals counted for the other node's event", n)
		}
		a.expectRefused(wamp.TypePublish, a.publish("com.c", wamp.Dict{"retain": true, "acknowledge": true}, 3))
		sub := join(t, rs[0].Gate(), "realm1", nil)
		sub.subscribe("com.", wamp.Dict{"match": "prefix", "get_retained": true})
		for range 2 {
			expect[*wamp.Event](sub)
		}
		sub.quiet()
	})
}
