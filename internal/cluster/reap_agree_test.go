package cluster_test

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/wamp"
)

// agreeLease is the lease of these tests: node-2's testament is published
// within about a second and a half of its death.
const agreeLease = time.Second

// willSite starts three nodes: a listener of topic on node-3 (reached
// from node-1 and node-3), a watcher of the meta events of sessions
// leaving on node-3 (reached from every node), and on node-2 a session
// with the testament "b-session" on topic, its records written. It
// returns the nodes, the listener, the watcher and the session.
func willSite(t *testing.T, topic wamp.URI) ([]*site, heard, metaSeen, *client.Session) {
	t.Helper()
	sites := startSites(t, 3, clustertest.Lease(agreeLease, agreeLease/5))
	a, b, c := sites[0], sites[1], sites[2]
	h := listen(t, c.join(t), topic)
	probe(t, a.join(t), topic, h)
	probe(t, c.join(t), topic, h)
	watcher := watchLeaving(t, c)
	interestEverywhere(t, sites, []*site{c}, leavingTopics...)
	hearJoins(t, sites, []metaSeen{watcher})
	s := b.join(t)
	addTestament(t, s, topic, "b-session")
	rostered(t, b)
	if n, err := cluster.SessionRecords(c.fabric, b.node.Self()); n != 2 || err != nil {
		t.Fatalf("records of node-2's session: %d, %v; want its roster and its testaments", n, err)
	}
	return sites, h, watcher, s
}

// notAgreed waits until node-1, which holds node-2 lost, had a heartbeat
// of node-3 after the loss, and checks that it did not agree on it:
// node-3 still hears node-2.
func notAgreed(t *testing.T, sites []*site) {
	t.Helper()
	a, b, c := sites[0].node, sites[1].node.Self(), sites[2].node.Self()
	waitUntil(t, "node-1 lost node-2", func() bool { return !slices.Contains(a.Members(), b) })
	lost := time.Now()
	waitUntil(t, "node-1 had node-3's word after it lost node-2", func() bool { return cluster.HeardSince(a, c, lost) })
	if cluster.LossAgreed(a, b) {
		t.Error("node-1 agreed on the loss of node-2, which node-3 hears")
	}
}

// killedOnce kills node-2 and checks that its session s leaves once, by
// the member that reaps it: its testament is published once, on_leave
// once, and its records are deleted. It logs how long the testament
// took to come after the kill (the bound: the lease and a second).
func killedOnce(t *testing.T, sites []*site, h heard, watcher metaSeen, s *client.Session, topic wamp.URI) {
	t.Helper()
	a, b, c := sites[0], sites[1], sites[2]
	victim := b.node.Self()
	killed := time.Now()
	clustertest.Kill(b.node)
	if got := h.next(t); got != "b-session" {
		t.Fatalf("testament %q, want b-session (node-2 died)", got)
	}
	t.Logf("node-2's testament published %v after its death (lease %v)", time.Since(killed).Round(time.Millisecond), agreeLease)
	waitUntil(t, "node-2 reaped: its records and its lock gone", func() bool {
		n, err := cluster.SessionRecords(c.fabric, victim)
		locked, lerr := cluster.ReapLocked(c.fabric, victim)
		return n == 0 && err == nil && !locked && lerr == nil
	})
	heard := reaped(t, []*site{a, c}, []metaSeen{watcher}, 0) // what the reaper published came first
	exactly(t, 3, heard[0], map[[2]any]int{{onLeave, s.ID()}: 1})
	for _, p := range []*client.Session{a.join(t), c.join(t)} {
		if _, err := p.Publish(ctxFor(t), topic, wamp.List{"end"}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if got := h.next(t); got != "end" {
			t.Errorf("after the testament: %q, want end (a testament published once)", got)
		}
	}
}

// TestRosterOneWayCut: a member that one node alone holds lost (a cut in
// one direction: node-1 no longer hears node-2, node-3 still does) is not
// reaped: node-1 does not agree on its loss while node-3 hears it, so no
// testament of its session is published, no on_leave, and its records
// stay (the calls between node-1 and node-2 end: TestOneWayCut). Once the
// cut heals and node-2 dies, its session's leaving and testament are
// published once.
func TestRosterOneWayCut(t *testing.T) {
	const topic wamp.URI = "com.agree.oneway"
	sites, h, watcher, s := willSite(t, topic)
	a, b := sites[0], sites[1]
	victim := b.node.Self()
	reapedA := cluster.Reaped(a.fabric)

	cluster.Deafen(a.node, victim.Name, true)
	notAgreed(t, sites)
	cluster.Deafen(a.node, victim.Name, false)
	waitUntil(t, "node-1 hears node-2 again", func() bool { return slices.Contains(a.node.Members(), victim) })
	if n, err := cluster.SessionRecords(a.fabric, victim); n != 2 || err != nil {
		t.Errorf("records of node-2's session after the cut: %d, %v; want both kept", n, err)
	}
	if n := cluster.Reaped(a.fabric); n != reapedA {
		t.Errorf("node-1 reaped %d members during the cut, want none", n-reapedA)
	}
	killedOnce(t, sites, h, watcher, s, topic)
}

// TestRosterStarvedNode: a node starved of CPU misses the heartbeats of
// the others and loses them one by one (their leases end at different
// moments): for a moment it holds node-2 lost while it still hears
// node-3, a majority. It reaps nothing: node-3 still hears node-2. Then it
// loses node-3 too, and is isolated (fenced); once it hears them again it
// rejoins, and node-2 is still not reaped. When node-2 dies, its
// session's leaving and testament are published once.
func TestRosterStarvedNode(t *testing.T) {
	const topic wamp.URI = "com.agree.starved"
	sites, h, watcher, s := willSite(t, topic)
	a, b, c := sites[0], sites[1], sites[2]
	victim := b.node.Self()
	var dead atomic.Bool
	var early atomic.Value
	cluster.OnReap(func(reaper, lost cluster.Member) bool {
		if lost == victim && !dead.Load() {
			early.Store(reaper)
		}
		return false
	})
	t.Cleanup(func() { cluster.OnReap(nil) })

	old := a.node.Self()
	cluster.Deafen(a.node, victim.Name, true)
	notAgreed(t, sites)
	cluster.Deafen(a.node, c.node.Self().Name, true)
	waitUntil(t, "node-1 isolated", a.node.Isolated)
	cluster.Deafen(a.node, victim.Name, false)
	cluster.Deafen(a.node, c.node.Self().Name, false)
	rejoined(t, a.node, old)
	clustertest.WaitMembers(t, []*cluster.Node{a.node, b.node, c.node}, a.node, b.node, c.node)
	if n, err := cluster.SessionRecords(c.fabric, victim); n != 2 || err != nil {
		t.Errorf("records of node-2's session after the starvation: %d, %v; want both kept", n, err)
	}
	if r := early.Load(); r != nil {
		t.Errorf("%v reaped node-2 while it lived", r)
	}
	dead.Store(true) // the reapings from here on are the death's
	killedOnce(t, sites, h, watcher, s, topic)
}

// TestAgreeTwoNodesRestart: in a cluster of two (serve), the node that
// loses the other is isolated: it agrees on no loss (it reaps nothing).
// When the other restarts (a new epoch), its earlier life is over by its
// own word: the loss is agreed on at once, while the node is still
// isolated (its reaping is postponed until it hears a majority again, a
// moment later, as every reaping agreed on while isolated: reap.go).
func TestAgreeTwoNodesRestart(t *testing.T) {
	nodes := clustertest.Start(t, 2, clustertest.Lease(agreeLease, agreeLease/5),
		func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	a := nodes[0]
	agreed := make(chan cluster.Member, 8)
	stop := cluster.WatchAgreed(a, func(m cluster.Member) { agreed <- m })
	defer stop()
	events := make(chan cluster.MemberEvent, 64)
	stopEvents := a.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stopEvents()

	dead := nodes[1].Self()
	clustertest.Kill(nodes[1])
	waitLost(t, events, dead) // the check that reports it isolates the node, and agrees on nothing
	if !a.Isolated() || cluster.LossAgreed(a, dead) {
		t.Fatalf("isolated %v, loss agreed %v; want isolated, not agreed", a.Isolated(), cluster.LossAgreed(a, dead))
	}
	clustertest.Restart(t, nodes[1])
	select {
	case m := <-agreed:
		if m != dead {
			t.Fatalf("agreed on the loss of %v, want %v", m, dead)
		}
	case <-time.After(rpcWait):
		t.Fatal("the earlier life of the restarted node is not agreed on")
	}
	waitUntil(t, "no longer isolated", func() bool { return !a.Isolated() })
	select {
	case m := <-agreed:
		t.Errorf("agreed on the loss of %v too", m)
	default:
	}
}
