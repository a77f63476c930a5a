package client

import (
	"context"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

// joinRouter joins realm1 of r through g over a local pair.
func joinRouter(t *testing.T, g *router.Gate) *Session {
	t.Helper()
	mine, theirs := local.Pair(local.Options{})
	go g.Attach(theirs)
	s, err := Join(context.Background(), mine, Config{Realm: "realm1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestIdentitySubscriptions: one session of an ActsFor gate subscribes a
// topic for alice, for bob and for itself; each handler receives only the
// events whose authid and authrole lists allow its identity.
func TestIdentitySubscriptions(t *testing.T) {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: "realm1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	bridge := joinRouter(t, r.NewGate(router.GateOptions{Auths: []auth.Authenticator{auth.Anonymous("bridge")}, ActsFor: true}))
	pub := joinRouter(t, r.Gate())
	got := make(chan string, 16)
	for _, who := range []*wamp.Identity{{AuthID: "alice", AuthRole: "user"}, {AuthID: "bob", AuthRole: "user"}, nil} {
		name := "self"
		if who != nil {
			name = who.AuthID
		}
		h := func(ev *Event) { got <- name + ":" + ev.Args[0].(string) }
		if _, err := bridge.Subscribe(WithIdentity(context.Background(), who), "com.news", h, nil); err != nil {
			t.Fatal(err)
		}
	}
	ack := wamp.Dict{wamp.OptAcknowledge: true}
	publish := func(label string, opts wamp.Dict) {
		t.Helper()
		opts[wamp.OptAcknowledge] = true
		if _, err := pub.Publish(context.Background(), "com.news", wamp.List{label}, nil, opts); err != nil {
			t.Fatal(err)
		}
	}
	publish("alice only", wamp.Dict{wamp.OptEligibleAuthID: []any{"alice"}})
	publish("not bob", wamp.Dict{wamp.OptExcludeAuthID: []any{"bob"}})
	publish("users", wamp.Dict{wamp.OptEligibleAuthRole: []any{"user"}})
	if _, err := pub.Publish(context.Background(), "com.news", wamp.List{"end"}, nil, ack); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"alice:alice only": true, "alice:not bob": true, "self:not bob": true,
		"alice:users": true, "bob:users": true, "alice:end": true, "bob:end": true, "self:end": true}
	seen := map[string]bool{}
	for len(seen) < len(want) {
		select {
		case s := <-got:
			if !want[s] {
				t.Fatalf("unexpected delivery %q", s)
			}
			seen[s] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("deliveries %v, want %v", seen, want)
		}
	}
}
