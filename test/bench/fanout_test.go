package bench

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkFanout publishes events to 1, 100 and 1000 subscribers, each a
// session of its own over WebSocket+msgpack, and counts the events the
// subscribers' handlers received (decoded by the client). The publisher
// sends in windows of `window` events and waits until every subscriber has
// them all, so queues stay bounded and nothing is dropped; events/s is
// deliveries per second.
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run("subscribers="+itoa(n), func(b *testing.B) { benchFanout(b, n) })
	}
}

const window = 200

func benchFanout(b *testing.B, subscribers int) {
	srv := newServer(b)
	ctx := timeout(b)
	var delivered atomic.Int64
	target := atomic.Int64{}
	reached := make(chan struct{}, 1)
	onEvent := func(*client.Event) {
		if delivered.Add(1) == target.Load() {
			reached <- struct{}{}
		}
	}
	for i := 0; i < subscribers; i++ {
		s := join(b, srv.url, "wamp.2.msgpack")
		if _, err := s.Subscribe(ctx, "com.bench.tick", onEvent, nil); err != nil {
			b.Fatal(err)
		}
	}
	pub := join(b, srv.url, "wamp.2.msgpack")
	args := wamp.List{int64(1), "tick", 2.5}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for sent := 0; sent < b.N; {
		n := min(window, b.N-sent)
		target.Store(delivered.Load() + int64(n*subscribers))
		for i := 0; i < n; i++ {
			if _, err := pub.Publish(ctx, "com.bench.tick", args, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		sent += n
		select {
		case <-reached:
		case <-ctx.Done():
			b.Fatalf("only %d of %d events delivered", delivered.Load(), target.Load())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(delivered.Load())/time.Since(start).Seconds(), "events/s")
}
