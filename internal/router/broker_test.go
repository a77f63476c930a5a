package router

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

func TestSubscriptionMatching(t *testing.T) {
	tests := []struct {
		name      string
		pattern   wamp.URI
		match     string
		topic     wamp.URI
		want      bool
		wantTopic bool // details.topic expected
	}{
		{"exact", "com.a.b", "exact", "com.a.b", true, false},
		{"exact other", "com.a.b", "exact", "com.a.bc", false, false},
		{"prefix same", "com.a", "prefix", "com.a", true, true},
		{"prefix component", "com.a", "prefix", "com.a.b", true, true},
		{"prefix string rule", "com.a", "prefix", "com.ab", true, true},
		{"prefix other", "com.a", "prefix", "com.b", false, false},
		{"wildcard", "com..c", "wildcard", "com.b.c", true, true},
		{"wildcard length", "com..c", "wildcard", "com.b.c.d", false, false},
		{"wildcard other", "com..c", "wildcard", "com.b.d", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				sub := join(t, r.Gate(), "realm1", nil)
				id := sub.subscribe(tt.pattern, wamp.Dict{"match": tt.match})
				pub := join(t, r.Gate(), "realm1", nil)
				pub.publish(tt.topic, nil, "hi")
				if !tt.want {
					sub.quiet()
					return
				}
				ev := expect[*wamp.Event](sub)
				if ev.Subscription != id || !slices.Equal(ev.Args, wamp.List{"hi"}) {
					t.Errorf("EVENT %+v", ev)
				}
				if got := ev.Details["topic"]; (got == string(tt.topic)) != tt.wantTopic {
					t.Errorf("details.topic = %v", got)
				}
			})
		})
	}
}

func TestSharedSubscriptionIDs(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
		ida := a.subscribe("com.t", nil)
		idb := b.subscribe("com.t", nil)
		again := a.subscribe("com.t", wamp.Dict{"match": "exact"})
		pfx := a.subscribe("com.t", wamp.Dict{"match": "prefix"})
		if ida != idb || ida != again || pfx == ida {
			t.Errorf("IDs %d %d %d %d", ida, idb, again, pfx)
		}
		if n := r.Stats().Realms["realm1"].Subscriptions; n != 2 {
			t.Errorf("%d subscriptions", n)
		}
		// a is subscribed once to the exact subscription: one event each.
		b.publish("com.t", nil)
		got := []wamp.ID{expect[*wamp.Event](a).Subscription, expect[*wamp.Event](a).Subscription}
		if !slices.Contains(got, ida) || !slices.Contains(got, pfx) {
			t.Errorf("events on %v", got)
		}
		a.quiet()
	})
}

func TestUnsubscribe(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
		id := a.subscribe("com.t", nil)
		b.subscribe("com.t", nil)
		a.send(&wamp.Unsubscribe{Request: 99, Subscription: id})
		if u := expect[*wamp.Unsubscribed](a); u.Request != 99 {
			t.Errorf("UNSUBSCRIBED %+v", u)
		}
		a.send(&wamp.Unsubscribe{Request: 100, Subscription: id})
		a.expectError(wamp.ErrNoSuchSubscription)
		a.publish("com.t", nil)
		expect[*wamp.Event](b)
		a.quiet()
		b.send(&wamp.Unsubscribe{Request: 1, Subscription: id})
		expect[*wamp.Unsubscribed](b)
		if n := r.Stats().Realms["realm1"].Subscriptions; n != 0 {
			t.Errorf("%d subscriptions left", n)
		}
	})
}

func TestSubscribeErrors(t *testing.T) {
	tests := []struct {
		name  string
		topic wamp.URI
		opts  wamp.Dict
		want  wamp.URI
	}{
		{"invalid uri", "com..a", nil, wamp.ErrInvalidURI},
		{"empty uri", "", nil, wamp.ErrInvalidURI},
		{"unknown match", "com.a", wamp.Dict{"match": "regex"}, wamp.ErrInvalidArgument},
		{"match not a string", "com.a", wamp.Dict{"match": 1}, wamp.ErrInvalidArgument},
		{"not authorized", "private.a", nil, wamp.ErrNotAuthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
				c := join(t, r.Gate(), "realm1", nil)
				c.send(&wamp.Subscribe{Request: 5, Options: orEmpty(tt.opts), Topic: tt.topic})
				if e := c.expectError(tt.want); e.RequestType != wamp.TypeSubscribe || e.Request != 5 {
					t.Errorf("ERROR %+v", e)
				}
			})
		})
	}
}

// denyPrivate refuses everything under "private." and discloses under
// "disclosed.".
var denyPrivate = authzFunc(func(_ *auth.Identity, _ auth.Action, uri wamp.URI) auth.Permission {
	return auth.Permission{Allow: !hasPrefix(uri, "private."), Disclose: hasPrefix(uri, "disclosed.")}
})

func hasPrefix(u wamp.URI, p string) bool { return len(u) >= len(p) && string(u[:len(p)]) == p }

func TestPublishAcknowledge(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		req := c.publish("com.a", wamp.Dict{"acknowledge": true})
		if p := expect[*wamp.Published](c); p.Request != req || p.Publication == 0 {
			t.Errorf("PUBLISHED %+v", p)
		}
		c.publish("private.a", wamp.Dict{"acknowledge": true})
		c.expectError(wamp.ErrNotAuthorized)
		c.publish("bad..uri", wamp.Dict{"acknowledge": true})
		c.expectError(wamp.ErrInvalidURI)
		c.publish("wamp.session.on_join", wamp.Dict{"acknowledge": true})
		c.expectError(wamp.ErrInvalidURI)
		c.publish("com.a", wamp.Dict{"acknowledge": true, "exclude": "x"})
		c.expectError(wamp.ErrInvalidArgument)
		// Without acknowledge: no answer at all.
		c.publish("private.a", nil)
		c.publish("bad..uri", nil)
		c.publish("com.a", nil)
		c.quiet()
	})
}

func TestPublishNotAuthorizedDeliversNothing(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
		sub := join(t, r.Gate(), "realm1", nil)
		sub.subscribe("private", wamp.Dict{"match": "prefix"})
		c := join(t, r.Gate(), "realm1", nil)
		c.publish("private.a", nil)
		sub.quiet()
	})
}

func TestPublishExclusion(t *testing.T) {
	// Subscribers: alice (role user), bob (role user), carol (role admin);
	// the publisher is dave (role user), also subscribed.
	tests := []struct {
		name string
		opts func(ids map[string]wamp.ID) wamp.Dict
		want []string
	}{
		{"default excludes me", func(map[string]wamp.ID) wamp.Dict { return nil }, []string{"alice", "bob", "carol"}},
		{"exclude_me false", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude_me": false} }, []string{"alice", "bob", "carol", "dave"}},
		{"exclude session", func(ids map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude": []any{uint64(ids["bob"])}} }, []string{"alice", "carol"}},
		{"eligible session", func(ids map[string]wamp.ID) wamp.Dict {
			return wamp.Dict{"eligible": []any{uint64(ids["bob"]), uint64(ids["carol"])}}
		}, []string{"bob", "carol"}},
		{"eligible empty", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"eligible": []any{}} }, nil},
		{"exclude authid", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude_authid": []any{"alice"}} }, []string{"bob", "carol"}},
		{"eligible authid", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"eligible_authid": []any{"alice", "dave"}} }, []string{"alice"}},
		{"exclude authrole", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"exclude_authrole": []any{"admin"}} }, []string{"alice", "bob"}},
		{"eligible authrole", func(map[string]wamp.ID) wamp.Dict { return wamp.Dict{"eligible_authrole": []any{"admin"}} }, []string{"carol"}},
		{"eligible role minus exclude", func(ids map[string]wamp.ID) wamp.Dict {
			return wamp.Dict{"eligible_authrole": []any{"user"}, "exclude": []any{float64(ids["alice"])}}
		}, []string{"bob"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				users, admins := r.Gate(ticketAuth{role: "user"}), r.Gate(ticketAuth{role: "admin"})
				cs := map[string]*client{
					"alice": ticketJoin(t, users, "realm1", "alice"),
					"bob":   ticketJoin(t, users, "realm1", "bob"),
					"carol": ticketJoin(t, admins, "realm1", "carol"),
					"dave":  ticketJoin(t, users, "realm1", "dave"),
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

func TestPublisherDisclosure(t *testing.T) {
	tests := []struct {
		name     string
		topic    wamp.URI
		opts     wamp.Dict
		disclose bool
	}{
		{"not asked", "com.t", nil, false},
		{"disclose_me", "com.t", wamp.Dict{"disclose_me": true}, true},
		{"by permission", "disclosed.t", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: denyPrivate}}}, func(t *testing.T, r *Router) {
				sub := join(t, r.Gate(), "realm1", nil)
				sub.subscribe(tt.topic, nil)
				pub := ticketJoin(t, r.Gate(ticketAuth{role: "user"}), "realm1", "alice")
				pub.publish(tt.topic, tt.opts)
				d := expect[*wamp.Event](sub).Details
				if !tt.disclose {
					if len(d) != 0 {
						t.Errorf("details %v", d)
					}
					return
				}
				if d["publisher"] != uint64(pub.id) || d["publisher_authid"] != "alice" || d["publisher_authrole"] != "user" {
					t.Errorf("details %v", d)
				}
			})
		})
	}
}

func TestRetainedEvents(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		pub := join(t, r.Gate(), "realm1", nil)
		pub.publish("com.r.a", wamp.Dict{"retain": true}, 1)
		pub.publish("com.r.a", wamp.Dict{"retain": true}, 2)
		pub.publish("com.r.b", wamp.Dict{"retain": true}, 3)
		pub.publish("com.r.c", nil, 4)
		synctest.Wait() // the publisher's session has handled them all

		exact := join(t, r.Gate(), "realm1", nil)
		id := exact.subscribe("com.r.a", wamp.Dict{"get_retained": true})
		ev := expect[*wamp.Event](exact)
		if ev.Subscription != id || ev.Details["retained"] != true || !slices.Equal(ev.Args, wamp.List{2}) {
			t.Errorf("retained EVENT %+v", ev)
		}
		exact.quiet()

		prefix := join(t, r.Gate(), "realm1", nil)
		prefix.subscribe("com.r.", wamp.Dict{"get_retained": true, "match": "prefix"})
		var got []any
		for range 2 {
			ev := expect[*wamp.Event](prefix)
			if ev.Details["topic"] == nil {
				t.Errorf("pattern retained EVENT without topic: %v", ev.Details)
			}
			got = append(got, ev.Args[0])
		}
		if !slices.Contains(got, any(2)) || !slices.Contains(got, any(3)) {
			t.Errorf("retained args %v", got)
		}
		prefix.quiet()

		plain := join(t, r.Gate(), "realm1", nil)
		plain.subscribe("com.r.a", nil)
		plain.quiet()
	})
}
