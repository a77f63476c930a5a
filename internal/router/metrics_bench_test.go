package router

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkIdleSessionHeap joins 10,000 sessions over fake peers (a
// queue of one message) and reports the heap each holds once joined
// (heap-B/session: the session, its realm's and router's entries, its
// peer, Gate.Attach's goroutine's heap; not its stack). The body runs
// once whatever b.N is.
func BenchmarkIdleSessionHeap(b *testing.B) {
	const sessions = 10000
	r := newTestRouter(b)
	defer r.Close()
	heapInUse() // the first join's one-time allocations out of the way
	join(b, r.Gate(), "realm1", nil).result("wamp.session.count", nil, nil)
	before := heapInUse()
	cs := make([]*client, sessions)
	for i := range cs {
		cs[i] = joinPeer(b, r.Gate(), "realm1", nil, newFakePeer(1))
	}
	after := heapInUse()
	runtime.KeepAlive(cs)
	for b.Loop() {
	}
	b.ReportMetric(float64(after-before)/sessions, "heap-B/session")
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkSendParallel: sessions send concurrently, each a message to
// itself, as a session answers its client on its own goroutine: what
// counting the messages costs when many sessions count at once on every
// CPU. Their peers count their traffic, as the WebSocket and RawSocket
// ones do, and discard what they are sent. Each goroutine acts for each
// of its sessions in turn; with one session each (the router's case: a
// goroutine per session) they are RunParallel's goroutines, several per
// CPU. With many sessions each, one goroutine per CPU, sending in ~10 ns
// loops, is the worst case for the router's stripes: both CPUs count in
// every stripe all the time.
func BenchmarkSendParallel(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	for _, bc := range []struct{ sessions, each int }{{procs, 1}, {64 * procs, 1}, {1000 * procs, 1000}} {
		b.Run(fmt.Sprintf("sessions=%d/per-goroutine=%d", bc.sessions, bc.each), func(b *testing.B) {
			r := newTestRouter(b)
			defer r.Close()
			ss := sessionsOf(r, joinDiscarding(b, r, bc.sessions, true))
			ev := &wamp.Event{Subscription: 1, Publication: 1, Details: wamp.Dict{}}
			var next atomic.Int64
			b.SetParallelism(bc.sessions / bc.each / procs)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				own := ss[int(next.Add(1)-1)*bc.each%bc.sessions:][:bc.each]
				for i := 0; pb.Next(); i++ {
					own[i%bc.each].send(ev)
				}
			})
			b.StopTimer() // not the router's close
		})
	}
}

// BenchmarkPublishParallel: goroutines on every P publish, each as a
// publisher of its own, to the same n subscribers, whose peers discard
// what they are sent and count their traffic, as the WebSocket and
// RawSocket ones do (metered), or do not, as embedded sessions' (the
// router then counts each session's messages).
func BenchmarkPublishParallel(b *testing.B) {
	for _, metered := range []bool{true, false} {
		for _, n := range []int{1, 100, 1000} {
			b.Run(fmt.Sprintf("metered=%t/subscribers=%d", metered, n), func(b *testing.B) {
				publishParallel(b, metered, n)
			})
		}
	}
}

func publishParallel(b *testing.B, metered bool, n int) {
	r := newTestRouter(b)
	defer r.Close()
	for _, c := range joinDiscarding(b, r, n, metered) {
		c.p.discard.Store(false)
		c.subscribe("com.t", nil)
		c.p.discard.Store(true)
	}
	pubs := sessionsOf(r, joinDiscarding(b, r, 4*runtime.GOMAXPROCS(0), metered))
	rm := r.realm("realm1")
	var next atomic.Int64
	opts, args := wamp.Dict{}, wamp.List{"hello", 42}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		pub := pubs[int(next.Add(1)-1)%len(pubs)]
		for pb.Next() {
			if _, err := rm.broker.publish(pub, "com.t", opts, wamp.Payload{Args: args}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer() // not the router's close
}

// joinDiscarding joins n sessions to realm1 over fake peers that discard
// what they are sent, metered (meteredPeer) or not.
func joinDiscarding(tb testing.TB, r *Router, n int, metered bool) []*client {
	cs := make([]*client, n)
	for i := range cs {
		fp := newFakePeer(16)
		var p wamp.Peer = fp
		if metered {
			p = &meteredPeer{fakePeer: fp}
		}
		cs[i] = attachAs(tb, r.Gate(), fp, p)
		cs[i].hello("realm1", nil)
		fp.discard.Store(true)
	}
	return cs
}

// sessionsOf returns the sessions of cs.
func sessionsOf(r *Router, cs []*client) []*session {
	rm := r.realm("realm1")
	ss := make([]*session, len(cs))
	for i, c := range cs {
		ss[i] = rm.session(c.id)
	}
	return ss
}
