package router

import (
	"slices"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// TestSessionsPaged: Sessions lists a realm's sessions oldest first, one
// page at a time, with the total; a session that left is gone.
func TestSessionsPaged(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "a"}, {Name: "b"}}}, func(t *testing.T, r *Router) {
		start := time.Now()
		var ids []wamp.ID
		var clients []*client
		for range 5 {
			c := join(t, r.Gate(), "a", nil)
			clients = append(clients, c)
			ids = append(ids, c.id)
			time.Sleep(time.Second) // the bubble's clock: distinct join times
		}
		join(t, r.Gate(), "b", nil)
		tests := []struct {
			offset, limit int
			want          []wamp.ID
		}{
			{0, 2, ids[:2]},
			{2, 2, ids[2:4]},
			{4, 2, ids[4:]},
			{5, 2, nil},
			{-1, 0, ids},
			{9, 1, nil},
		}
		for _, tt := range tests {
			got, total := r.Sessions("a", tt.offset, tt.limit)
			var gotIDs []wamp.ID
			for _, s := range got {
				gotIDs = append(gotIDs, s.ID)
			}
			if total != 5 || !slices.Equal(gotIDs, tt.want) {
				t.Errorf("Sessions(a, %d, %d) = %v (total %d), want %v (total 5)", tt.offset, tt.limit, gotIDs, total, tt.want)
			}
		}
		first, _ := r.Sessions("a", 0, 1)
		want := SessionSummary{ID: ids[0], AuthRole: "anonymous", AuthMethod: "anonymous", Transport: "fake", Joined: start}
		if first[0].AuthID == "" || first[0].AuthID != clients[0].wel.Details[wamp.KeyAuthID] {
			t.Errorf("authid %q, want the WELCOME's", first[0].AuthID)
		}
		want.AuthID = first[0].AuthID
		if first[0] != want {
			t.Errorf("first session %+v, want %+v", first[0], want)
		}
		clients[0].leave()
		clients[0].waitDone() // Attach returns once the session left its realm
		if _, total := r.Sessions("a", 0, 0); total != 4 {
			t.Errorf("after a leave: %d sessions, want 4", total)
		}
		if got, total := r.Sessions("nope", 0, 10); got != nil || total != 0 {
			t.Errorf("unknown realm: %v, %d", got, total)
		}
	})
}

// TestRegistrationsAndSubscriptions: the lists are sorted by URI, count
// callees and subscribers, and stop at the limit with the total.
func TestRegistrationsAndSubscriptions(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		b := join(t, r.Gate(), "realm1", nil)
		a.register("com.z", nil)
		a.register("com.a", wamp.Dict{"invoke": "roundrobin"})
		b.register("com.a", wamp.Dict{"invoke": "roundrobin"})
		a.subscribe("com.t", nil)
		b.subscribe("com.t", nil)
		b.subscribe("com.", wamp.Dict{"match": "prefix"})

		regs, total := r.Registrations("realm1", 0)
		if total != 2 || len(regs) != 2 || regs[0].Procedure != "com.a" || regs[0].Callees != 2 || regs[0].Invoke != "roundrobin" ||
			regs[1].Procedure != "com.z" || regs[1].Callees != 1 || regs[1].Match != "exact" {
			t.Errorf("registrations %+v (total %d)", regs, total)
		}
		if regs, total := r.Registrations("realm1", 1); total != 2 || len(regs) != 1 {
			t.Errorf("limit 1: %+v (total %d)", regs, total)
		}
		subs, total := r.Subscriptions("realm1", 0)
		if total != 2 || subs[0].Topic != "com." || subs[0].Match != "prefix" || subs[0].Subscribers != 1 ||
			subs[1].Topic != "com.t" || subs[1].Subscribers != 2 {
			t.Errorf("subscriptions %+v (total %d)", subs, total)
		}
		if got, total := r.Subscriptions("nope", 0); got != nil || total != 0 {
			t.Errorf("unknown realm: %v, %d", got, total)
		}
	})
}

// BenchmarkSessions is what the dashboard asks once a second per open
// page: one page of 50 sessions out of 10,000 on a realm.
func BenchmarkSessions(b *testing.B) {
	r := newTestRouter(b)
	defer r.Close()
	for range 10_000 {
		join(b, r.Gate(), "realm1", nil)
	}
	b.ReportAllocs()
	for b.Loop() {
		if page, total := r.Sessions("realm1", 5000, 50); len(page) != 50 || total != 10_000 {
			b.Fatalf("%d of %d", len(page), total)
		}
	}
}
