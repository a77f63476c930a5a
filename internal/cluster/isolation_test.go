package cluster_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
)

// TestIsolationFenceAndRejoin: a node that hears one of three members
// (itself) is isolated within its lease plus a second: it reports itself
// and the others lost, has no members, refuses to send; once it hears a
// majority again, it rejoins with a new epoch.
func TestIsolationFenceAndRejoin(t *testing.T) {
	const lease = time.Second
	nodes := clustertest.Start(t, 3, clustertest.Lease(lease, lease/5))
	n1 := nodes[0]
	old := n1.Self()
	events := make(chan cluster.MemberEvent, 64)
	stop := n1.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stop()
	for range 3 {
		<-events // the replay
	}
	start := time.Now()
	clustertest.Kill(nodes[1])
	clustertest.Kill(nodes[2])
	waitFor(t, events, 10*lease, cluster.MemberEvent{Member: old, Up: false})
	if d := time.Since(start); d > lease+time.Second+lease { // the second loss may come a lease after the first
		t.Errorf("isolated after %v", d)
	}
	if !n1.Isolated() || !n1.Fenced() || len(n1.Members()) != 0 {
		t.Fatalf("isolated %v, fenced %v, members %v", n1.Isolated(), n1.Fenced(), n1.Members())
	}
	if err := n1.Send(nodes[1].Self(), 1, nil); !errors.Is(err, cluster.ErrIsolated) {
		t.Errorf("Send while fenced: %v, want ErrIsolated", err)
	}
	n2 := clustertest.Restart(t, nodes[1])
	ev := waitUp(t, events, 30*lease, old.Name)
	if ev.Member.Epoch == old.Epoch {
		t.Errorf("rejoined with the same epoch %v", ev.Member)
	}
	if n1.Isolated() || n1.Self() != ev.Member {
		t.Errorf("after rejoin: isolated %v, self %v, want %v", n1.Isolated(), n1.Self(), ev.Member)
	}
	clustertest.WaitMembers(t, []*cluster.Node{n1, n2}, n1, n2)
}

// TestIsolationServe: with on_isolation serve, a node that loses its only
// peer is isolated but keeps itself as a member and is not fenced.
func TestIsolationServe(t *testing.T) {
	const lease = time.Second
	nodes := clustertest.Start(t, 2, clustertest.Lease(lease, lease/5), func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	n1 := nodes[0]
	events := make(chan cluster.MemberEvent, 64)
	stop := n1.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stop()
	gone := nodes[1].Self()
	clustertest.Kill(nodes[1])
	// The check that reports the loss isolates the node, under the lock
	// the event is queued with.
	waitFor(t, events, 10*lease, cluster.MemberEvent{Member: gone, Up: false})
	if !n1.Isolated() || n1.Fenced() {
		t.Fatalf("isolated %v, fenced %v; want isolated, not fenced", n1.Isolated(), n1.Fenced())
	}
	if m := n1.Members(); len(m) != 1 || m[0] != n1.Self() {
		t.Errorf("members %v, want itself", m)
	}
}

// waitFor waits for event want among events.
func waitFor(t *testing.T, events <-chan cluster.MemberEvent, within time.Duration, want cluster.MemberEvent) {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case ev := <-events:
			if ev == want {
				return
			}
		case <-timeout:
			t.Fatalf("no event %+v within %v", want, within)
		}
	}
}

// waitUp waits for a join of a member named name and returns it.
func waitUp(t *testing.T, events <-chan cluster.MemberEvent, within time.Duration, name string) cluster.MemberEvent {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case ev := <-events:
			if ev.Up && ev.Member.Name == name {
				return ev
			}
		case <-timeout:
			t.Fatalf("no join of %s within %v", name, within)
		}
	}
}

// TestSendAfterRejoin: a fenced node that rejoins under a new epoch and
// the members it hears again exchange messages in new sequences: none
// is dropped as out of sequence, no gap is reported, on either side.
func TestSendAfterRejoin(t *testing.T) {
	const lease = time.Second
	nodes := clustertest.Start(t, 3, clustertest.Lease(lease, lease/5))
	a, cut := nodes[0], nodes[2]
	got := map[*cluster.Node]chan string{a: make(chan string, 16), cut: make(chan string, 16)}
	for nd, ch := range got {
		nd.Handle(7, func(_ cluster.Member, body []byte) { ch <- string(body) })
		nd.OnGap(func(from cluster.Member, lost uint64) { t.Errorf("%s: gap of %d from %s", nd.Self(), lost, from) })
	}
	exchange := func(round string) {
		t.Helper()
		for _, p := range [][2]*cluster.Node{{a, cut}, {cut, a}} {
			from, to := p[0], p[1]
			for i := range 3 {
				if err := from.Send(to.Self(), 7, fmt.Appendf(nil, "%s %d", round, i)); err != nil {
					t.Fatalf("%s: send to %s: %v", from.Self(), to.Self(), err)
				}
			}
			for i := range 3 {
				want := fmt.Sprintf("%s %d", round, i)
				select {
				case g := <-got[to]:
					if g != want {
						t.Fatalf("%s got %q, want %q", to.Self(), g, want)
					}
				case <-time.After(rpcWait):
					t.Fatalf("%s: no %q from %s (stats %+v)", to.Self(), want, from.Self(), to.Stats())
				}
			}
		}
	}
	exchange("before")
	old := cut.Self()
	clustertest.Cut(t, cut)
	waitEvent(t, cut, rpcWait, lost(old))
	clustertest.Heal(t, cut)
	rejoined(t, cut, old)
	clustertest.WaitMembers(t, nodes, nodes...)
	exchange("after")
}
