package router

import (
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

func TestTestamentPublishedWhenSessionLeaves(t *testing.T) {
	tests := []struct {
		name string
		end  func(a, killer *client)
	}{
		{"goodbye", func(a, _ *client) { a.leave() }},
		{"disconnect", func(a, _ *client) { a.p.Close(); a.waitDone() }},
		{"protocol violation", func(a, _ *client) {
			a.send(&wamp.Welcome{Session: 1, Details: wamp.Dict{}})
			a.expectAbort(wamp.ErrProtocolViolation)
		}},
		{"killed", func(a, killer *client) {
			killer.result("wamp.session.kill", wamp.List{uint64(a.id)}, nil)
			expect[*wamp.Goodbye](a)
			a.waitDone()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				obs := join(t, r.Gate(), "realm1", nil)
				will := obs.subscribe("com.will", nil)
				a := join(t, r.Gate(), "realm1", nil)
				a.subscribe("com.will", nil)
				tid := a.result("wamp.session.add_testament", wamp.List{"com.will", wamp.List{"gone"}, wamp.Dict{"who": "a"}}, nil)
				if n, ok := tid.(uint64); !ok || n == 0 {
					t.Errorf("testament ID %v", tid)
				}
				killer := join(t, r.Gate(), "realm1", nil) // not obs: its RESULT and obs's EVENT are not ordered
				tt.end(a, killer)
				ev := expect[*wamp.Event](obs)
				equal(t, "testament", ev, &wamp.Event{Subscription: will, Publication: ev.Publication,
					Details: wamp.Dict{}, Args: wamp.List{"gone"}, Kwargs: wamp.ObjectOf(wamp.Dict{"who": "a"})})
				obs.quiet()
			})
		})
	}
}

func TestTestamentScopesAndFlush(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		obs := join(t, r.Gate(), "realm1", nil)
		will := obs.subscribe("com.will", nil)
		onLeave := obs.subscribe(topicSessionOnLeave, nil)
		a := join(t, r.Gate(), "realm1", nil)
		add := func(arg string, kwargs wamp.Dict) {
			a.result("wamp.session.add_testament", wamp.List{"com.will", wamp.List{arg}}, kwargs)
		}
		add("destroyed 1", nil)
		add("flushed", wamp.Dict{"scope": "detached"})
		equal(t, "flush detached", a.result("wamp.session.flush_testaments", nil, wamp.Dict{"scope": "detached"}), 1)
		equal(t, "flush detached again", a.result("wamp.session.flush_testaments", wamp.List{"detached"}, nil), 0)
		add("detached 1", wamp.Dict{"scope": "detached"})
		add("destroyed 2", wamp.Dict{"scope": "destroyed"})
		add("detached 2", wamp.Dict{"scope": "detached"})
		add("destroyed flushed", nil)
		add("destroyed flushed", nil)
		equal(t, "flush destroyed (default)", a.result("wamp.session.flush_testaments", nil, nil), 4)
		add("destroyed 3", nil)
		a.leave()
		// detached first, then destroyed, each in the order added; then
		// on_leave.
		for _, want := range []string{"detached 1", "detached 2", "destroyed 3"} {
			equal(t, "testament", obs.expectEvent(will), wamp.List{want})
		}
		obs.expectEvent(onLeave)
		obs.quiet()
	})
}

func TestTestamentPublishOptions(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		obs1 := join(t, r.Gate(), "realm1", nil)
		obs2 := join(t, r.Gate(), "realm1", nil)
		sub1, sub2 := obs1.subscribe("com.will", nil), obs2.subscribe("com.will", nil)
		a := join(t, r.Gate(), "realm1", nil)
		opts := wamp.Dict{"exclude": []any{uint64(obs2.id)}, "retain": true, "acknowledge": true, "exclude_me": true, "disclose_me": true}
		a.result("wamp.session.add_testament", wamp.List{"com.will", wamp.List{1}, nil, opts}, nil)
		a.p.Close()
		a.waitDone()
		ev := expect[*wamp.Event](obs1)
		equal(t, "event", []any{ev.Subscription, ev.Args, ev.Details}, []any{sub1, wamp.List{1}, wamp.Dict{}})
		obs2.quiet() // excluded

		late := join(t, r.Gate(), "realm1", nil)
		late.subscribe("com.will", wamp.Dict{"get_retained": true})
		if ev := expect[*wamp.Event](late); ev.Details["retained"] != true || ev.Args[0] != 1 {
			t.Errorf("retained testament %+v", ev)
		}
		obs1.quiet()
		_ = sub2
	})
}

func TestTestamentRefused(t *testing.T) {
	authz := authzFunc(func(_ *auth.Identity, a auth.Action, uri wamp.URI) auth.Permission {
		return auth.Permission{Allow: a != auth.ActionPublish || uri != "com.secret"}
	})
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: authz}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		obs := join(t, r.Gate(), "realm1", nil)
		obs.subscribe("com.secret", nil)
		a := join(t, r.Gate(), "realm1", nil)
		a.callFails("wamp.session.add_testament", wamp.List{"com.secret", wamp.List{}, wamp.Dict{}}, nil, wamp.ErrNotAuthorized)
		a.callFails("wamp.session.add_testament", wamp.List{"wamp.session.on_join", wamp.List{}, wamp.Dict{}}, nil, wamp.ErrInvalidURI)
		a.leave()
		obs.quiet()
	})
}
