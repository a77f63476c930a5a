package cluster

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
	"github.com/nats-io/nats.go/jetstream"
)

// onePubSub starts a cluster of one node and its pubsub, logging to log,
// closed at the end of the test.
func onePubSub(t *testing.T, log *slog.Logger) (*pubsub, jetstream.KeyValue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{Name: "one", Node: "back-1", Embedded: &Embedded{}}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	ps := newPubSub(n, log)
	t.Cleanup(ps.close)
	if err := ps.start(ctx); err != nil {
		t.Fatal(err)
	}
	return ps, ps.kv
}

// waitMirror waits until ps's mirror has want members interested in
// topic of realm1.
func waitMirror(t *testing.T, ps *pubsub, topic wamp.URI, want int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		ps.mu.RLock()
		changed := ps.changed
		ps.mu.RUnlock()
		if got := len(ps.interested("realm1", topic, nil)); got == want {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%d members interested in %s, want %d", len(ps.interested("realm1", topic, nil)), topic, want)
		}
	}
}

// waitParked waits until ps holds record k parked (a lost member's), or
// not.
func waitParked(t *testing.T, ps *pubsub, k string, parked bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ps.mu.RLock()
		_, ok := ps.parked[k]
		ps.mu.RUnlock()
		if ok == parked {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("record %s parked %v, want %v", k, ok, parked)
		}
		<-time.After(5 * time.Millisecond) // polling the mirror, which the table's watcher fills, with a deadline
	}
}

// waitKey waits until the table holds key k (present) or not.
func waitKey(t *testing.T, kv jetstream.KeyValue, k string, present bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := kv.Watch(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	has, loaded := false, false
	for !loaded || has != present {
		select {
		case e := <-w.Updates():
			if e == nil {
				loaded = true
			} else {
				has = e.Operation() == jetstream.KeyValuePut
			}
		case <-ctx.Done():
			t.Fatalf("key %s present %v, want %v", k, has, present)
		}
	}
}

// TestPubSubMemberBack: a member reported lost while it was alive (its
// lease expired, then its heartbeats came back under the same life) gets
// its interest back as it is heard again, before the next member event
// (a reaping that follows asks whether another node has a subscription):
// the records it holds, parked while it was lost, written again by it
// after another member deleted them. A record deleted while its member was
// lost stays gone. A record another member deleted, thinking this node
// lost, is written again by this node.
func TestPubSubMemberBack(t *testing.T) {
	ps, kv := onePubSub(t, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	other := Member{Name: "back-2", Epoch: 7}
	in := interest{other, "realm1", router.Subscription{Topic: "com.t", Match: uriindex.Exact}}
	if _, err := kv.Put(ctx, key(in), appendInterest(nil, in)); err != nil {
		t.Fatal(err)
	}
	waitMirror(t, ps, "com.t", 1)

	ps.onMember(MemberEvent{Member: other, Up: false})
	if n := len(ps.interested("realm1", "com.t", nil)); n != 0 {
		t.Fatalf("%d members interested in com.t after its member was lost, want 0", n)
	}
	waitKey(t, kv, key(in), false) // this node, the lowest live, deleted it
	waitParked(t, ps, key(in), false)
	if _, err := kv.Put(ctx, key(in), appendInterest(nil, in)); err != nil {
		t.Fatal(err) // the member writes it again; parked while it is lost
	}
	waitParked(t, ps, key(in), true)
	if n := len(ps.interested("realm1", "com.t", nil)); n != 0 {
		t.Fatalf("%d members interested in com.t while its member is lost, want 0", n)
	}
	ps.onMember(MemberEvent{Member: other, Up: true})
	if n := len(ps.interested("realm1", "com.t", nil)); n != 1 {
		t.Fatalf("%d members interested in com.t as its member is back, want 1", n)
	}

	// Lost again (with no purge: this node is isolated, say), and its
	// record deleted meanwhile: it does not come back with it.
	ps.mu.Lock()
	ps.lost[other] = true
	ps.dropMemberLocked(other, false)
	ps.mu.Unlock()
	waitParked(t, ps, key(in), true)
	if err := kv.Delete(ctx, key(in)); err != nil {
		t.Fatal(err)
	}
	waitParked(t, ps, key(in), false)
	ps.onMember(MemberEvent{Member: other, Up: true})
	if n := len(ps.interested("realm1", "com.t", nil)); n != 0 {
		t.Fatalf("%d members interested in com.t, deleted while its member was lost; want 0", n)
	}

	// This node's own record, deleted by another member, comes back.
	mine := router.Subscription{Topic: "com.mine", Match: uriindex.Prefix}
	ps.setInterest("realm1", mine, true)
	k := key(interest{ps.self, "realm1", mine})
	waitKey(t, kv, k, true)
	if err := kv.Delete(ctx, k); err != nil {
		t.Fatal(err)
	}
	waitKey(t, kv, k, true)
	ps.setInterest("realm1", mine, false)
	waitKey(t, kv, k, false)
}
