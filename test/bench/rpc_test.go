package bench

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkRPC measures full round trips caller -> router -> callee ->
// router -> caller over WebSocket, with `concurrency` calls in flight.
// calls/s counts completed calls; allocs/op counts every allocation of the
// process (caller, router and callee together) per call.
func BenchmarkRPC(b *testing.B) {
	for _, sub := range []string{"wamp.2.msgpack", "wamp.2.json", "wamp.2.cbor"} {
		for _, concurrency := range []int{1, 64} {
			b.Run(sub[len("wamp.2."):]+"/concurrency="+itoa(concurrency), func(b *testing.B) {
				benchRPC(b, sub, concurrency)
			})
		}
	}
}

// BenchmarkRPCInProcess is BenchmarkRPC with the caller in the router's
// process, over an in-memory pair (transport/local), as the HTTP Caller's
// embedded session is, and the callee over WebSocket (msgpack): with
// calls in flight side by side, their INVOCATIONs go out in batches.
func BenchmarkRPCInProcess(b *testing.B) {
	for _, concurrency := range []int{1, 64} {
		b.Run("concurrency="+itoa(concurrency), func(b *testing.B) {
			srv := newServer(b)
			callee := join(b, srv.url, "wamp.2.msgpack")
			mine, theirs := local.Pair(local.Options{})
			go srv.router.Gate().Attach(theirs)
			caller, err := client.Join(timeout(b), mine, client.Config{Realm: realm})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { caller.Close() })
			runCalls(b, callee, caller, concurrency)
		})
	}
}

func benchRPC(b *testing.B, subprotocol string, concurrency int) {
	srv := newServer(b)
	callee, caller := join(b, srv.url, subprotocol), join(b, srv.url, subprotocol)
	runCalls(b, callee, caller, concurrency)
}

// runCalls registers an echo procedure with callee and has caller call it
// b.N times, concurrency calls in flight.
func runCalls(b *testing.B, callee, caller *client.Session, concurrency int) {
	echo := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args}, nil
	}
	ctx := timeout(b)
	if _, err := callee.Register(ctx, "com.bench.echo", echo, nil); err != nil {
		b.Fatal(err)
	}
	args := wamp.List{int64(42), "hello", 3.5}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	work := make(chan struct{}, b.N)
	for i := 0; i < b.N; i++ {
		work <- struct{}{}
	}
	close(work)
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if _, err := caller.Call(ctx, "com.bench.echo", args, nil); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for ; n > 0; n /= 10 {
		i--
		buf[i] = byte('0' + n%10)
	}
	return string(buf[i:])
}
