package cluster_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

// fenceLease is the lease of these tests: a cut node is isolated, and
// lost to the others, within about a second.
const fenceLease = time.Second

// joinVia joins realm1 through attach over an in-memory peer.
func joinVia(t testing.TB, attach func(wamp.Peer), cfg client.Config) (*client.Session, error) {
	t.Helper()
	a, b := local.Pair(local.Options{})
	go attach(b)
	cfg.Realm = "realm1"
	ctx, cancel := context.WithTimeout(context.Background(), rpcWait)
	defer cancel()
	c, err := client.Join(ctx, a, cfg)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// own joins realm1 on s's router as one of the node's own sessions (the
// HTTP bridge's, a component's).
func (s *site) own(t testing.TB) *client.Session {
	t.Helper()
	c, err := joinVia(t, s.router.NewGate(router.GateOptions{Internal: true}).Attach, client.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rejoined waits until n has rejoined with an epoch other than old's.
func rejoined(t *testing.T, n *cluster.Node, old cluster.Member) {
	t.Helper()
	ch := make(chan struct{}, 1)
	stop := n.Watch(func(ev cluster.MemberEvent) {
		if ev.Up && ev.Member.Name == old.Name && ev.Member.Epoch != old.Epoch {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	select {
	case <-ch:
	case <-time.After(rpcWait):
		t.Fatalf("%s did not rejoin", old)
	}
}

// healed heals cut, whose member was old before it was fenced, waits
// until it rejoined and every one of nodes sees all, and returns a client
// session joined on it.
func healed(t *testing.T, cut *site, old cluster.Member, nodes []*cluster.Node) *client.Session {
	t.Helper()
	clustertest.Heal(t, cut.node)
	rejoined(t, cut.node, old)
	clustertest.WaitMembers(t, nodes, nodes...)
	c, err := joinVia(t, cut.router.Attach, client.Config{})
	if err != nil {
		t.Fatalf("join after the rejoin: %v", err)
	}
	return c
}

// callUntil calls proc from s until it answers want, within rpcWait.
func callUntil(t *testing.T, s *client.Session, proc wamp.URI, want string) {
	t.Helper()
	pollCall(t, s, proc, want, t.Fatalf)
}

// pollCall calls proc until it answers want, or gives up with stop after
// rpcWait.
func pollCall(t *testing.T, s *client.Session, proc wamp.URI, want string, stop func(string, ...any)) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for {
		res, err := s.Call(ctxFor(t), proc, nil, nil)
		if err == nil && len(res.Args) == 1 && res.Args[0] == want {
			return
		}
		if time.Now().After(deadline) {
			stop("call %s: %v, %v; want %q", proc, res, err, want)
		}
		<-time.After(20 * time.Millisecond) // the cluster mirrors its table: poll with a deadline
	}
}

// TestFence: a node cut off from a cluster of three (on_isolation fence)
// closes its clients' sessions with GOODBYE wamp.close.system_shutdown,
// refuses joins with ABORT junction.error.cluster_isolated, and fails
// with that URI the calls and acknowledged publications of its own
// sessions that would need another node. Healed, it rejoins with a new
// epoch: clients join again, its own sessions' registrations are in the
// table again under the new epoch, and its clients' registrations from
// before are gone.
func TestFence(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(fenceLease, fenceLease/5))
	nodes := []*cluster.Node{sites[0].node, sites[1].node, sites[2].node}
	cut, other := sites[2], sites[0]
	register(t, other.join(t), "com.remote", answer("node-1"), nil)
	outside := cut.join(t)
	register(t, outside, "com.outside", answer("node-3 outside"), nil)
	own := cut.own(t)
	register(t, own, "com.own", answer("node-3 own"), nil)
	if _, err := own.Subscribe(ctxFor(t), "com.topic", func(*client.Event) {}, nil); err != nil {
		t.Fatal(err)
	}
	callUntil(t, own, "com.remote", "node-1")
	old := cut.node.Self()

	clustertest.Cut(t, cut.node)
	select {
	case <-outside.Done():
	case <-time.After(rpcWait):
		t.Fatal("the client's session on the fenced node is still open")
	}
	if !isError(outside.Err(), wamp.ErrSystemShutdown) {
		t.Errorf("client session ended with %v, want GOODBYE %s", outside.Err(), wamp.ErrSystemShutdown)
	}
	if !cut.node.Fenced() {
		t.Error("sessions closed, node not fenced")
	}
	if _, err := joinVia(t, cut.router.Attach, client.Config{}); !isError(err, wamp.ErrClusterIsolated) {
		t.Errorf("join while fenced: %v, want ABORT %s", err, wamp.ErrClusterIsolated)
	}
	if _, err := own.Call(ctxFor(t), "com.remote", nil, nil); !isError(err, wamp.ErrClusterIsolated) {
		t.Errorf("call to another node's callee while fenced: %v, want %s", err, wamp.ErrClusterIsolated)
	}
	if _, err := own.Publish(ctxFor(t), "com.topic", nil, nil, wamp.Dict{"acknowledge": true}); !isError(err, wamp.ErrClusterIsolated) {
		t.Errorf("acknowledged publish while fenced: %v, want %s", err, wamp.ErrClusterIsolated)
	}
	if res, err := own.Call(ctxFor(t), "com.own", nil, nil); err != nil || res.Args[0] != "node-3 own" {
		t.Errorf("call to this node's own callee while fenced: %v, %v", res, err)
	}
	if _, err := own.Call(ctxFor(t), "wamp.session.count", nil, nil); !isError(err, wamp.ErrClusterIsolated) {
		t.Errorf("session meta procedure while fenced: %v, want %s", err, wamp.ErrClusterIsolated)
	}

	again := healed(t, cut, old, nodes)
	callUntil(t, again, "com.remote", "node-1")
	caller := other.join(t)
	callUntil(t, caller, "com.own", "node-3 own")
	if _, err := caller.Call(ctxFor(t), "com.outside", nil, nil); !isError(err, wamp.ErrNoSuchProcedure) {
		t.Errorf("call to a registration of a session the fence closed: %v, want %s", err, wamp.ErrNoSuchProcedure)
	}
}

// rejoinLease and slowBeat set the tests of a rejoin's order: node-1
// beats every slowBeat, the others every rejoinLease/10, so that a node
// cut off while node-1's last beat is old loses node-1 well before the
// other (while it still hears a majority, it seems) and hears node-1
// again well after it rejoined.
const (
	rejoinLease = 2 * time.Second
	slowBeat    = 3 * rejoinLease / 4
)

// slowFirst gives node-1 the slow heartbeat.
func slowFirst(i int, c *cluster.Config) {
	c.Lease, c.Heartbeat = rejoinLease, rejoinLease/10
	if i == 0 {
		c.Heartbeat = slowBeat
	}
}

// cutAfterSilence cuts node off once it has not heard member slow for
// more than half a lease: node then loses slow about half a lease before
// it finds itself isolated.
func cutAfterSilence(t *testing.T, node *cluster.Node, slow cluster.Member) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for time.Now().Before(deadline) {
		var heard time.Duration
		for _, p := range node.Status().Peers {
			if p.Member == slow {
				heard = p.Heard
			}
		}
		if wait := rejoinLease/2 - heard; wait > 0 {
			<-time.After(wait) // waiting for a moment in slow's heartbeat cycle
			continue
		}
		clustertest.Cut(t, node)
		return
	}
	t.Fatalf("%s kept hearing %s", node.Self(), slow)
}

// TestRejoinKeepsOthersCallees: a node cut off loses one member first,
// while it still hears the other and thinks itself in the majority, and
// starts removing the lost member's callees from the table (its writes
// wait for the link); healed, it has been isolated since, and the lost
// member is not heard yet when it rejoins. Neither the removal started
// before the isolation nor the rejoin's check of its own callees may
// remove the live member's callees from the table: after the heal, a
// single procedure and a shared one keep their callees on node-1.
func TestRejoinKeepsOthersCallees(t *testing.T) {
	sites := startSites(t, 3, slowFirst)
	nodes := []*cluster.Node{sites[0].node, sites[1].node, sites[2].node}
	first, cut := sites[0], sites[2]
	remote := first.join(t)
	register(t, remote, "com.remote", answer("node-1"), nil)
	shared := wamp.Dict{"invoke": wamp.InvokeRoundRobin}
	register(t, remote, "com.shared", answer("node-1"), shared)
	own := cut.own(t)
	register(t, own, "com.shared", answer("node-3"), shared)
	callUntil(t, own, "com.remote", "node-1")
	old := cut.node.Self()

	events := make(chan cluster.MemberEvent, 16)
	stop := cut.node.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stop()
	cutAfterSilence(t, cut.node, first.node.Self())
	waitFor(t, events, rpcWait, cluster.MemberEvent{Member: old})
	again := healed(t, cut, old, nodes)
	callUntil(t, again, "com.remote", "node-1")
	callUntil(t, sites[1].join(t), "com.remote", "node-1")
	callBoth(t, sites[1].join(t), "com.shared", "node-1", "node-3")
}

// waitLost waits for the loss of every member of ms among events, in any
// order.
func waitLost(t *testing.T, events <-chan cluster.MemberEvent, ms ...cluster.Member) {
	t.Helper()
	timeout := time.After(rpcWait)
	for len(ms) > 0 {
		select {
		case ev := <-events:
			if !ev.Up {
				ms = slices.DeleteFunc(ms, func(m cluster.Member) bool { return m == ev.Member })
			}
		case <-timeout:
			t.Fatalf("members not lost within %v: %v", rpcWait, ms)
		}
	}
}

// callBoth calls proc from s until both callees a and b answered, within
// rpcWait.
func callBoth(t *testing.T, s *client.Session, proc wamp.URI, a, b string) {
	t.Helper()
	seen := map[any]bool{}
	deadline := time.Now().Add(rpcWait)
	for !seen[a] || !seen[b] {
		res, err := s.Call(ctxFor(t), proc, nil, nil)
		if err == nil && len(res.Args) == 1 {
			seen[res.Args[0]] = true
		}
		if time.Now().After(deadline) {
			t.Fatalf("call %s: answered by %v, want %s and %s", proc, seen, a, b)
		}
	}
}

// TestServeRevokesDoubledSingle: with on_isolation serve, a node cut off
// keeps its callee of a single procedure while the others, thinking it
// lost, let another node register the procedure; healed, the node finds
// that the table gives the procedure to the other node and revokes its
// own callee (UNREGISTERED, the session stays), whose calls then go to
// the winner. The winner's node is heard again after the rejoin (its
// heartbeats are slow): the loser's node, which lost it while cut off,
// must not take its callee for a stale one and win.
func TestServeRevokesDoubledSingle(t *testing.T) {
	sites := startSites(t, 3, slowFirst, func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	cut := sites[2]
	log := &logtest.Log{}
	loser, err := joinVia(t, cut.router.Attach, client.Config{Logger: log.Logger(slog.LevelWarn)})
	if err != nil {
		t.Fatal(err)
	}
	register(t, loser, "com.single", answer("node-3"), nil)
	events := make(chan cluster.MemberEvent, 16)
	stop := cut.node.Watch(func(ev cluster.MemberEvent) { events <- ev })
	defer stop()

	clustertest.Cut(t, cut.node)
	rest := []*cluster.Node{sites[0].node, sites[1].node}
	clustertest.WaitMembers(t, rest, rest...)
	winner := sites[0].join(t)
	deadline := time.Now().Add(rpcWait)
	for {
		_, err := winner.Register(ctxFor(t), "com.single", answer("node-1"), nil)
		if err == nil {
			break
		}
		if !isError(err, wamp.ErrProcedureAlreadyExists) || time.Now().After(deadline) {
			t.Fatalf("register on the majority's side: %v", err)
		}
		<-time.After(20 * time.Millisecond) // until the node drops the lost node's callee
	}
	if res, err := loser.Call(ctxFor(t), "com.single", nil, nil); err != nil || res.Args[0] != "node-3" {
		t.Errorf("the isolated node serving on: %v, %v", res, err)
	}
	waitLost(t, events, sites[0].node.Self(), sites[1].node.Self()) // the second comes with the isolation
	if !cut.node.Isolated() {
		t.Fatal("the cut node lost both others, and is not isolated")
	}

	clustertest.Heal(t, cut.node)
	callUntil(t, loser, "com.single", "node-1")
	if err := loser.Err(); err != nil {
		t.Errorf("the revoked callee's session ended: %v", err)
	}
	if !strings.Contains(log.String(), "router revoked a registration") {
		t.Errorf("the loser was not told: %s", log.String())
	}
}

// TestEngineUnavailable: without a JetStream quorum (two of three nodes
// dead; the survivor serves on), REGISTER and UNREGISTER fail with
// junction.error.cluster_unavailable, while CALL, PUBLISH and SUBSCRIBE
// go on with what the node holds.
func TestEngineUnavailable(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(fenceLease, fenceLease/5),
		func(_ int, c *cluster.Config) { c.OnIsolation = cluster.Serve })
	s := sites[0].join(t)
	reg := register(t, s, "com.before", answer("node-1"), nil)
	gone := make(chan struct{}, 2)
	stop := sites[0].node.Watch(func(ev cluster.MemberEvent) {
		if !ev.Up {
			gone <- struct{}{}
		}
	})
	defer stop()
	clustertest.Kill(sites[1].node)
	clustertest.Kill(sites[2].node)
	for range 2 {
		select {
		case <-gone:
		case <-time.After(rpcWait):
			t.Fatal("the dead nodes were not reported lost")
		}
	}

	if _, err := s.Register(ctxFor(t), "com.after", answer("x"), nil); !isError(err, wamp.ErrClusterUnavailable) {
		t.Errorf("REGISTER without a quorum: %v, want %s", err, wamp.ErrClusterUnavailable)
	}
	if err := reg.Unregister(ctxFor(t)); !isError(err, wamp.ErrClusterUnavailable) {
		t.Errorf("UNREGISTER without a quorum: %v, want %s", err, wamp.ErrClusterUnavailable)
	}
	if res, err := s.Call(ctxFor(t), "com.before", nil, nil); err != nil || res.Args[0] != "node-1" {
		t.Errorf("CALL without a quorum (the callee stays after the failed UNREGISTER): %v, %v", res, err)
	}
	events := make(chan *client.Event, 1)
	if _, err := s.Subscribe(ctxFor(t), "com.topic", func(ev *client.Event) { events <- ev }, nil); err != nil {
		t.Fatalf("SUBSCRIBE without a quorum: %v", err)
	}
	if _, err := s.Publish(ctxFor(t), "com.topic", wamp.List{1}, nil, wamp.Dict{"acknowledge": true, "exclude_me": false}); err != nil {
		t.Fatalf("PUBLISH without a quorum: %v", err)
	}
	select {
	case <-events:
	case <-time.After(rpcWait):
		t.Error("no event on the node without a quorum")
	}
}
