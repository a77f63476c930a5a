package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/logtest"
)

// waitEvent returns the first event of node's Watch for which match is
// true, or fails the test after within.
func waitEvent(t *testing.T, node *cluster.Node, within time.Duration, match func(cluster.MemberEvent) bool) cluster.MemberEvent {
	t.Helper()
	ch := make(chan cluster.MemberEvent, 64)
	stop := node.Watch(func(ev cluster.MemberEvent) {
		if match(ev) {
			select {
			case ch <- ev:
			default:
			}
		}
	})
	defer stop()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(within):
		t.Fatalf("%s: no such member event within %v (members %v)", node.Self(), within, node.Members())
		return cluster.MemberEvent{}
	}
}

func lost(m cluster.Member) func(cluster.MemberEvent) bool {
	return func(ev cluster.MemberEvent) bool { return !ev.Up && ev.Member == m }
}

func TestMembersSeeEachOther(t *testing.T) {
	nodes := clustertest.Start(t, 3)
	for _, nd := range nodes {
		got := nd.Members()
		if len(got) != 3 || got[0] != nd.Self() {
			t.Errorf("%s: members %v, want 3 with itself first", nd.Self(), got)
		}
	}
	var events []cluster.MemberEvent
	var mu sync.Mutex
	done := make(chan struct{})
	stop := nodes[0].Watch(func(ev cluster.MemberEvent) {
		mu.Lock()
		defer mu.Unlock()
		if events = append(events, ev); len(events) == 3 {
			close(done)
		}
	})
	defer stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if events[0] != (cluster.MemberEvent{Member: nodes[0].Self(), Up: true}) {
		t.Errorf("first event %v, want self up", events[0])
	}
}

// TestCleanLeaveSeenAtOnce: with a lease of a minute, only the goodbye
// can make the others see a node gone within the test.
func TestCleanLeaveSeenAtOnce(t *testing.T) {
	nodes := clustertest.Start(t, 3, clustertest.Lease(time.Minute, time.Second))
	gone := nodes[2].Self()
	ch := make(chan cluster.MemberEvent, 1)
	stop := nodes[0].Watch(func(ev cluster.MemberEvent) {
		if !ev.Up {
			ch <- ev
		}
	})
	defer stop()
	nodes[2].Close()
	select {
	case ev := <-ch:
		if ev.Member != gone {
			t.Fatalf("lost %v, want %v", ev.Member, gone)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("clean leave not seen")
	}
	clustertest.WaitMembers(t, nodes[:2], nodes[:2]...)
}

// TestKilledNodeLostWithinLease: a node killed without goodbye is lost
// within its lease plus one second.
func TestKilledNodeLostWithinLease(t *testing.T) {
	const lease = time.Second
	nodes := clustertest.Start(t, 3, clustertest.Lease(lease, lease/5))
	dead := nodes[1].Self()
	ch := make(chan time.Time, 2)
	for _, nd := range []*cluster.Node{nodes[0], nodes[2]} {
		stop := nd.Watch(func(ev cluster.MemberEvent) {
			if ev.Member == dead && !ev.Up {
				ch <- time.Now()
			}
		})
		defer stop()
	}
	start := time.Now()
	clustertest.Kill(nodes[1])
	for range 2 {
		select {
		case at := <-ch:
			if d := at.Sub(start); d > lease+time.Second {
				t.Errorf("lost after %v, want within %v", d, lease+time.Second)
			}
		case <-time.After(10 * lease):
			t.Fatal("killed node not lost")
		}
	}
	if err := nodes[0].Send(dead, 1, nil); !errors.Is(err, cluster.ErrNotMember) {
		t.Errorf("Send to a lost member: %v, want ErrNotMember", err)
	}
}

// TestSendOrderPerPair: two senders' messages reach the third node's
// handler in each sender's order, without a gap, one at a time per
// sender.
func TestSendOrderPerPair(t *testing.T) {
	// A long lease: the test floods the inbox, and a machine this
	// busy under -race may delay a heartbeat.
	nodes := clustertest.Start(t, 3, clustertest.Lease(20*time.Second, time.Second))
	const n = 2000
	var mu sync.Mutex
	next := map[string]int{}
	running := map[string]bool{}
	done := make(chan struct{})
	to := nodes[2]
	to.Handle(7, func(from cluster.Member, body []byte) {
		mu.Lock()
		if running[from.Name] {
			t.Errorf("two handlers of %s at once", from)
		}
		running[from.Name] = true
		want := fmt.Sprint(next[from.Name])
		next[from.Name]++
		finished := next[nodes[0].Self().Name] == n && next[nodes[1].Self().Name] == n
		mu.Unlock()
		if string(body) != want {
			t.Errorf("from %s: %q, want %q", from, body, want)
		}
		mu.Lock()
		running[from.Name] = false
		mu.Unlock()
		if finished {
			close(done)
		}
	})
	to.OnGap(func(from cluster.Member, lost uint64) { t.Errorf("gap of %d from %s", lost, from) })
	var wg sync.WaitGroup
	for _, from := range nodes[:2] {
		wg.Go(func() {
			for i := range n {
				if err := from.Send(to.Self(), 7, []byte(fmt.Sprint(i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("delivered %v of %d each", next, n)
	}
	if s := to.Stats(); s.Received != 2*n || s.Gaps != 0 || s.Dropped != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestGapReported: messages missing from a pair's sequence are counted and
// reported before the next message is handled.
func TestGapReported(t *testing.T) {
	nodes := clustertest.Start(t, 2)
	from, to := nodes[0], nodes[1]
	got := make(chan string, 4)
	to.OnGap(func(m cluster.Member, lost uint64) { got <- fmt.Sprintf("gap %d from %s", lost, m.Name) })
	to.Handle(1, func(m cluster.Member, body []byte) { got <- string(body) })
	from.Send(to.Self(), 1, []byte("a"))
	cluster.SkipSequence(from, to.Self(), 3)
	from.Send(to.Self(), 1, []byte("b"))
	want := []string{"a", "gap 3 from node-1", "b"}
	for _, w := range want {
		select {
		case g := <-got:
			if g != w {
				t.Fatalf("got %q, want %q", g, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %q", w)
		}
	}
	if s := to.Stats(); s.Gaps != 1 || s.Lost != 3 {
		t.Errorf("stats %+v, want 1 gap of 3", s)
	}
}

func TestSendRefused(t *testing.T) {
	nodes := clustertest.Start(t, 2)
	self := nodes[0].Self()
	other := nodes[1].Self()
	tests := []struct {
		name string
		to   cluster.Member
	}{
		{"itself", self},
		{"unknown name", cluster.Member{Name: "node-9", Epoch: 1}},
		{"earlier epoch", cluster.Member{Name: other.Name, Epoch: other.Epoch + 1}},
	}
	for _, tt := range tests {
		if err := nodes[0].Send(tt.to, 1, nil); !errors.Is(err, cluster.ErrNotMember) {
			t.Errorf("%s: %v, want ErrNotMember", tt.name, err)
		}
	}
}

// TestNameTaken: a node whose name a live member has fails at Start,
// whichever routes it has.
func TestNameTaken(t *testing.T) {
	nodes, addrs := startNodes(t, 2, nil)
	tests := []struct {
		name   string
		routes []string
	}{
		{"routes to both", []string{addrs[0], addrs[1]}},
		{"route to the other only", []string{addrs[1]}},
		{"route to the holder only", []string{addrs[0]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := clustertest.Config(0, addrs, clustertest.Lease(2*time.Second, 200*time.Millisecond))
			cfg.Embedded.Listen = "127.0.0.1:0"
			cfg.Embedded.Routes = nil
			for _, r := range tt.routes {
				cfg.Embedded.Routes = append(cfg.Embedded.Routes, "nats://"+r)
			}
			nd, err := cluster.Start(context.Background(), cfg, slog.New(slog.DiscardHandler))
			if err == nil {
				nd.Close()
			}
			if !errors.Is(err, cluster.ErrNameTaken) {
				t.Fatalf("Start: %v, want ErrNameTaken", err)
			}
		})
	}
	clustertest.WaitMembers(t, nodes, nodes...)
}

// TestNameTakenAtOnce: of two nodes of one name started at the same
// moment (with a third node), never both run: one or both fail with
// ErrNameTaken. Repeated: which one starts first varies. The twins list
// their own address among the routes too.
func TestNameTakenAtOnce(t *testing.T) {
	for i := range 5 {
		var errs []error
		clustertest.OnFreeAddrs(t, 3, func(addrs []string) error {
			errs = startTwins(addrs)
			for _, err := range errs {
				if err != nil && strings.Contains(err.Error(), "address already in use") {
					return err
				}
			}
			return nil
		})
		if errs[2] != nil {
			t.Fatalf("run %d: the third node: %v", i, errs[2])
		}
		for j := range 2 {
			if errs[j] != nil && !errors.Is(errs[j], cluster.ErrNameTaken) {
				t.Fatalf("run %d: twin %d: %v, want ErrNameTaken or nil", i, j, errs[j])
			}
		}
		if errs[0] == nil && errs[1] == nil {
			t.Fatalf("run %d: both nodes named twin started", i)
		}
	}
}

// startTwins starts, at once, two nodes named twin routed to all of
// addrs and a third node, closes those that started, and returns their
// errors.
func startTwins(addrs []string) []error {
	cfgs := make([]cluster.Config, 3)
	for j := range cfgs {
		cfgs[j] = clustertest.Config(j, addrs, clustertest.Lease(time.Second, 100*time.Millisecond))
		if j < 2 {
			cfgs[j].Node = "twin"
			cfgs[j].Embedded.Routes = []string{"nats://" + addrs[0], "nats://" + addrs[1], "nats://" + addrs[2]}
		}
	}
	nodes := make([]*cluster.Node, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for j, cfg := range cfgs {
		wg.Go(func() { nodes[j], errs[j] = cluster.Start(context.Background(), cfg, slog.New(slog.DiscardHandler)) })
	}
	wg.Wait()
	closeStarted(nodes)
	return errs
}

// startNodes starts n nodes routed to each other on free addresses, and
// returns them with their route addresses.
func startNodes(t *testing.T, n int, opts []clustertest.Option) ([]*cluster.Node, []string) {
	t.Helper()
	return startConfigs(t, n, func(addrs []string) []cluster.Config {
		cfgs := make([]cluster.Config, len(addrs))
		for i := range addrs {
			cfgs[i] = clustertest.Config(i, addrs, opts...)
		}
		return cfgs
	}, nil)
}

// startConfigs starts a node of each config that configs makes of n free
// route addresses, at once (node i logging to logs[i], or nowhere),
// again on other addresses if a port was taken meanwhile; closes them at
// the end of the test, and waits until each sees all.
func startConfigs(t *testing.T, n int, configs func(addrs []string) []cluster.Config, logs []*slog.Logger) ([]*cluster.Node, []string) {
	t.Helper()
	var nodes []*cluster.Node
	var addrs []string
	clustertest.OnFreeAddrs(t, n, func(a []string) (err error) {
		addrs = a
		nodes, err = startAtOnce(configs(a), logs)
		return err
	})
	for _, nd := range nodes {
		t.Cleanup(func() { nd.Close() })
	}
	clustertest.WaitMembers(t, nodes, nodes...)
	return nodes, addrs
}

// startAtOnce starts a node of each config at once. On an error it
// closes those that started and returns the first error, naming its node.
func startAtOnce(cfgs []cluster.Config, logs []*slog.Logger) ([]*cluster.Node, error) {
	nodes := make([]*cluster.Node, len(cfgs))
	errs := make([]error, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		log := slog.New(slog.DiscardHandler)
		if logs != nil {
			log = logs[i]
		}
		wg.Go(func() { nodes[i], errs[i] = cluster.Start(context.Background(), cfg, log) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			closeStarted(nodes)
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
	}
	return nodes, nil
}

// closeStarted closes the nodes that started (the others are nil).
func closeStarted(nodes []*cluster.Node) {
	for _, nd := range nodes {
		if nd != nil {
			nd.Close()
		}
	}
}

func TestStartFailsWhenListenTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := cluster.Config{Name: "test", Node: "a", Embedded: &cluster.Embedded{
		Listen: l.Addr().String(), Routes: []string{"nats://" + l.Addr().String()}}}
	nd, err := cluster.Start(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		nd.Close()
		t.Fatal("Start on a taken route port succeeded")
	}
	if !strings.Contains(err.Error(), l.Addr().(*net.TCPAddr).AddrPort().String()[len("127.0.0.1:"):]) {
		t.Errorf("error %q does not name the port", err)
	}
}

func TestKV(t *testing.T) {
	nodes := clustertest.Start(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kv1, err := nodes[0].KV(ctx, "reg")
	if err != nil {
		t.Fatal(err)
	}
	if kv1.Bucket() != "jx_test_reg" {
		t.Errorf("bucket %q", kv1.Bucket())
	}
	if _, err := kv1.Create(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	kv3, err := nodes[2].KV(ctx, "reg")
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv3.Get(ctx, "k")
	if err != nil || string(e.Value()) != "v" {
		t.Fatalf("Get on another node: %v %v", e, err)
	}
	st, err := kv3.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.History() != 1 {
		t.Errorf("history %d, want 1", st.History())
	}
	if _, err := nodes[0].KV(ctx, "a.b"); err == nil {
		t.Error("KV accepted a bucket name with a dot")
	}
}

// TestConfigHashMismatchLogged: a member whose realm, role and auth
// config differs (its hash) is logged at warn, when first heard.
func TestConfigHashMismatchLogged(t *testing.T) {
	var logs [2]logtest.Log
	startConfigs(t, 2, func(addrs []string) []cluster.Config {
		cfgs := make([]cluster.Config, 2)
		for i := range cfgs {
			cfgs[i] = clustertest.Config(i, addrs, clustertest.Lease(3*time.Second, 100*time.Millisecond))
			cfgs[i].ConfigHash = fmt.Sprintf("hash-%d", i)
		}
		return cfgs
	}, []*slog.Logger{logs[0].Logger(slog.LevelInfo), logs[1].Logger(slog.LevelInfo)})
	var warned []map[string]any
	for _, r := range logs[0].Records(t) {
		if strings.Contains(r["msg"].(string), "config differs") {
			warned = append(warned, r)
		}
	}
	if len(warned) != 1 || warned[0]["level"] != "WARN" || warned[0]["hash"] != "hash-1" || warned[0]["own"] != "hash-0" {
		t.Errorf("warnings %v, want one naming hash-1", warned)
	}
}

// TestJoinAfterClose: a node closed before it joined does not join (and
// starts no server).
func TestJoinAfterClose(t *testing.T) {
	nd, err := cluster.New(clustertest.Config(0, clustertest.FreeAddrs(t, 1)), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	nd.Close()
	if err := nd.Join(context.Background()); !errors.Is(err, cluster.ErrClosed) {
		t.Errorf("Join after Close: %v, want ErrClosed", err)
	}
	if _, err := nd.KV(context.Background(), "x"); !errors.Is(err, cluster.ErrClosed) {
		t.Errorf("KV after Close: %v, want ErrClosed", err)
	}
}

// TestGoodbyeAfterMessages: a node that sends messages and closes at
// once has every one handled by their receiver, none dropped as from a
// member that left: its goodbye follows them in the inbox (the one in
// the heartbeats, on a subscription of its own, could come first). The
// receiver sees the member left, and kind 0, the goodbye's, cannot be
// sent.
func TestGoodbyeAfterMessages(t *testing.T) {
	nodes := clustertest.Start(t, 3)
	from, to := nodes[0], nodes[1]
	if err := from.Send(to.Self(), 0, nil); err == nil {
		t.Error("Send of kind 0 succeeded")
	}
	const n = 500
	got := make(chan struct{}, n)
	to.Handle(7, func(cluster.Member, []byte) { got <- struct{}{} })
	left := make(chan struct{})
	var once sync.Once
	stop := to.Watch(func(ev cluster.MemberEvent) {
		if ev.Member == from.Self() && ev.Left {
			once.Do(func() { close(left) })
		}
	})
	defer stop()
	for i := range n {
		if err := from.Send(to.Self(), 7, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	from.Close()
	deadline := time.After(rpcWait)
	for i := range n {
		select {
		case <-got:
		case <-deadline:
			t.Fatalf("%d of %d messages handled; stats %+v", i, n, to.Stats())
		}
	}
	select {
	case <-left:
	case <-deadline:
		t.Fatal("the member never left")
	}
	if s := to.Stats(); s.Dropped != 0 {
		t.Errorf("stats %+v: messages dropped", s)
	}
}
