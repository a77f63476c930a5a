package cluster_test

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/wamp"
)

// The meta events of a session's leaving.
const (
	onJoin        wamp.URI = "wamp.session.on_join"
	onLeave       wamp.URI = "wamp.session.on_leave"
	onUnregister  wamp.URI = "wamp.registration.on_unregister"
	onRegDelete   wamp.URI = "wamp.registration.on_delete"
	onUnsubscribe wamp.URI = "wamp.subscription.on_unsubscribe"
	onSubDelete   wamp.URI = "wamp.subscription.on_delete"
)

// leavingTopics are the meta events watchLeaving watches.
var leavingTopics = []wamp.URI{onJoin, onLeave, onUnregister, onRegDelete, onUnsubscribe, onSubDelete}

// watchLeaving watches the meta events of sessions leaving (and joining,
// for hearJoins) from a new session of s.
func watchLeaving(t *testing.T, s *site) metaSeen {
	return watchMeta(t, s.join(t), leavingTopics...)
}

// interestEverywhere waits until every node of sites mirrors the
// interest of each node of watching (but its own) in each of topics:
// until then, a meta event another node publishes does not reach that
// node's watcher. hearJoins proves it of on_join alone: each topic is a
// record of its own in the sub table, each on its way on its own.
func interestEverywhere(t *testing.T, sites, watching []*site, topics ...wamp.URI) {
	t.Helper()
	for _, s := range sites {
		for _, w := range watching {
			if s == w {
				continue
			}
			watcher := w.node.Self()
			waitUntil(t, s.node.Self().String()+" mirrors the interest of "+watcher.String(), func() bool {
				for _, topic := range topics {
					if !slices.Contains(cluster.Interested(s.fabric, "realm1", topic), watcher) {
						return false
					}
				}
				return true
			})
		}
	}
}

// rostered waits until site's roster is written into the table.
func rostered(t *testing.T, s *site) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for !cluster.RosterFlushed(s.fabric) {
		if time.Now().After(deadline) {
			t.Fatal("the roster is never written")
		}
		<-time.After(10 * time.Millisecond) // polling the writer with a deadline
	}
}

// reaped waits until each of sites handled n losses or leaves of
// members, then until each watcher heard a session join and leave on each
// of sites after that: what the reapers published reached them first
// (one node's events reach a subscriber in the order published), and
// returns what each heard.
func reaped(t *testing.T, sites []*site, watchers []metaSeen, n uint64) []map[[2]any]int {
	t.Helper()
	// A reaper that lost a server of the table waits for JetStream's
	// elections, which take seconds more on a loaded machine.
	deadline := time.Now().Add(2 * rpcWait)
	for _, s := range sites {
		for cluster.Reaped(s.fabric) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%s handled %d losses, want %d", s.node.Self(), cluster.Reaped(s.fabric), n)
			}
			<-time.After(10 * time.Millisecond) // polling the reapers with a deadline
		}
	}
	markers := map[[2]any]int{}
	for _, s := range sites {
		m := s.join(t)
		markers[[2]any{onLeave, m.ID()}] = 1
		m.Close()
	}
	heard := make([]map[[2]any]int, len(watchers))
	for i, w := range watchers {
		heard[i] = map[[2]any]int{}
		w.until(t, markers, heard[i])
	}
	return heard
}

// exactly checks that heard counts each event of want as want says.
func exactly(t *testing.T, node int, heard, want map[[2]any]int) {
	t.Helper()
	for k, n := range want {
		if heard[k] != n {
			t.Errorf("watcher on node %d: %s of session %d heard %d times, want %d", node, k[0], k[1], heard[k], n)
		}
	}
}

// TestRosterNodeLost: when a node with two sessions, their registrations
// and subscriptions, dies, a watcher of the meta events on each surviving
// node hears each event of their leaving once: on_unsubscribe and
// on_unregister for each, on_delete for the subscription and the
// registration no other node has (once, after the last of the lost
// node's sessions), none for those another node has, on_leave for each.
func TestRosterNodeLost(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(time.Second, 200*time.Millisecond))
	live := sites[:2]
	watchers := []metaSeen{watchLeaving(t, sites[0]), watchLeaving(t, sites[1])}
	interestEverywhere(t, sites, sites[:2], leavingTopics...)
	hearJoins(t, sites, watchers)
	a, b, other := sites[2].join(t), sites[2].join(t), sites[0].join(t)
	register(t, a, "com.roster.single", answer("a"), nil)
	shared := wamp.Dict{"invoke": wamp.InvokeRoundRobin}
	reg := register(t, b, "com.roster.shared", answer("b"), shared)
	waitCallees(t, other, reg, 1)
	register(t, other, "com.roster.shared", answer("other"), shared)
	subscribe(t, a, "com.roster.only", nil)
	subscribe(t, b, "com.roster.only", nil)
	subscribe(t, b, "com.roster.both", nil)
	subscribe(t, other, "com.roster.both", nil)
	subscribe(t, a, "wamp.session.on_join", nil) // the meta API's own: no event
	rostered(t, sites[2])
	// Either live node may reap: each knows, before the loss, what the
	// other still holds (a subscription or callee made elsewhere a moment
	// before a loss may not have reached the reaper yet).
	interestEverywhere(t, live, live[:1], "com.roster.both")
	callBoth(t, sites[1].join(t), "com.roster.shared", "b", "other")

	lost := sites[2].node.Self()
	clustertest.Kill(sites[2].node)
	heard := reaped(t, live, watchers, 1)
	noRecords(t, sites[0], lost)
	for i, h := range heard {
		exactly(t, i, h, map[[2]any]int{
			{onLeave, a.ID()}: 1, {onLeave, b.ID()}: 1,
			{onUnregister, a.ID()}: 1, {onRegDelete, a.ID()}: 1,
			{onUnregister, b.ID()}: 1, {onRegDelete, b.ID()}: 0,
			{onUnsubscribe, a.ID()}: 1, {onUnsubscribe, b.ID()}: 2,
		})
		if n := h[[2]any{onSubDelete, a.ID()}] + h[[2]any{onSubDelete, b.ID()}]; n != 1 {
			t.Errorf("watcher on node %d: on_delete of a subscription heard %d times, want once (com.roster.only)", i, n)
		}
	}
	// The registration another node still serves is callable; the other
	// is gone, and may be registered again.
	if res, err := other.Call(ctxFor(t), "com.roster.shared", nil, nil); err != nil || res.Args[0] != "other" {
		t.Errorf("call to the shared procedure: %+v, %v", res, err)
	}
	register(t, sites[1].join(t), "com.roster.single", answer("again"), nil)
}

// noRecords checks that s's sess table holds no record of m's sessions.
func noRecords(t *testing.T, s *site, m cluster.Member) {
	t.Helper()
	if n, err := cluster.SessionRecords(s.fabric, m); n != 0 || err != nil {
		t.Errorf("records of the sessions of %s in the sess table: %d, %v; want none", m, n, err)
	}
}

// doomed starts three nodes (opts added), a watcher of the meta events
// on each of the first two and, on the third, a session that registers
// and subscribes to uri, its roster written; it returns the nodes, the
// watchers and the session.
func doomed(t *testing.T, uri wamp.URI, opts ...clustertest.Option) ([]*site, []metaSeen, *client.Session) {
	t.Helper()
	sites := startSites(t, 3, append([]clustertest.Option{clustertest.Lease(time.Second, 200*time.Millisecond)}, opts...)...)
	watchers := []metaSeen{watchLeaving(t, sites[0]), watchLeaving(t, sites[1])}
	interestEverywhere(t, sites, sites[:2], leavingTopics...)
	hearJoins(t, sites, watchers)
	a := sites[2].join(t)
	register(t, a, uri, answer("a"), nil)
	subscribe(t, a, uri, nil)
	rostered(t, sites[2])
	return sites, watchers, a
}

// leftOnce is what a watcher hears once of the leaving of doomed's
// session a.
func leftOnce(a *client.Session) map[[2]any]int {
	return map[[2]any]int{
		{onLeave, a.ID()}: 1, {onUnregister, a.ID()}: 1, {onRegDelete, a.ID()}: 1,
		{onUnsubscribe, a.ID()}: 1, {onSubDelete, a.ID()}: 1,
	}
}

// TestRosterNodeLeft: the sessions of a node that stops cleanly leave
// as they end, their node publishing it: the other nodes publish nothing
// more, and delete what it left in the table (its sessions' records: a
// node that stops writes nothing more). Nothing here waits for a lease:
// a long one keeps a starved test machine from losing a live member,
// whose reaping would make the watchers hear more.
func TestRosterNodeLeft(t *testing.T) {
	sites, watchers, a := doomed(t, "com.roster.left", clustertest.Lease(5*time.Second, 200*time.Millisecond))
	left := sites[2].node.Self()
	sites[2].fabric.Leave() // a's record stays, for the others to delete
	sites[2].router.Close() // a leaves: its node publishes its leaving
	sites[2].fabric.Close()
	sites[2].node.Close()
	heard := reaped(t, sites[:2], watchers, 1)
	for i, h := range heard {
		exactly(t, i, h, leftOnce(a))
	}
	noRecords(t, sites[0], left)
}

// TestRosterReaperLost: when the node reaping a lost member dies before
// it published anything, the last node, hearing one of three, is
// isolated: it takes nothing over (the others may be alive), and the
// lost member's records stay. When the lost member comes back (its cut
// heals; serve: the same life), the survivor hears a majority again: it
// reaps the dead reaper (its session's leaving is heard once) and drops
// the dead reaper's lock on the member back, whose session's leaving is
// never published.
func TestRosterReaperLost(t *testing.T) {
	// serve: the last node serves on isolated; the table keeps its
	// quorum (the lost member is cut off, its server lives).
	sites, watchers, a := doomed(t, "com.roster.reaped", func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	probes := []*client.Session{sites[0].join(t), sites[1].join(t)}
	rostered(t, sites[0])
	rostered(t, sites[1])

	victim := sites[2].node.Self()
	started, release := make(chan cluster.Member, 1), make(chan struct{})
	var first atomic.Bool
	var isolatedReaper atomic.Value
	cluster.OnReap(func(reaper, lost cluster.Member) bool {
		for _, s := range sites {
			if s.node.Self() == reaper && s.node.Isolated() {
				isolatedReaper.Store(reaper)
			}
		}
		if lost != victim || first.Swap(true) {
			return false
		}
		started <- reaper // the first reaper: dies once it took the lock
		<-release
		return true
	})
	t.Cleanup(func() { cluster.OnReap(nil) })
	clustertest.Cut(t, sites[2].node)
	var reaper cluster.Member
	select {
	case reaper = <-started:
	case <-time.After(rpcWait):
		t.Fatal("nobody reaps the lost member")
	}
	dead, survivor := 0, 1
	if sites[1].node.Self() == reaper {
		dead, survivor = 1, 0
	}
	clustertest.Kill(sites[dead].node)
	close(release)
	waitReaped(t, sites[survivor], 2) // the victim's loss, then the reaper's: postponed
	if n, err := cluster.SessionRecords(sites[survivor].fabric, victim); n == 0 || err != nil {
		t.Errorf("records of the victim's sessions while the survivor is isolated: %d, %v; want them kept", n, err)
	}

	clustertest.Heal(t, sites[2].node)
	heard := map[[2]any]int{}
	watchers[survivor].until(t, map[[2]any]int{{onLeave, probes[dead].ID()}: 1}, heard)
	marker := sites[survivor].join(t)
	marker.Close()
	watchers[survivor].until(t, map[[2]any]int{{onLeave, marker.ID()}: 1}, heard)
	exactly(t, survivor, heard, map[[2]any]int{
		{onLeave, probes[dead].ID()}: 1,
		{onLeave, a.ID()}:            0,
		{onUnregister, a.ID()}:       0,
		{onUnsubscribe, a.ID()}:      0,
	})
	deadline := time.Now().Add(rpcWait)
	for {
		locked, err := cluster.ReapLocked(sites[survivor].fabric, victim)
		if err == nil && !locked {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead reaper's lock on the member back: %v, %v; want it dropped", locked, err)
		}
		<-time.After(20 * time.Millisecond) // polling the table with a deadline
	}
	if r := isolatedReaper.Load(); r != nil {
		t.Errorf("%s reaped while isolated", r)
	}
}

// waitReaped waits until s handled n losses or leaves of members.
func waitReaped(t *testing.T, s *site, n uint64) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for cluster.Reaped(s.fabric) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s handled %d losses, want %d", s.node.Self(), cluster.Reaped(s.fabric), n)
		}
		<-time.After(10 * time.Millisecond) // polling the reapers with a deadline
	}
}

// TestIsolatedNoReap: a node isolated while it still reaches the tables
// (it hears no heartbeat of its only peer, which hears it; serve) does
// not reap the peer: the peer's sessions' records and its interest stay
// in the tables, and no leaving of them is published.
func TestIsolatedNoReap(t *testing.T) {
	sites := startSites(t, 2, clustertest.Lease(time.Second, 200*time.Millisecond),
		func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	peer, isolated := sites[0], sites[1]
	watcher := watchLeaving(t, isolated)
	a := peer.join(t)
	register(t, a, "com.isolated.keep", answer("node-1"), nil)
	subscribe(t, a, "com.isolated.keep", nil)
	rostered(t, peer)
	<-cluster.Flushed(peer.fabric)
	kept := peer.node.Self()
	interest := interestRecords(t, isolated.node, kept)
	if len(interest) == 0 {
		t.Fatal("no interest of the peer in the sub table")
	}

	events := make(chan cluster.MemberEvent, 64)
	stop := isolated.node.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stop()
	cluster.Deafen(isolated.node, kept.Name, true)
	waitLost(t, events, kept) // the fabric's parts handled it before this watcher
	if !isolated.node.Isolated() {
		t.Fatal("the node that hears none of its peers is not isolated")
	}
	waitReaped(t, isolated, 1)
	<-cluster.Flushed(isolated.fabric)
	if n, err := cluster.SessionRecords(isolated.fabric, kept); n == 0 || err != nil {
		t.Errorf("records of the peer's sessions: %d, %v; want them kept", n, err)
	}
	if now := interestRecords(t, isolated.node, kept); !maps.Equal(now, interest) {
		t.Errorf("the peer's interest in the sub table: %v, want %v untouched", now, interest)
	}

	cluster.Deafen(isolated.node, kept.Name, false)
	callUntil(t, isolated.join(t), "com.isolated.keep", "node-1")
	heard := map[[2]any]int{}
	marker := isolated.join(t)
	marker.Close()
	watcher.until(t, map[[2]any]int{{onLeave, marker.ID()}: 1}, heard)
	if heard[[2]any{onLeave, a.ID()}] != 0 {
		t.Errorf("the leaving of a live peer's session was published")
	}
}

// interestRecords returns the revisions of the records of member m in
// the sub table, by key, as node reads them: a record deleted and written
// again has a new one.
func interestRecords(t *testing.T, node *cluster.Node, m cluster.Member) map[string]uint64 {
	t.Helper()
	kv, err := node.KV(ctxFor(t), "sub")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.Keys(ctxFor(t))
	if err != nil {
		t.Fatalf("sub table: %v", err)
	}
	prefix := cluster.Token(m.Name) + "." + strconv.FormatUint(m.Epoch, 16) + "."
	revs := map[string]uint64{}
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		e, err := kv.Get(ctxFor(t), k)
		if err != nil {
			t.Fatalf("sub table: %s: %v", k, err)
		}
		revs[k] = e.Revision()
	}
	return revs
}

// TestRosterNodeFenced: a node cut off from the others fences itself and
// closes its clients' sessions, publishing their leaving to its own
// subscribers only; the others reap it and publish it to theirs, once.
func TestRosterNodeFenced(t *testing.T) {
	sites, watchers, a := doomed(t, "com.roster.fenced")
	fenced := sites[2].node.Self()
	clustertest.Cut(t, sites[2].node)
	waitEnded(t, a) // GOODBYE wamp.close.system_shutdown
	heard := reaped(t, sites[:2], watchers, 1)
	for i, h := range heard {
		exactly(t, i, h, leftOnce(a))
	}
	noRecords(t, sites[0], fenced)
}

// TestRosterTakeoverCut: a member that took over a dead reaper's lock and
// is cut off before it finished (it finds itself isolated) goes on once
// it hears a majority again: the lock names it, so no other member takes
// the reaping over while it lives. Five nodes (serve), so that a majority
// stays after the lost member and the dead reaper: the member is cut off,
// its first reaper dies once it took the lock, a survivor takes the lock
// over and is cut off in turn before it reaps, then heals.
func TestRosterTakeoverCut(t *testing.T) {
	sites := startSites(t, 5, clustertest.Lease(time.Second, 200*time.Millisecond),
		func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	lost := sites[4]
	a := lost.join(t)
	subscribe(t, a, "com.roster.takeover", nil)
	rostered(t, lost)

	victim := lost.node.Self()
	first, takeover := make(chan cluster.Member, 1), make(chan cluster.Member, 1)
	release := make(chan struct{})
	var calls atomic.Int32
	cluster.OnReap(func(reaper, m cluster.Member) bool {
		if m != victim {
			return false
		}
		switch calls.Add(1) {
		case 1:
			first <- reaper // dies once it took the lock
			return true
		case 2:
			takeover <- reaper // goes on once it is cut off
			<-release
		}
		return false
	})
	t.Cleanup(func() { cluster.OnReap(nil) })
	bySelf := func(m cluster.Member) *site {
		for _, s := range sites {
			if s.node.Self() == m {
				return s
			}
		}
		t.Fatalf("no site is %s", m)
		return nil
	}
	clustertest.Cut(t, lost.node)
	var reaper cluster.Member
	select {
	case reaper = <-first:
	case <-time.After(rpcWait):
		t.Fatal("nobody reaps the lost member")
	}
	clustertest.Kill(bySelf(reaper).node)
	var taker *site
	select {
	case m := <-takeover:
		taker = bySelf(m)
	case <-time.After(2 * rpcWait):
		t.Fatal("nobody takes the dead reaper's lock over")
	}
	clustertest.Cut(t, taker.node)
	waitUntil(t, "the member that took the lock over is isolated", taker.node.Isolated)
	close(release) // its reaping ends there: it is isolated
	clustertest.Heal(t, taker.node)
	waitUntil(t, "the member that took the lock over hears a majority again", func() bool { return !taker.node.Isolated() })
	deadline := time.Now().Add(2 * rpcWait)
	for {
		n, err := cluster.SessionRecords(taker.fabric, victim)
		locked, lerr := cluster.ReapLocked(taker.fabric, victim)
		if n == 0 && err == nil && !locked && lerr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lost member's records: %d, %v; its lock: %v, %v; want none, reaped", n, err, locked, lerr)
		}
		<-time.After(20 * time.Millisecond) // polling the table with a deadline
	}
}
