package router

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// fanOut joins n subscribers of "com.t" whose peers discard what they get,
// and a publisher; it returns the realm and the publisher's session.
func fanOut(tb testing.TB, r *Router, n int) (*realm, *session) {
	for range n {
		c := join(tb, r.Gate(), "realm1", nil)
		c.subscribe("com.t", nil)
		c.p.discard.Store(true)
	}
	pub := join(tb, r.Gate(), "realm1", nil)
	rm := r.realm("realm1")
	return rm, rm.session(pub.id)
}

func newTestRouter(tb testing.TB) *Router {
	r, err := New(Options{Realms: []RealmOptions{{Name: "realm1"}}})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestMatchPathAllocs(t *testing.T) {
	r := newTestRouter(t)
	defer r.Close()
	rm, pub := fanOut(t, r, 100)
	join(t, r.Gate(), "realm1", nil).subscribe("com", wamp.Dict{"match": "prefix"})
	b := rm.broker
	n := 0
	count := func(string, uriindex.Match, *subscription) bool { n++; return true }
	b.mu.RLock()
	matchAllocs := testing.AllocsPerRun(100, func() { b.index.Match("com.t", count) })
	sub, _ := b.index.Get("com.t", uriindex.Exact)
	b.mu.RUnlock()
	var f pubFilter
	if err := f.parse(pub, wamp.Dict{}); err != nil {
		t.Fatal(err)
	}
	filterAllocs := testing.AllocsPerRun(100, func() {
		for _, s := range sub.set.sessions {
			f.allows(s)
		}
	})
	targetAllocs := testing.AllocsPerRun(100, func() {
		var buf [4]target
		ts, _ := b.targets("com.t", buf[:0])
		for _, t := range ts {
			t.set.release()
		}
	})
	e := &outEvent{topic: "com.t", details: wamp.Dict{}}
	one := target{id: sub.id, set: &subscriberSet{sessions: sub.set.sessions[:1]}}
	deliverOne := testing.AllocsPerRun(100, func() { e.deliver(one, pub) })
	deliverAll := testing.AllocsPerRun(100, func() { e.deliver(target{id: sub.id, set: sub.set}, pub) })
	if n == 0 || matchAllocs != 0 || filterAllocs != 0 || targetAllocs != 0 {
		t.Errorf("match %v allocs (%d matches), filter %v allocs, targets %v allocs; want 0", matchAllocs, n, filterAllocs, targetAllocs)
	}
	if deliverAll != deliverOne || deliverOne > 2 {
		t.Errorf("deliver to 1: %v allocs, to 100: %v; want the same, at most 2 (EVENT and Shared)", deliverOne, deliverAll)
	}
}

func BenchmarkPublish(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			r := newTestRouter(b)
			defer r.Close()
			rm, pub := fanOut(b, r, n)
			publishLoop(b, rm, pub)
		})
	}
}

func BenchmarkCallRoundTrip(b *testing.B) {
	r := newTestRouter(b)
	defer r.Close()
	callee := join(b, r.Gate(), "realm1", nil)
	callee.register("com.echo", nil)
	caller := join(b, r.Gate(), "realm1", nil)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case m := <-callee.p.out:
				inv := wamp.Unwrap(m).(*wamp.Invocation)
				callee.p.in <- &wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: inv.Args}
			case <-stop:
				return
			}
		}
	}()
	args := wamp.List{1}
	opts := wamp.Dict{}
	b.ReportAllocs()
	var req wamp.ID
	for b.Loop() {
		req++
		caller.p.in <- &wamp.Call{Request: req, Options: opts, Procedure: "com.echo", Args: args}
		if _, ok := wamp.Unwrap(<-caller.p.out).(*wamp.Result); !ok {
			b.Fatal("no RESULT")
		}
	}
}

// publishLoop publishes an event to com.t for every iteration of b.
func publishLoop(b *testing.B, rm *realm, pub *session) {
	args := wamp.List{"hello", 42}
	opts := wamp.Dict{}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rm.broker.publish(pub, "com.t", opts, wamp.Payload{Args: args}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPublishChurn is BenchmarkPublish while other sessions subscribe
// to and unsubscribe from the same topic without pause, each waiting for
// its SUBSCRIBED and UNSUBSCRIBED: the broker's write lock is taken over
// and over during the fan-out. churn/s is how many SUBSCRIBE+UNSUBSCRIBE
// pairs the churners completed per second meanwhile.
func BenchmarkPublishChurn(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			r := newTestRouter(b)
			defer r.Close()
			rm, pub := fanOut(b, r, n)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var pairs atomic.Int64
			for range 2 {
				c := joinPeer(b, r.Gate(), "realm1", nil, newFakePeer(1<<16))
				wg.Go(func() { churn(c, "com.t", stop, &pairs) })
			}
			pairs.Store(0) // count those during the loop only
			publishLoop(b, rm, pub)
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(pairs.Load())/b.Elapsed().Seconds(), "churn/s")
		})
	}
}

// churn subscribes c to topic and unsubscribes it again until stop is
// closed, counting the pairs; the events c gets meanwhile are skipped.
func churn(c *client, topic wamp.URI, stop <-chan struct{}, pairs *atomic.Int64) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		c.send(&wamp.Subscribe{Request: c.nextReq(), Options: wamp.Dict{}, Topic: topic})
		sub := skipEvents[*wamp.Subscribed](c)
		c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: sub.Subscription})
		skipEvents[*wamp.Unsubscribed](c)
		pairs.Add(1)
	}
}

// skipEvents returns the next message of type T that the router sent to c,
// skipping EVENTs.
func skipEvents[T wamp.Message](c *client) T {
	for {
		m := c.recv()
		if _, ok := m.(*wamp.Event); ok {
			continue
		}
		return m.(T)
	}
}

// BenchmarkSubscribeChurn: one session subscribes to and unsubscribes
// from a topic that n other sessions subscribe to, with no publish under
// way. A pair costs the same whatever n: the subscriber set changes in
// place (it used to be copied whole on every UNSUBSCRIBE, 8 bytes per
// subscriber).
func BenchmarkSubscribeChurn(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			r := newTestRouter(b)
			defer r.Close()
			subscribeMany(b, r.realm("realm1").broker, "com.t", n)
			c := join(b, r.Gate(), "realm1", nil)
			b.ReportAllocs()
			for b.Loop() {
				sub := c.subscribe("com.t", nil)
				c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: sub})
				expect[*wamp.Unsubscribed](c)
			}
		})
	}
}

// subscribeMany subscribes n sessions to topic in b directly: sessions
// that never joined and discard what they are sent, far cheaper than
// joined ones (no goroutine each).
func subscribeMany(tb testing.TB, b *broker, topic wamp.URI, n int) {
	g := b.realm.router.Gate()
	for i := range n {
		p := newFakePeer(1)
		p.discard.Store(true)
		if _, _, _, err := b.subscribe(newSession(g, p), wamp.ID(i+1), topic, uriindex.Exact); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestUnackedPublishAllocs: an unacknowledged PUBLISH that nothing
// refuses allocates no more than the publication itself (the check for a
// limit's refusal is free when there is none).
func TestUnackedPublishAllocs(t *testing.T) {
	r := newTestRouter(t)
	defer r.Close()
	rm, pub := fanOut(t, r, 1)
	m := &wamp.Publish{Request: 1, Options: wamp.Dict{}, Topic: "com.t", Args: wamp.List{"x"}}
	publish := testing.AllocsPerRun(100, func() { rm.broker.publish(pub, m.Topic, m.Options, wamp.Payload{Args: m.Args}) })
	handle := testing.AllocsPerRun(100, func() { pub.handlePublish(m) })
	if handle != publish {
		t.Errorf("handlePublish: %v allocs, broker.publish: %v; want the same", handle, publish)
	}
}
