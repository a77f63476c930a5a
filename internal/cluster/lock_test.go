package cluster_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
)

// lockWait bounds every wait of these tests.
const lockWait = 20 * time.Second

// holder is one node's part in a lock: it counts the nodes holding the
// lock at once (held), and reports each take on taken.
type holder struct {
	node   *cluster.Node
	held   *atomic.Int32
	taken  chan *holder
	cancel context.CancelFunc
	done   chan error
	// giveUp, when sent to, makes held return by itself once.
	giveUp chan struct{}
	// overlap counts the takes while another node held the lock.
	overlap *atomic.Int32
}

// hold starts node's part in lock name.
func hold(t *testing.T, node *cluster.Node, name string, held, overlap *atomic.Int32, taken chan *holder) *holder {
	ctx, cancel := context.WithCancel(context.Background())
	h := &holder{node: node, held: held, overlap: overlap, taken: taken, cancel: cancel, done: make(chan error, 1),
		giveUp: make(chan struct{}, 1)}
	go func() { h.done <- node.Hold(ctx, name, h.run) }()
	t.Cleanup(h.stop)
	return h
}

func (h *holder) run(ctx context.Context) {
	if n := h.held.Add(1); n != 1 {
		h.overlap.Add(1)
	}
	h.taken <- h
	select {
	case <-ctx.Done():
	case <-h.giveUp:
	}
	h.held.Add(-1)
}

var stopOnce sync.Map

// stop ends h's part (once) and waits for Hold to return.
func (h *holder) stop() {
	if _, done := stopOnce.LoadOrStore(h, true); done {
		return
	}
	h.cancel()
	<-h.done
}

// next returns the holder that takes the lock next.
func next(t *testing.T, taken chan *holder) *holder {
	t.Helper()
	select {
	case h := <-taken:
		return h
	case <-time.After(lockWait):
		t.Fatal("nobody took the lock")
		return nil
	}
}

// TestHold: of three nodes taking part in a lock, one holds it at a
// time; a holder that stops releases it at once, one that gives up too,
// and when a holder's node dies another takes the lock once the dead
// holder's lease has expired.
func TestHold(t *testing.T) {
	nodes := clustertest.Start(t, 3, clustertest.Lease(2*time.Second, 500*time.Millisecond))
	var held, overlap atomic.Int32
	taken := make(chan *holder, 8)
	for _, n := range nodes {
		hold(t, n, "component-x", &held, &overlap, taken)
	}

	first := next(t, taken)
	first.stop() // released: another takes it at once
	second := next(t, taken)
	if second == first {
		t.Fatal("a stopped holder took the lock again")
	}

	second.giveUp <- struct{}{} // held returned by itself: the lock is released
	third := next(t, taken)
	hold(t, first.node, "component-x", &held, &overlap, taken) // first's node takes part again

	start := time.Now()
	clustertest.Kill(third.node)
	fourth := next(t, taken)
	if fourth.node == third.node {
		t.Fatalf("the lock went to %s after its holder %s died", fourth.node.Self(), third.node.Self())
	}
	t.Logf("taken over %v after the holder's node died (lease 2s)", time.Since(start))
	select {
	case h := <-taken:
		t.Fatalf("%s took the lock too", h.node.Self())
	default:
	}
	if n := overlap.Load(); n != 0 {
		t.Errorf("%d takes while another node held the lock", n)
	}
}

// TestReplays: a key claimed on one node is refused on the others until
// its TTL ends; a node that cannot reach the table answers an error.
func TestReplays(t *testing.T) {
	nodes := clustertest.Start(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	r := []*cluster.Replays{cluster.NewReplays(nodes[0]), cluster.NewReplays(nodes[1]), cluster.NewReplays(nodes[2])}
	for _, x := range r {
		x.Start()
		defer x.Close()
	}
	// The first claim may come before the table is open (the cluster just
	// formed): an error until then, never fresh twice.
	for {
		fresh, err := r[0].Claim(ctx, "n-k-42", time.Second)
		if err == nil && fresh {
			break
		}
		if err == nil || ctx.Err() != nil {
			t.Fatalf("first claim: %v %v", fresh, err)
		}
	}
	for i := range r {
		if fresh, err := r[i].Claim(ctx, "n-k-42", time.Second); err != nil || fresh {
			t.Errorf("claim again on node %d: %v %v, want not fresh", i+1, fresh, err)
		}
	}
	if fresh, err := r[1].Claim(ctx, "n-k-43", time.Hour); err != nil || !fresh {
		t.Errorf("another key: %v %v", fresh, err)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for { // expired after its second, the key is fresh again
		fresh, err := r[2].Claim(ctx, "n-k-42", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if fresh {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the key never expired")
		}
	}
	if fresh, _ := r[0].Claim(ctx, "n-k-43", time.Hour); fresh {
		t.Error("a key claimed for an hour expired")
	}

	// A node that cannot reach the table says so (the bridge then
	// refuses the request): it never answers fresh.
	clustertest.Kill(nodes[2])
	if fresh, err := r[2].Claim(ctx, "n-k-44", time.Second); err == nil || fresh {
		t.Errorf("claim on a dead node: %v %v, want an error", fresh, err)
	}
}
