// Package clustertest starts clusters of nodes in one test process: each
// node with its own embedded nats-server on 127.0.0.1, routed to the
// others, JetStream on.
package clustertest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/logtest"
)

// Option changes the config of every node Start makes (node i of n).
type Option func(i int, c *cluster.Config)

// Lease sets the lease and the heartbeat of every node.
func Lease(lease, heartbeat time.Duration) Option {
	return func(_ int, c *cluster.Config) { c.Lease, c.Heartbeat = lease, heartbeat }
}

// startTimeout bounds Start.
const startTimeout = 30 * time.Second

// Start starts n nodes named node-1 ... node-n in the cluster "test",
// each routed to all the others, and waits until every node sees every
// other. The nodes close at the end of the test; their logs are shown if
// it fails.
func Start(t testing.TB, n int, opts ...Option) []*cluster.Node {
	t.Helper()
	log := &logtest.Log{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cluster log:\n%s", log.String())
		}
	})
	var nodes []*cluster.Node
	OnFreeAddrs(t, n, func(addrs []string) (err error) {
		nodes, err = startAll(addrs, log, opts)
		return err
	})
	t.Cleanup(func() {
		closeAll(nodes)
		for _, nd := range nodes {
			configs.Delete(nd)
		}
	})
	WaitMembers(t, nodes, nodes...)
	return nodes
}

// startAll starts n nodes routed to each other on addrs, at once; on an
// error, those started are closed.
func startAll(addrs []string, log *logtest.Log, opts []Option) ([]*cluster.Node, error) {
	n := len(addrs)
	nodes := make([]*cluster.Node, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { nodes[i], errs[i] = start(Config(i, addrs, opts...), log) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			closeAll(nodes)
			for _, nd := range nodes {
				if nd != nil {
					configs.Delete(nd)
				}
			}
			return nil, fmt.Errorf("node %d: %w", i+1, err)
		}
	}
	return nodes, nil
}

// configs are the configs and logs of the nodes started here, for
// Restart.
var configs sync.Map // *cluster.Node -> started

type started struct {
	cfg  cluster.Config
	log  *logtest.Log
	link *cluster.Link // the node's connection to its server (Cut, Heal)
}

// start starts one node of cfg, logging to log, over a link of its own.
func start(cfg cluster.Config, log *logtest.Log) (*cluster.Node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	link := &cluster.Link{}
	linked := cfg
	if cfg.Embedded != nil {
		emb := *cfg.Embedded
		emb.Link = link
		linked.Embedded = &emb
	}
	nd, err := cluster.Start(ctx, linked, log.Logger(slog.LevelInfo))
	if err == nil {
		configs.Store(nd, started{cfg, log, link})
	}
	return nd, err
}

// Cut cuts node, which Start or Restart made, off from the others
// without stopping it, as a network partition would: its connection to
// its NATS server closes and cannot be made again until Heal, so that it
// neither hears nor reaches the others, while its server stays routed to
// theirs (the cluster's tables keep their quorum). Within its lease, the
// others report it lost and it finds itself isolated.
func Cut(t testing.TB, node *cluster.Node) { linkOf(t, node).Cut() }

// Heal ends Cut: node's client connects again at once, hears the others
// and, once it hears a majority, is no longer isolated.
func Heal(t testing.TB, node *cluster.Node) { linkOf(t, node).Heal() }

func linkOf(t testing.TB, node *cluster.Node) *cluster.Link {
	t.Helper()
	v, ok := configs.Load(node)
	if !ok {
		t.Fatalf("%s was not started by clustertest", node.Self())
	}
	return v.(started).link
}

// Restart starts a node with the config of old, a node Start made that
// was killed or closed since: the same name and addresses, a new epoch.
// It closes at the end of the test.
func Restart(t testing.TB, old *cluster.Node) *cluster.Node {
	t.Helper()
	v, ok := configs.Load(old)
	if !ok {
		t.Fatalf("%s was not started by clustertest", old.Self())
	}
	s := v.(started)
	nd, err := start(s.cfg, s.log)
	if err != nil {
		t.Fatalf("restart %s: %v", old.Self().Name, err)
	}
	t.Cleanup(func() {
		nd.Close()
		configs.Delete(nd)
	})
	return nd
}

// Config is the config of node i (0-based) of a cluster whose route
// addresses are addrs: Start's, for tests that start a node themselves.
func Config(i int, addrs []string, opts ...Option) cluster.Config {
	var routes []string
	for j, a := range addrs {
		if j != i {
			routes = append(routes, "nats://"+a)
		}
	}
	cfg := cluster.Config{Name: "test", Node: fmt.Sprintf("node-%d", i+1),
		Embedded: &cluster.Embedded{Listen: addrs[i], Routes: routes}}
	for _, o := range opts {
		o(i, &cfg)
	}
	return cfg
}

// freeAddrs returns n loopback addresses whose ports the OS just chose:
// the route ports must be known before the nodes start, to route each to
// the others.
func freeAddrs(t testing.TB, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	var ls []net.Listener
	for i := range addrs {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		addrs[i] = l.Addr().String()
	}
	for _, l := range ls {
		l.Close()
	}
	return addrs
}

// OnFreeAddrs calls start with n loopback addresses whose ports the OS
// just chose, the route ports of n nodes it starts. A port freed by
// freeAddrs may be taken meanwhile (an outgoing connection's ephemeral
// port): when start fails so, it is called again with other ports, at
// most three times in all; any other error fails t.
func OnFreeAddrs(t testing.TB, n int, start func(addrs []string) error) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		err := start(freeAddrs(t, n))
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "address already in use") || attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("%v: starting again on other ports", err)
	}
}

// FreeAddrs is freeAddrs, for tests that start nodes themselves.
func FreeAddrs(t testing.TB, n int) []string { return freeAddrs(t, n) }

// WaitMembers waits until each of nodes sees exactly want as its live
// members.
func WaitMembers(t testing.TB, nodes []*cluster.Node, want ...*cluster.Node) {
	t.Helper()
	names := map[cluster.Member]bool{}
	for _, w := range want {
		names[w.Self()] = true
	}
	deadline := time.Now().Add(startTimeout)
	for _, nd := range nodes {
		for !sameMembers(nd.Members(), names) {
			if time.Now().After(deadline) {
				t.Fatalf("%s sees %v, want %d members %v", nd.Self(), nd.Members(), len(names), names)
			}
			waitChange(nd)
		}
	}
}

// waitChange returns after the next membership event of nd, or a short
// while.
func waitChange(nd *cluster.Node) {
	ch := make(chan struct{}, 1)
	stop := nd.Watch(func(cluster.MemberEvent) {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	defer stop()
	timeout := time.After(100 * time.Millisecond)
	for range 2 { // the replay of the current members (none before a join), then a change
		select {
		case <-ch:
		case <-timeout:
			return
		}
	}
}

func sameMembers(got []cluster.Member, want map[cluster.Member]bool) bool {
	if len(got) != len(want) {
		return false
	}
	for _, m := range got {
		if !want[m] {
			return false
		}
	}
	return true
}

// Kill stops node as a SIGKILL would: its NATS server and connection
// close without goodbye.
func Kill(node *cluster.Node) { node.Kill() }

func closeAll(nodes []*cluster.Node) {
	var wg sync.WaitGroup
	for _, nd := range nodes {
		if nd != nil {
			wg.Go(func() { nd.Close() })
		}
	}
	wg.Wait()
}
