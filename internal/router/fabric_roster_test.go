package router

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// rosterNode is a one-node fabric that keeps a roster: the events' fake
// fabric, and every roster change it is told.
type rosterNode struct {
	ev *evNode

	mu      sync.Mutex
	link    *RealmLink
	changes []RosterChange
}

type rosterRealm struct {
	*evRealm
	n *rosterNode
}

func (n *rosterNode) Realm(name wamp.URI, link *RealmLink) RealmFabric {
	n.mu.Lock()
	n.link = link
	n.mu.Unlock()
	return rosterRealm{evRealm: n.ev.Realm(name, link).(*evRealm), n: n}
}

func (r rosterRealm) Roster(c RosterChange) {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	r.n.changes = append(r.n.changes, c)
}

// withRosterNode runs fn in a bubble with a router whose fabric keeps a
// roster.
func withRosterNode(t *testing.T, fn func(t *testing.T, r *Router, n *rosterNode)) {
	n := &rosterNode{ev: (&evCluster{}).node()}
	bubble(t, Options{Fabric: n}, func(t *testing.T, r *Router) { fn(t, r, n) })
}

// TestRosterChanges: the roster hears a session join, gain and lose
// subscriptions and registrations, and leave; not those of wamp.* URIs,
// nor those a leaving session drops with it.
func TestRosterChanges(t *testing.T) {
	withRosterNode(t, func(t *testing.T, r *Router, n *rosterNode) {
		c := join(t, r.Gate(), "realm1", nil)
		sub := c.subscribe("com.a", nil)
		c.subscribe("wamp.session.on_join", nil)
		reg := c.register("com.p", wamp.Dict{"match": "prefix"})
		c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: sub})
		expect[*wamp.Unsubscribed](c)
		c.subscribe("com.b", nil)
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		expect[*wamp.Goodbye](c)
		c.waitDone()
		n.mu.Lock()
		got := slices.Clone(n.changes)
		n.mu.Unlock()
		want := []RosterChange{
			{Op: RosterJoined, Session: c.id, AuthID: got[0].AuthID, AuthRole: "anonymous"},
			{Op: RosterSubscribed, Session: c.id, Item: RosterItem{ID: sub, URI: "com.a", Match: "exact"}},
			{Op: RosterRegistered, Session: c.id, Item: RosterItem{ID: reg, URI: "com.p", Match: "prefix"}},
			{Op: RosterUnsubscribed, Session: c.id, Item: RosterItem{ID: sub, URI: "com.a", Match: "exact"}},
			{Op: RosterSubscribed, Session: c.id, Item: RosterItem{ID: got[4].Item.ID, URI: "com.b", Match: "exact"}},
			{Op: RosterLeft, Session: c.id},
		}
		if !slices.Equal(got, want) {
			t.Errorf("roster changes:\n%+v\nwant\n%+v", got, want)
		}
	})
}

// TestPublishLost: a lost node's session's leaving is published as its
// node would have: on_unsubscribe and on_unregister for each item,
// on_delete for those no node has any more (this node's own subscribers
// and callees keep theirs), its testaments, then on_leave.
func TestPublishLost(t *testing.T) {
	withRosterNode(t, func(t *testing.T, r *Router, n *rosterNode) {
		w := join(t, r.Gate(), "realm1", nil)
		topics := map[wamp.ID]wamp.URI{}
		for _, topic := range []wamp.URI{"wamp.session.on_leave", "wamp.subscription.on_unsubscribe",
			"wamp.subscription.on_delete", "wamp.registration.on_unregister", "wamp.registration.on_delete", "com.will"} {
			topics[w.subscribe(topic, nil)] = topic
		}
		x := join(t, r.Gate(), "realm1", nil)
		both := x.subscribe("com.both", nil)
		shared := x.register("com.shared", wamp.Dict{"invoke": "roundrobin"})
		n.mu.Lock()
		link := n.link
		n.mu.Unlock()
		link.PublishLost(LostSession{ID: 77, AuthID: "joe", AuthRole: "user",
			Subscriptions: []RosterItem{{ID: 1234, URI: "com.only", Match: "exact", Last: true}, {ID: both, URI: "com.both", Match: "exact", Last: true},
				{ID: 4321, URI: "com.held", Match: "exact"}},
			Registrations: []RosterItem{{ID: 5678, URI: "com.gone", Match: "exact", Last: true}, {ID: shared, URI: "com.shared", Match: "exact", Last: true}},
			Testaments:    []Testament{{Topic: "com.will", Payload: wamp.Payload{Args: wamp.List{"bye"}}}},
		})
		type event struct {
			topic wamp.URI
			args  string
		}
		want := []event{
			{"wamp.subscription.on_unsubscribe", "[77 1234]"}, {"wamp.subscription.on_delete", "[77 1234]"},
			{"wamp.subscription.on_unsubscribe", fmt.Sprint("[77 ", both, "]")},
			{"wamp.subscription.on_unsubscribe", "[77 4321]"},
			{"wamp.registration.on_unregister", "[77 5678]"}, {"wamp.registration.on_delete", "[77 5678]"},
			{"wamp.registration.on_unregister", fmt.Sprint("[77 ", shared, "]")},
			{"com.will", "[bye]"},
			{"wamp.session.on_leave", "[77 joe user]"},
		}
		for i, e := range want {
			ev := expect[*wamp.Event](w)
			if got := (event{topics[ev.Subscription], fmt.Sprint(ev.Args)}); got != e {
				t.Errorf("event %d: %v, want %v", i, got, e)
			}
		}
		w.quiet()
	})
}
