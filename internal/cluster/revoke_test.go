package cluster_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// denyUnder allows every action but registering and subscribing under
// prefix.
type denyUnder string

func (d denyUnder) Authorize(_ *auth.Identity, a auth.Action, uri wamp.URI, _ wamp.Dict) (auth.Permission, error) {
	held := a == auth.ActionRegister || a == auth.ActionSubscribe
	return auth.Permission{Allow: !held || !strings.HasPrefix(string(uri), string(d))}, nil
}

// testRevokedOnUpdate: a registration and a subscription that a realm
// update on their node revokes leave the cluster's tables (the other
// nodes no longer route calls or events to them), and their
// on_unregister, on_unsubscribe and on_delete reach a subscriber on
// another node once.
func testRevokedOnUpdate(t *testing.T, sites []*site) {
	w := watchLeaving(t, sites[1])
	watcher := sites[1].node.Self()
	waitUntil(t, "the first node mirrors the watcher's interest", func() bool {
		for _, topic := range []wamp.URI{onJoin, onUnregister, onRegDelete, onUnsubscribe, onSubDelete} {
			if !slices.Contains(cluster.Interested(sites[0].fabric, "realm1", topic), watcher) {
				return false
			}
		}
		return true
	})
	holder, caller := sites[0].join(t), sites[2].join(t)
	reg := register(t, holder, "com.revoke.proc", answer("holder"), nil)
	subscribe(t, holder, "com.revoke.topic", nil)
	waitCallees(t, caller, reg, 1)
	waitUntil(t, "node 3 sees node 1's interest", func() bool {
		return len(cluster.Interested(sites[2].fabric, "realm1", "com.revoke.topic")) == 1
	})

	res, err := sites[0].router.UpdateRealm("realm1", router.RealmUpdate{Authorizer: denyUnder("com.revoke.")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sites[0].router.UpdateRealm("realm1", router.RealmUpdate{}) })
	if res.Unregistered != 1 || res.Unsubscribed != 1 || res.Closed != 0 {
		t.Fatalf("UpdateRealm: %+v, want one registration and one subscription revoked", res)
	}
	waitUntil(t, "the registration leaves node 3's mirror", func() bool {
		return idOf(metaCall(t, caller, "wamp.registration.lookup", "com.revoke.proc")[0]) == 0
	})
	if _, err := caller.Call(ctxFor(t), "com.revoke.proc", nil, nil); !isError(err, wamp.ErrNoSuchProcedure) {
		t.Errorf("call of the revoked procedure from another node: %v, want %s", err, wamp.ErrNoSuchProcedure)
	}
	waitUntil(t, "the interest leaves node 3's mirror", func() bool {
		return len(cluster.Interested(sites[2].fabric, "realm1", "com.revoke.topic")) == 0
	})
	// A session joined on the revoking node after the revocation: its
	// on_join follows every meta event of the revocation (one node's
	// events keep their order), so any second one would come before.
	marker := sites[0].join(t).ID()
	want := map[[2]any]int{
		{onUnregister, holder.ID()}: 1, {onRegDelete, holder.ID()}: 1,
		{onUnsubscribe, holder.ID()}: 1, {onSubDelete, holder.ID()}: 1,
	}
	counts := map[[2]any]int{}
	w.until(t, map[[2]any]int{{onJoin, marker}: 1}, counts)
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s of session %d heard %d times, want %d", k[0], k[1], counts[k], n)
		}
	}
}

// waitUntil polls cond until it holds, at most rpcWait.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		<-time.After(10 * time.Millisecond) // polling with a deadline
	}
}
