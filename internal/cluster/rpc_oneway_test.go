package cluster_test

import (
	"slices"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/wamp"
)

// callInFlight registers proc on callee with a blocking handler
// (released at the end of the test), calls it from caller on a
// goroutine, waits until the handler started, and returns where the
// call's error goes.
func callInFlight(t *testing.T, callee, caller *client.Session, proc wamp.URI) <-chan error {
	t.Helper()
	h := newBlocking()
	t.Cleanup(func() { close(h.release) })
	register(t, callee, proc, h.handle, nil)
	done := make(chan error, 1)
	go func() {
		_, err := caller.Call(ctxFor(t), proc, nil, nil)
		done <- err
	}()
	select {
	case <-h.started:
	case err := <-done:
		t.Fatalf("call %s: %v before its callee started", proc, err)
	case <-time.After(rpcWait):
		t.Fatalf("call %s: its callee never started", proc)
	}
	return done
}

// ended checks that the call of done ended with ERROR uri (not its
// caller's deadline).
func ended(t *testing.T, what string, done <-chan error, uri wamp.URI) {
	t.Helper()
	select {
	case err := <-done:
		if !isError(err, uri) {
			t.Errorf("%s: %v, want ERROR %s", what, err, uri)
		}
	case <-time.After(rpcWait):
		t.Errorf("%s: still waiting", what)
	}
}

// TestOneWayCut: node-1 stops hearing node-2 (its heartbeats are dropped)
// while node-2 hears node-1, and the cut does not heal by itself. Node-1
// holds node-2 lost and drops what it sends; its heartbeats tell node-2
// so, and node-2 ends its calls with node-1 and routes none to node-1's
// callees: a call from node-2 to a callee on node-1, in flight or made
// after, ends with an ERROR, as does a call from node-1 to a callee on
// node-2. Once node-1 hears node-2 again, calls flow both ways.
func TestOneWayCut(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(fenceLease, fenceLease/5))
	a, b := sites[0], sites[1]
	register(t, a.join(t), "com.oneway.a", answer("node-1"), nil)
	register(t, b.join(t), "com.oneway.b", answer("node-2"), nil)
	onA, onB := a.join(t), b.join(t)
	callUntil(t, onB, "com.oneway.a", "node-1")
	callUntil(t, onA, "com.oneway.b", "node-2")
	toA := callInFlight(t, a.join(t), onB, "com.oneway.wait.a")
	toB := callInFlight(t, b.join(t), onA, "com.oneway.wait.b")

	events := make(chan cluster.MemberEvent, 64)
	stop := a.node.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stop()
	refusals := make(chan cluster.Refusal, 16)
	stopRefusals := b.node.WatchRefusals(func(r cluster.Refusal) { refusals <- r })
	defer stopRefusals()
	cluster.Deafen(a.node, b.node.Self().Name, true)
	waitLost(t, events, b.node.Self())
	ended(t, "node-2's call in flight to node-1's callee", toA, wamp.ErrCanceled)
	ended(t, "node-1's call in flight to node-2's callee", toB, wamp.ErrCanceled)
	if _, err := onB.Call(ctxFor(t), "com.oneway.a", nil, nil); !isError(err, wamp.ErrNoSuchProcedure) {
		t.Errorf("node-2's call to node-1's callee during the cut: %v, want ERROR %s", err, wamp.ErrNoSuchProcedure)
	}
	if m := b.node.Members(); len(m) != 3 {
		t.Errorf("node-2's members during the cut: %v, want all three (it hears them)", m)
	}
	waitRefusal(t, refusals, cluster.Refusal{Member: a.node.Self(), Refused: true})
	if r := refusers(b.node); !slices.Equal(r, []string{a.node.Self().Name}) {
		t.Errorf("node-2's status during the cut: %v refuse it, want node-1", r)
	}

	cluster.Deafen(a.node, b.node.Self().Name, false)
	waitRefusal(t, refusals, cluster.Refusal{Member: a.node.Self(), Refused: false})
	if r := refusers(b.node); len(r) != 0 {
		t.Errorf("node-2's status after the heal: %v refuse it, want none", r)
	}
	callUntil(t, onB, "com.oneway.a", "node-1")
	callUntil(t, onA, "com.oneway.b", "node-2")
	toA = callInFlight(t, a.join(t), onB, "com.oneway.wait.healed")
	if _, err := onB.Call(ctxFor(t), "com.oneway.a", nil, nil); err != nil {
		t.Errorf("a call beside one in flight after the heal: %v", err)
	}
	select {
	case err := <-toA:
		t.Errorf("the call in flight after the heal ended: %v", err)
	default:
	}
}

// refusers returns the members that refuse n in its status.
func refusers(n *cluster.Node) []string {
	var out []string
	for _, p := range n.Status().Peers {
		if p.Refuses {
			out = append(out, p.Member.Name)
		}
	}
	return out
}

// waitRefusal waits for refusal want among refusals.
func waitRefusal(t *testing.T, refusals <-chan cluster.Refusal, want cluster.Refusal) {
	t.Helper()
	timeout := time.After(rpcWait)
	for {
		select {
		case r := <-refusals:
			if r == want {
				return
			}
		case <-timeout:
			t.Fatalf("no refusal %+v within %v", want, rpcWait)
		}
	}
}
