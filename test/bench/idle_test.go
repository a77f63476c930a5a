package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkIdleSessions joins 10,000 sessions (msgpack, over WebSocket
// or RawSocket) to a router running in a child process and reports that
// process's resident memory: right after the last join (MiB-rss-joined),
// and once the sessions have stayed idle until the runtime collected
// garbage by itself (at most two minutes) and the RSS settled
// (MiB-rss-idle, with its growth per session B/session): only then can
// the runtime return the garbage of the 10,000 handshakes to the OS. Each
// case takes two to three minutes. The benchmark body runs once whatever
// b.N is.
func BenchmarkIdleSessions(b *testing.B) {
	for _, transport := range []string{"websocket", "rawsocket"} {
		b.Run(transport, func(b *testing.B) { benchIdleSessions(b, transport) })
	}
}

func benchIdleSessions(b *testing.B, transport string) {
	const sessions = 10000
	child, addrs, stats := startRouterChild(b)
	before := rss(b, child.Process.Pid)
	held := joinIdleSessions(b, transport, addrs, sessions)
	if b.Failed() {
		return
	}
	joined := rss(b, child.Process.Pid)
	awaitOwnGC(b, stats)
	idle := settledRSS(b, child.Process.Pid)
	b.Logf("router child with %d sessions: %s", sessions, stats("stats"))
	b.ReportMetric(float64(joined)/(1<<20), "MiB-rss-joined")
	b.ReportMetric(float64(idle)/(1<<20), "MiB-rss-idle")
	b.ReportMetric(float64(idle-before)/sessions, "B/session")
	for _, s := range held {
		s.Close()
	}
}

// joinIdleSessions joins n sessions over transport, 64 at a time, to the
// router child at addrs (its WebSocket and RawSocket addresses).
func joinIdleSessions(tb testing.TB, transport string, addrs [2]string, n int) []*client.Session {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var held []*client.Session
	sem := make(chan struct{}, 64)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s, err := joinIdle(transport, addrs)
			if err != nil {
				tb.Error(err)
				return
			}
			mu.Lock()
			held = append(held, s)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return held
}

func joinIdle(transport string, addrs [2]string) (*client.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var p wamp.Peer
	var err error
	if transport == "rawsocket" {
		p, err = rawsocket.Dial(ctx, "tcp", addrs[1], rawsocket.DialOptions{Serializer: "msgpack"})
	} else {
		p, err = websocket.Dial(ctx, "ws://"+addrs[0], websocket.DialOptions{Subprotocols: []string{"wamp.2.msgpack"}})
	}
	if err != nil {
		return nil, err
	}
	return client.Join(ctx, p, client.Config{Realm: realm})
}

// awaitOwnGC waits (up to 150 s) for the router child's runtime to run a
// collection of its own accord: an idle Go process is collected at least
// every two minutes, and only then can the runtime give the garbage of the
// handshakes back to the OS. Forcing one would measure a state the router
// never reaches by itself.
func awaitOwnGC(b testing.TB, stats func(string) string) {
	before := stats("gcs")
	for i := 0; i < 150; i++ {
		time.Sleep(time.Second) // polling the child, not synchronising
		if stats("gcs") != before {
			return
		}
	}
	b.Fatalf("router child: no collection in 150 s (still %s)", before)
}

// settledRSS samples a process's RSS every 500 ms until two samples in a
// row differ by less than 1 % (30 s at most) and returns the last one.
func settledRSS(b testing.TB, pid int) int64 {
	last := rss(b, pid)
	for i := 0; i < 60; i++ {
		time.Sleep(500 * time.Millisecond) // sampling a measurement, not synchronising
		now := rss(b, pid)
		if d := now - last; d < last/100 && -d < last/100 {
			return now
		}
		last = now
	}
	return last
}

// rss reads a process's resident set size in bytes from /proc.
func rss(b testing.TB, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc status")
	return 0
}
