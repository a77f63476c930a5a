package router

import (
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

func TestRegistrationMetaProcedures(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		b := join(t, r.Gate(), "realm1", nil)
		exact := a.register("com.p", wamp.Dict{"invoke": "roundrobin"})
		b.register("com.p", wamp.Dict{"invoke": "roundrobin"})
		prefix := a.register("com.", wamp.Dict{"match": "prefix"})
		wild := a.register("com..x", wamp.Dict{"match": "wildcard"})
		protected := a.register("crossbar.p", nil)
		id := func(v wamp.ID) uint64 { return uint64(v) }

		equal(t, "list", a.result("wamp.registration.list", nil, nil), wamp.Dict{
			"exact": wamp.List{id(exact)}, "prefix": wamp.List{id(prefix)}, "wildcard": wamp.List{id(wild)},
		})
		for _, tt := range []struct {
			name   string
			args   wamp.List
			kwargs wamp.Dict
			want   any
		}{
			{"lookup exact", wamp.List{"com.p"}, nil, id(exact)},
			{"lookup exact by name", nil, wamp.Dict{"procedure": "com.p", "options": wamp.Dict{"match": "exact"}}, id(exact)},
			{"lookup prefix", wamp.List{"com.", wamp.Dict{"match": "prefix"}}, nil, id(prefix)},
			{"lookup wildcard", wamp.List{"com..x", wamp.Dict{"match": "wildcard"}}, nil, id(wild)},
			{"lookup prefix as exact", wamp.List{"com.q"}, nil, nil},
			{"lookup protected", wamp.List{"crossbar.p"}, nil, nil},
		} {
			equal(t, tt.name, a.result("wamp.registration.lookup", tt.args, tt.kwargs), tt.want)
		}
		for proc, want := range map[string]any{"com.p": id(exact), "com.q": id(prefix), "com.y.x": id(prefix), "org.y.x": nil, "crossbar.p": nil} {
			equal(t, "match "+proc, a.result("wamp.registration.match", wamp.List{proc}, nil), want)
		}

		got := a.result("wamp.registration.get", wamp.List{id(exact)}, nil).(wamp.Dict)
		created, err := time.Parse(time.RFC3339, got["created"].(string))
		if err != nil || !created.Equal(time.Now().UTC().Truncate(time.Millisecond)) {
			t.Errorf("created %v (%v), want now %v", got["created"], err, time.Now().UTC())
		}
		delete(got, "created")
		equal(t, "get", got, wamp.Dict{"id": id(exact), "uri": "com.p", "match": "exact", "invoke": "roundrobin"})
		equal(t, "get wildcard match", a.result("wamp.registration.get", wamp.List{id(wild)}, nil).(wamp.Dict)["match"], "wildcard")
		equal(t, "list_callees", sortedIDs(a.result("wamp.registration.list_callees", wamp.List{id(exact)}, nil)), ids(a, b))
		equal(t, "count_callees", a.result("wamp.registration.count_callees", wamp.List{id(exact)}, nil), 2)
		for _, proc := range []wamp.URI{"wamp.registration.get", "wamp.registration.list_callees", "wamp.registration.count_callees"} {
			a.callFails(proc, wamp.List{id(protected)}, nil, wamp.ErrNotAuthorized)
		}

		b.leave()
		equal(t, "count_callees after leave", a.result("wamp.registration.count_callees", wamp.List{id(exact)}, nil), 1)
	})
}

// A session of role "trusted" sees the protected namespaces, as in
// Crossbar.
func TestRegistrationMetaTrusted(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		reg := a.register("crossbar.p", nil)
		admin := ticketJoin(t, r.Gate(ticketAuth{role: trustedRole}), "realm1", "admin")
		equal(t, "match", admin.result("wamp.registration.match", wamp.List{"crossbar.p"}, nil), uint64(reg))
		equal(t, "list", admin.result("wamp.registration.list", nil, nil).(wamp.Dict)["exact"], wamp.List{uint64(reg)})
		equal(t, "count_callees", admin.result("wamp.registration.count_callees", wamp.List{uint64(reg)}, nil), 1)
	})
}

func TestRegistrationMetaEvents(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		obs := join(t, r.Gate(), "realm1", nil)
		subs := map[wamp.URI]wamp.ID{}
		for _, topic := range []wamp.URI{topicRegOnCreate, topicRegOnRegister, topicRegOnUnregister, topicRegOnDelete} {
			subs[topic] = obs.subscribe(topic, nil)
		}
		a := join(t, r.Gate(), "realm1", nil)
		b := join(t, r.Gate(), "realm1", nil)
		reg := a.register("com.p", wamp.Dict{"invoke": "first"})
		sid := func(c *client) uint64 { return uint64(c.id) }

		created := obs.expectEvent(subs[topicRegOnCreate])
		details := created[1].(wamp.Dict)
		equal(t, "on_create session", created[0], sid(a))
		equal(t, "on_create details", []any{details["id"], details["uri"], details["match"], details["invoke"]},
			[]any{uint64(reg), "com.p", "exact", "first"})
		equal(t, "on_register", obs.expectEvent(subs[topicRegOnRegister]), wamp.List{sid(a), uint64(reg)})

		b.register("com.p", wamp.Dict{"invoke": "first"})
		equal(t, "on_register b", obs.expectEvent(subs[topicRegOnRegister]), wamp.List{sid(b), uint64(reg)})

		a.send(&wamp.Unregister{Request: a.nextReq(), Registration: reg})
		expect[*wamp.Unregistered](a)
		equal(t, "on_unregister a", obs.expectEvent(subs[topicRegOnUnregister]), wamp.List{sid(a), uint64(reg)})

		b.p.Close() // the last callee disconnects
		b.waitDone()
		equal(t, "on_unregister b", obs.expectEvent(subs[topicRegOnUnregister]), wamp.List{sid(b), uint64(reg)})
		equal(t, "on_delete", obs.expectEvent(subs[topicRegOnDelete]), wamp.List{sid(b), uint64(reg)})
		obs.quiet()
	})
}
