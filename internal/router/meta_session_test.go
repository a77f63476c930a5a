package router

import (
	"slices"
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// mixedGate accepts anonymous sessions and ticket sessions of role "user".
func mixedGate(r *Router) *Gate { return r.Gate(auth.Anonymous(""), ticketAuth{role: "user"}) }

func sortedIDs(v any) []uint64 {
	var ids []uint64
	for _, e := range v.(wamp.List) {
		ids = append(ids, e.(uint64))
	}
	slices.Sort(ids)
	return ids
}

func ids(cs ...*client) []uint64 {
	var out []uint64
	for _, c := range cs {
		out = append(out, uint64(c.id))
	}
	slices.Sort(out)
	return out
}

func TestSessionCountListGet(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g := mixedGate(r)
		a := join(t, g, "realm1", nil)
		b := ticketJoin(t, g, "realm1", "alice")
		equal(t, "count()", a.result("wamp.session.count", nil, nil), 2)
		equal(t, "count([user])", a.result("wamp.session.count", wamp.List{[]any{"user"}}, nil), 1)
		equal(t, "count(filter_authroles=[])", a.result("wamp.session.count", nil, wamp.Dict{"filter_authroles": []any{}}), 0)
		equal(t, "count(None)", a.result("wamp.session.count", wamp.List{nil}, nil), 2)
		equal(t, "list()", sortedIDs(a.result("wamp.session.list", nil, nil)), ids(a, b))
		equal(t, "list([anonymous])", sortedIDs(a.result("wamp.session.list", wamp.List{[]any{"anonymous"}}, nil)), ids(a))
		equal(t, "list([nope])", a.result("wamp.session.list", wamp.List{[]any{"nope"}}, nil), wamp.List{})

		want := wamp.Dict{
			"session": uint64(b.id), "authid": "alice", "authrole": "user", "authmethod": "ticket",
			"authprovider": "static", "authextra": wamp.Dict{"color": "blue"},
			"transport": wamp.Dict{"type": "fake", "serializer": "", "peer": "", "is_secure": false},
		}
		equal(t, "get(b)", a.result("wamp.session.get", wamp.List{uint64(b.id)}, nil), want)
		equal(t, "get(session=b)", a.result("wamp.session.get", nil, wamp.Dict{"session": uint64(b.id)}), want)
		a.callFails("wamp.session.get", wamp.List{uint64(b.id) + 1}, nil, wamp.ErrNoSuchSession)
		b.leave()
		a.callFails("wamp.session.get", wamp.List{uint64(b.id)}, nil, wamp.ErrNoSuchSession)
		equal(t, "count() after leave", a.result("wamp.session.count", nil, nil), 1)
	})
}

func TestSessionKill(t *testing.T) {
	tests := []struct {
		name    string
		kwargs  wamp.Dict
		args    wamp.List // after the session ID
		reason  wamp.URI
		details wamp.Dict
	}{
		{"default reason", nil, nil, wamp.ErrKilled, wamp.Dict{}},
		{"reason and message", wamp.Dict{"reason": "com.example.banned", "message": "go away"}, nil, "com.example.banned", wamp.Dict{"message": "go away"}},
		{"positional", nil, wamp.List{"com.example.bye", "later"}, "com.example.bye", wamp.Dict{"message": "later"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				a := join(t, r.Gate(), "realm1", nil)
				b := join(t, r.Gate(), "realm1", nil)
				equal(t, "kill", a.result("wamp.session.kill", append(wamp.List{uint64(b.id)}, tt.args...), tt.kwargs), nil)
				bye := expect[*wamp.Goodbye](b)
				equal(t, "GOODBYE reason", bye.Reason, tt.reason)
				equal(t, "GOODBYE details", bye.Details, tt.details)
				b.waitDone()
				equal(t, "count", a.result("wamp.session.count", nil, nil), 1)
			})
		})
	}
}

func TestSessionKillRefused(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		a.callFails("wamp.session.kill", wamp.List{uint64(a.id)}, nil, wamp.ErrNoSuchSession)
		a.callFails("wamp.session.kill", wamp.List{uint64(a.id) + 1}, nil, wamp.ErrNoSuchSession)
		equal(t, "count", a.result("wamp.session.count", nil, nil), 1)
	})
}

func TestSessionKillBy(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g, others := r.Gate(ticketAuth{role: "user"}), r.Gate(ticketAuth{role: "other"})
		caller := ticketJoin(t, others, "realm1", "bob")
		bob1, bob2 := ticketJoin(t, others, "realm1", "bob"), ticketJoin(t, others, "realm1", "bob")
		carol := ticketJoin(t, others, "realm1", "carol")
		user1, user2 := ticketJoin(t, g, "realm1", "u1"), ticketJoin(t, g, "realm1", "u2")

		killed := caller.result("wamp.session.kill_by_authid", wamp.List{"bob"}, wamp.Dict{"message": "bye bob"})
		equal(t, "kill_by_authid(bob)", sortedIDs(killed), ids(bob1, bob2))
		for _, c := range []*client{bob1, bob2} {
			bye := expect[*wamp.Goodbye](c)
			equal(t, "GOODBYE", bye, &wamp.Goodbye{Reason: wamp.ErrKilled, Details: wamp.Dict{"message": "bye bob"}})
			c.waitDone()
		}
		equal(t, "kill_by_authid(nobody)", caller.result("wamp.session.kill_by_authid", wamp.List{"nobody"}, nil), wamp.List{})

		killed = user1.result("wamp.session.kill_by_authrole", wamp.List{"user"}, wamp.Dict{"reason": "com.example.r"})
		equal(t, "kill_by_authrole(user)", sortedIDs(killed), ids(user2))
		equal(t, "GOODBYE reason", expect[*wamp.Goodbye](user2).Reason, wamp.URI("com.example.r"))
		user2.waitDone()

		equal(t, "survivors", sortedIDs(caller.result("wamp.session.list", nil, nil)), ids(caller, carol, user1))
		caller.quiet()
		carol.quiet()
	})
}

func TestSessionEvents(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g := mixedGate(r)
		obs := join(t, g, "realm1", nil)
		onJoin := obs.subscribe(topicSessionOnJoin, nil)
		onLeave := obs.subscribe(topicSessionOnLeave, nil)
		b := ticketJoin(t, g, "realm1", "alice")
		args := obs.expectEvent(onJoin)
		equal(t, "on_join", args, wamp.List{wamp.Dict{
			"session": uint64(b.id), "authid": "alice", "authrole": "user", "authmethod": "ticket",
			"authprovider": "static", "authextra": wamp.Dict{"color": "blue"},
			"transport": wamp.Dict{"type": "fake", "serializer": "", "peer": "", "is_secure": false},
		}})
		b.leave()
		equal(t, "on_leave", obs.expectEvent(onLeave), wamp.List{uint64(b.id), "alice", "user"})

		c := join(t, g, "realm1", nil) // leaves by disconnecting
		obs.expectEvent(onJoin)
		c.p.Close()
		c.waitDone()
		equal(t, "on_leave after disconnect", obs.expectEvent(onLeave)[0], uint64(c.id))
		obs.quiet()
	})
}
