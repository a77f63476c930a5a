package bench

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
)

// maxIdleSessionBytes is the most an idle session may hold (issue 16).
const maxIdleSessionBytes = 5 << 10

// TestIdleSessionMemory checks what an idle session holds over each of
// WebSocket and RawSocket (msgpack, no compression), in a router in a
// process of its own: the growth of the router's RSS from 2,000 idle
// sessions to 4,000, both read after a collection that returned free
// memory to the OS, per session. The first 2,000 absorb what the
// joins leave for good whatever their number (the runtime keeps every
// goroutine's descriptor, and the stacks of as many goroutines as ran at
// once), so that the check sees the cost of one more idle session, as a
// router with 10,000 has it. BenchmarkIdleSessions measures 10,000
// sessions without forcing anything, which includes what the runtime
// keeps for reuse after the joins' garbage (see docs/operations.md).
// Linux only: the RSS is read from /proc, and idle sessions park (hold no
// goroutine) on Linux only.
func TestIdleSessionMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the RSS is read from /proc and idle sessions park on Linux only")
	}
	for _, transport := range []string{"websocket", "rawsocket"} {
		t.Run(transport, func(t *testing.T) {
			const sessions = 2000
			child, addrs, ask := startRouterChild(t)
			pid := child.Process.Pid
			var held []*client.Session
			defer func() {
				for _, s := range held {
					s.Close()
				}
			}()
			held = append(held, joinIdleSessions(t, transport, addrs, sessions)...)
			awaitParked(t, ask)
			before := freedRSS(t, ask, pid)
			held = append(held, joinIdleSessions(t, transport, addrs, sessions)...)
			awaitParked(t, ask)
			per := (freedRSS(t, ask, pid) - before) / sessions
			t.Logf("%s: %d B per idle session (%s)", transport, per, ask("stats"))
			if per > maxIdleSessionBytes {
				t.Errorf("an idle %s session holds %d B, want at most %d", transport, per, maxIdleSessionBytes)
			}
		})
	}
}

// freedRSS is the child's RSS after it returned its free memory to the OS.
func freedRSS(t *testing.T, ask func(string) string, pid int) int64 {
	t.Helper()
	if got := ask("freed"); got != "ok" {
		t.Fatalf("router child: %s", got)
	}
	return rss(t, pid)
}

// awaitParked waits (polling the child, up to a minute) until the
// sessions have parked: the child runs no more than 20 goroutines.
func awaitParked(t *testing.T, ask func(string) string) {
	t.Helper()
	var stats string
	for range 600 {
		stats = ask("stats")
		if n, ok := goroutines(stats); ok && n <= 20 {
			return
		}
		time.Sleep(100 * time.Millisecond) // polling the child, not synchronising
	}
	t.Fatalf("router child: sessions not parked after a minute (%s)", stats)
}

// goroutines reads the goroutine count from the child's stats line.
func goroutines(stats string) (int, bool) {
	for f := range strings.FieldsSeq(stats) {
		if v, ok := strings.CutPrefix(f, "goroutines="); ok {
			n, err := strconv.Atoi(v)
			return n, err == nil
		}
	}
	return 0, false
}
