package cluster

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// wish returns the writer's wish for key: the value (nil: a delete)
// and whether there is one.
func (w *writer) wish(key string) ([]byte, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v, ok := w.pending[key]
	return v, ok
}

// TestRosterFlush: a session's record is written with its changes, a
// session gone before its record was written costs nothing, one gone
// after is deleted, and one that leaves while the node is fenced keeps
// its record for the members that reap the node.
func TestRosterFlush(t *testing.T) {
	n := &Node{self: Member{"node-1", 7}}
	ro := newRoster(n, slog.New(slog.DiscardHandler))
	rr := &realmRoster{ro: ro, name: "realm1"}
	key := func(id wamp.ID) string { return sessionKey("r", n.self, "realm1", id) }
	sub := router.RosterItem{ID: 5, URI: "com.t", Match: "exact"}
	reg := router.RosterItem{ID: 6, URI: "com.p", Match: "prefix"}

	rr.Roster(router.RosterChange{Op: router.RosterJoined, Session: 1, AuthID: "joe", AuthRole: "user"})
	rr.Roster(router.RosterChange{Op: router.RosterSubscribed, Session: 1, Item: sub})
	rr.Roster(router.RosterChange{Op: router.RosterRegistered, Session: 1, Item: reg})
	rr.Roster(router.RosterChange{Op: router.RosterUnsubscribed, Session: 1, Item: sub})
	rr.Roster(router.RosterChange{Op: router.RosterJoined, Session: 2})
	rr.Roster(router.RosterChange{Op: router.RosterLeft, Session: 2})
	ro.flush()
	v, ok := ro.w.wish(key(1))
	e, err := decodeRoster(v)
	if !ok || err != nil || e.authID != "joe" || e.authRole != "user" || len(e.subs) != 0 || len(e.regs) != 1 || e.regs[0] != reg {
		t.Errorf("session 1's record: %+v, %v, %v", e, ok, err)
	}
	if _, ok := ro.w.wish(key(2)); ok {
		t.Error("a session gone before its record was written is written or deleted")
	}

	rr.Roster(router.RosterChange{Op: router.RosterLeft, Session: 1})
	rr.Roster(router.RosterChange{Op: router.RosterJoined, Session: 3})
	ro.flush()
	if v, ok := ro.w.wish(key(1)); !ok || v != nil {
		t.Errorf("session 1 left: wish %q, %v; want a delete", v, ok)
	}

	n.isolated = true // fenced (on_isolation fence, the default)
	rr.Roster(router.RosterChange{Op: router.RosterLeft, Session: 3})
	ro.flush()
	if v, ok := ro.w.wish(key(3)); !ok || v == nil {
		t.Errorf("session 3 left while fenced: wish %q, %v; want its record kept", v, ok)
	}
}

// TestRosterLimit: a record past rosterMax is written without its
// subscriptions and registrations.
func TestRosterLimit(t *testing.T) {
	ro := newRoster(&Node{}, slog.New(slog.DiscardHandler))
	e := &rosterEntry{realm: "realm1", session: 1, authID: "a", authRole: "r"}
	for i := range rosterMax / 100 {
		e.subs = append(e.subs, router.RosterItem{ID: wamp.ID(i + 1), URI: wamp.URI("com." + strings.Repeat("x", 100)), Match: "exact"})
	}
	got, err := decodeRoster(ro.encode(e))
	if err != nil || got.authID != "a" || got.subs != nil {
		t.Errorf("record past the limit: %+v, %v; want it without its subscriptions", got, err)
	}
	e.subs = e.subs[:10]
	if got, _ := decodeRoster(ro.encode(e)); len(got.subs) != 10 {
		t.Errorf("record within the limit: %d subscriptions, want 10", len(got.subs))
	}
}
