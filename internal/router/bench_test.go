package router

import (
	"fmt"
	"testing"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/internal/wamp"
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
	var f pubFilter
	if err := f.parse(pub, wamp.Dict{}); err != nil {
		t.Fatal(err)
	}
	filterAllocs := testing.AllocsPerRun(100, func() {
		for _, s := range sub.subscribers {
			f.allows(s)
		}
	})
	e := &outEvent{topic: "com.t", details: wamp.Dict{}}
	one := &subscription{id: sub.id, subscribers: sub.subscribers[:1]}
	deliverOne := testing.AllocsPerRun(100, func() { e.deliver("", uriindex.Exact, one) })
	deliverAll := testing.AllocsPerRun(100, func() { e.deliver("", uriindex.Exact, sub) })
	b.mu.RUnlock()
	if n == 0 || matchAllocs != 0 || filterAllocs != 0 {
		t.Errorf("match %v allocs (%d matches), filter %v allocs; want 0", matchAllocs, n, filterAllocs)
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
			args := wamp.List{"hello", 42}
			opts := wamp.Dict{}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rm.broker.publish(pub, "com.t", opts, args, nil); err != nil {
					b.Fatal(err)
				}
			}
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
