package cluster_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// The cluster's benchmarks (docs/BENCHMARKS.md, make bench): three
// nodes in this process, each a router on its own embedded NATS server
// on 127.0.0.1, the WAMP sessions in memory (local pairs), so that what
// is measured is the routers and the cluster between them, or, for
// calls, also over WebSocket. Between nodes a payload travels as the
// caller's bytes, or MessagePack-encoded (rpc_wire.go, pubsub_wire.go).

// reportLatencies reports the median and the 99th percentile of lat, in
// microseconds, and the calls per second over the benchmark's time.
func reportLatencies(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
	b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkCallAcrossNodes: a caller on node 1 of three, its callee on
// node 2 (cross-node) or on node 1 (same-node), and both on a router
// of no cluster (one-node): one call at a time and 64 in flight;
// calls/s, p50 and p99 of the calls' latencies. The sessions are in
// memory (memory/...) or WebSocket connections with MessagePack on
// 127.0.0.1 (msgpack/...).
func BenchmarkCallAcrossNodes(b *testing.B) {
	sites := startSites(b, 3)
	alone, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: "realm1"}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(alone.Close)
	one := &site{router: alone}
	urls := map[*site]string{}
	joinOver := map[string]func(*site) *client.Session{
		"memory": func(s *site) *client.Session { return s.join(b) },
		"msgpack": func(s *site) *client.Session {
			if urls[s] == "" {
				urls[s] = serveWebSocket(b, s.router)
			}
			return joinWebSocket(b, urls[s])
		},
	}
	ctx := context.Background()
	for _, where := range []struct {
		name           string
		transport      string
		callee, caller *site
	}{
		{"memory/cross-node", "memory", sites[1], sites[0]},
		{"memory/same-node", "memory", sites[0], sites[0]},
		{"memory/one-node", "memory", one, one},
		{"msgpack/cross-node", "msgpack", sites[1], sites[0]},
		{"msgpack/same-node", "msgpack", sites[0], sites[0]},
		{"msgpack/one-node", "msgpack", one, one},
	} {
		proc := wamp.URI("com.bench." + strings.ReplaceAll(where.name, "/", "."))
		callee, caller := joinOver[where.transport](where.callee), joinOver[where.transport](where.caller)
		reg, err := callee.Register(ctx, proc, answer("ok"), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(where.name+"/in-flight-1", func(b *testing.B) {
			b.ReportAllocs()
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				if _, err := caller.Call(ctx, proc, wamp.List{1}, nil); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			reportLatencies(b, lat)
		})
		b.Run(where.name+"/in-flight-64", func(b *testing.B) {
			b.ReportAllocs()
			var mu sync.Mutex
			lat := make([]time.Duration, 0, b.N)
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					start := time.Now()
					if _, err := caller.Call(ctx, proc, wamp.List{1}, nil); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			reportLatencies(b, lat)
		})
		reg.Unregister(ctx)
	}
}

// serveWebSocket serves r's WebSocket transport on 127.0.0.1 until the
// end of the benchmark and returns its URL.
func serveWebSocket(tb testing.TB, r *router.Router) string {
	tb.Helper()
	h, err := websocket.NewHandler(websocket.Options{Attacher: r})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// joinWebSocket joins realm1 at url over WebSocket with MessagePack.
func joinWebSocket(tb testing.TB, url string) *client.Session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), rpcWait)
	defer cancel()
	p, err := websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{"wamp.2.msgpack"}})
	if err != nil {
		tb.Fatal(err)
	}
	c, err := client.Join(ctx, p, client.Config{Realm: "realm1"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// fanoutWindow is the number of publications the fan-out benchmark sends
// before it waits for every subscriber to have received them all.
const fanoutWindow = 200

// BenchmarkFanoutAcrossNodes: one publisher on node 1, 1,000 subscribers
// spread over the three nodes (334 on node 1, 333 on each other); the
// publisher sends windows of fanoutWindow publications and waits until
// every subscriber has received every event of the window. Each
// operation is one publication; events/s counts every subscriber's
// copy. An event not delivered within rpcWait fails the benchmark with
// the count lost.
func BenchmarkFanoutAcrossNodes(b *testing.B) {
	const subscribers = 1000
	sites := startSites(b, 3)
	ctx := context.Background()
	const topic = wamp.URI("com.bench.fanout")
	var (
		warm      atomic.Int64 // subscribers that received a warm-up event
		warmed    = make(chan struct{})
		delivered atomic.Int64 // measured events received, all subscribers
		target    atomic.Int64 // delivered at the end of the window
		reached   = make(chan struct{}, 1)
	)
	for i := range subscribers {
		var seen atomic.Bool
		h := func(ev *client.Event) {
			if n, _ := wamp.AsInt(ev.Args[0]); n < 0 {
				if !seen.Swap(true) && warm.Add(1) == subscribers {
					close(warmed)
				}
				return
			}
			if delivered.Add(1) == target.Load() {
				select {
				case reached <- struct{}{}:
				default:
				}
			}
		}
		if _, err := sites[i%len(sites)].join(b).Subscribe(ctx, topic, h, nil); err != nil {
			b.Fatal(err)
		}
	}
	pub := sites[0].join(b)
	// Warm-up: until every subscriber's interest has reached node 1 (the
	// interest window, docs/cluster.md), events published there miss it.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(rpcWait)
	for warming := true; warming; {
		if _, err := pub.Publish(ctx, topic, wamp.List{-1}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			b.Fatal(err)
		}
		select {
		case <-warmed:
			warming = false
		case <-tick.C:
		case <-deadline:
			b.Fatalf("after %s, %d of %d subscribers get the events", rpcWait, warm.Load(), subscribers)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	sent := 0
	for sent < b.N {
		n := min(fanoutWindow, b.N-sent)
		target.Store(int64(sent+n) * subscribers)
		for i := range n {
			if _, err := pub.Publish(ctx, topic, wamp.List{sent + i}, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		sent += n
		if delivered.Load() == target.Load() {
			continue
		}
		select {
		case <-reached:
		case <-time.After(rpcWait):
			b.Fatalf("%d events of %d lost", target.Load()-delivered.Load(), target.Load())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(delivered.Load())/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(int64(b.N)*subscribers-delivered.Load()), "lost")
}

// BenchmarkRegisterChurn: four sessions on each of the three nodes
// register and unregister procedures of their own, without pause; each
// operation is one REGISTER and its UNREGISTER (a write to the cluster's
// table each), pairs/s counted cluster-wide.
func BenchmarkRegisterChurn(b *testing.B) {
	sites := startSites(b, 3)
	ctx := context.Background()
	var sessions []*client.Session
	for i := range 12 {
		sessions = append(sessions, sites[i%len(sites)].join(b))
	}
	// Warm-up: the first writes after the cluster's start wait for
	// JetStream to settle (leader elections, retried).
	for i, s := range sessions {
		reg, err := s.Register(ctx, wamp.URI(fmt.Sprintf("com.bench.churn.warm.%d", i)), answer("x"), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := reg.Unregister(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.SetParallelism(max(1, len(sessions)/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		k := next.Add(1) - 1
		s := sessions[k%int64(len(sessions))]
		for i := 0; pb.Next(); i++ {
			reg, err := s.Register(ctx, wamp.URI(fmt.Sprintf("com.bench.churn.%d.%d", k, i)), answer("x"), nil)
			if err == nil {
				err = reg.Unregister(ctx)
			}
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkDetectDeadNode: each operation kills a node of three (as
// SIGKILL would: no goodbye) with the default lease and heartbeat, and
// measures until both survivors have lost it, then until both agree on
// its loss (agree.go: its sessions are reaped then); the node is then
// restarted, outside the timer. Reports the median and the largest of
// each over the kills (run it with -benchtime=Nx).
func BenchmarkDetectDeadNode(b *testing.B) {
	nodes := clustertest.Start(b, 3)
	var lostAfter, agreedAfter []time.Duration
	b.ResetTimer()
	for range b.N {
		victim := nodes[2].Self()
		lost, agreed := make(chan struct{}, 2), make(chan struct{}, 2)
		var stops []func()
		for _, nd := range nodes[:2] {
			var onceLost, onceAgreed sync.Once
			stops = append(stops, nd.Watch(func(ev cluster.MemberEvent) {
				if ev.Member == victim && !ev.Up {
					onceLost.Do(func() { lost <- struct{}{} })
				}
			}), cluster.WatchAgreed(nd, func(m cluster.Member) {
				if m == victim {
					onceAgreed.Do(func() { agreed <- struct{}{} })
				}
			}))
		}
		start := time.Now()
		clustertest.Kill(nodes[2])
		lostAfter = append(lostAfter, waitTwice(b, lost, start, victim))
		agreedAfter = append(agreedAfter, waitTwice(b, agreed, start, victim))
		b.StopTimer()
		for _, stop := range stops {
			stop()
		}
		nodes[2] = clustertest.Restart(b, nodes[2])
		clustertest.WaitMembers(b, nodes, nodes...)
		b.StartTimer()
	}
	slices.Sort(lostAfter)
	slices.Sort(agreedAfter)
	b.ReportMetric(float64(lostAfter[len(lostAfter)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(lostAfter[len(lostAfter)-1].Milliseconds()), "max-ms")
	b.ReportMetric(float64(agreedAfter[len(agreedAfter)/2].Milliseconds()), "agreed-median-ms")
	b.ReportMetric(float64(agreedAfter[len(agreedAfter)-1].Milliseconds()), "agreed-max-ms")
}

// waitTwice waits for two signals on ch (one of each survivor) and
// returns the time since start.
func waitTwice(b *testing.B, ch <-chan struct{}, start time.Time, victim cluster.Member) time.Duration {
	for range 2 {
		select {
		case <-ch:
		case <-time.After(rpcWait):
			b.Fatalf("%s: no word of both survivors after %s", victim, rpcWait)
		}
	}
	return time.Since(start)
}
