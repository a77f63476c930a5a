package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// server is a router in this process behind a WebSocket and a RawSocket
// listener on 127.0.0.1: its own counters check what loadgen reports.
type server struct {
	router *router.Router
	ws, rs string // host:port of each listener
}

func newServer(t *testing.T) *server {
	t.Helper()
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: "realm1"}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := websocket.NewHandler(websocket.Options{Attacher: r})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	rsrv, err := rawsocket.NewServer(rawsocket.Options{Attacher: r})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go rsrv.Serve(l)
	t.Cleanup(func() { r.Close(); hs.Close(); rsrv.Close() })
	return &server{router: r, ws: strings.TrimPrefix(hs.URL, "http://"), rs: l.Addr().String()}
}

func (s *server) addr(transport string) string {
	if transport == "rawsocket" {
		return s.rs
	}
	return s.ws
}

// sent and received are the router's counts of one message type so far.
func (s *server) sent(typ string) uint64     { return s.router.Stats().Sent[typ] }
func (s *server) received(typ string) uint64 { return s.router.Stats().Received[typ] }

// sentAtLeast is the router's count of sent messages of typ once it has
// reached want, or after 10 s: the router counts a message once its peer
// took it, which may be after loadgen's side has read it.
func (s *server) sentAtLeast(typ string, want uint64) uint64 {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := s.sent(typ)
		if n >= want || time.Now().After(deadline) {
			return n
		}
		<-time.After(time.Millisecond)
	}
}

// loadgen runs the command line and decodes its JSON line into result.
func loadgen(t *testing.T, result any, args ...string) {
	t.Helper()
	var out bytes.Buffer
	if err := run(args, strings.NewReader(""), &out); err != nil {
		t.Fatalf("loadgen %s: %v (output %q)", strings.Join(args, " "), err, out.String())
	}
	if err := json.Unmarshal(out.Bytes(), result); err != nil {
		t.Fatalf("loadgen %s printed %q: %v", strings.Join(args, " "), out.String(), err)
	}
}

// TestRPC runs a fixed count of calls over each transport and serializer,
// at 1 and 8 in flight, and checks loadgen's counts against the callee's
// and the router's: every call it reports was a CALL the router received
// and an INVOCATION it sent, and no other.
func TestRPC(t *testing.T) {
	srv := newServer(t)
	for _, transport := range []string{"websocket", "rawsocket"} {
		for _, serializer := range []string{"json", "msgpack", "cbor", "ubjson"} {
			for _, inflight := range []string{"1", "8"} {
				t.Run(transport+"/"+serializer+"/"+inflight, func(t *testing.T) {
					calls, invocations := srv.received("CALL"), srv.sent("INVOCATION")
					var r rpcResult
					loadgen(t, &r, "rpc", "-addr", srv.addr(transport), "-transport", transport,
						"-serializer", serializer, "-inflight", inflight, "-count", "120", "-warmup", "0")
					if r.Calls != 120 || r.Served != 120 || r.Errors != 0 {
						t.Errorf("calls %d, served %d, errors %d; want 120, 120, 0", r.Calls, r.Served, r.Errors)
					}
					if got := srv.received("CALL") - calls; got != 120 {
						t.Errorf("the router received %d CALLs, want 120", got)
					}
					if got := srv.sentAtLeast("INVOCATION", invocations+120) - invocations; got != 120 {
						t.Errorf("the router sent %d INVOCATIONs, want 120", got)
					}
					if r.Transport != transport || r.Serializer != serializer || r.Mode != "rpc" {
						t.Errorf("result names %s %s %s", r.Mode, r.Transport, r.Serializer)
					}
					if r.P50us <= 0 || r.P99us < r.P50us || r.CallsPerS <= 0 || r.Seconds <= 0 {
						t.Errorf("p50 %v us, p99 %v us, %v calls/s in %v s: want 0 < p50 <= p99, a rate and a time",
							r.P50us, r.P99us, r.CallsPerS, r.Seconds)
					}
				})
			}
		}
	}
}

// TestRPCDuration measures for a duration after a warm-up: the calls
// counted are the router's CALLs less the warm-up's, which the callee
// served before the count began.
func TestRPCDuration(t *testing.T) {
	srv := newServer(t)
	var r rpcResult
	loadgen(t, &r, "rpc", "-addr", srv.ws, "-inflight", "4", "-duration", "200ms", "-warmup", "50ms")
	if r.Calls == 0 || r.Calls != r.Served || r.Errors != 0 {
		t.Fatalf("calls %d, served %d, errors %d", r.Calls, r.Served, r.Errors)
	}
	if total := int64(srv.received("CALL")); total <= r.Calls {
		t.Errorf("the router received %d CALLs in all, want the %d measured plus the warm-up's", total, r.Calls)
	}
	if want := float64(r.Calls) / r.Seconds; r.CallsPerS != want {
		t.Errorf("calls/s %v, want calls / seconds = %v", r.CallsPerS, want)
	}
}

// TestRPCWait follows the script's strace protocol: "ready" once warmed
// up, no call before the go-ahead, the result, and the sessions held open
// until stdin ends.
func TestRPCWait(t *testing.T) {
	srv := newServer(t)
	stdin, feed := io.Pipe()
	stdout, out := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run([]string{"rpc", "-addr", srv.ws, "-count", "50", "-warmup", "10ms", "-wait"}, stdin, out)
		out.Close()
	}()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("first line %q, want ready", lines.Text())
	}
	warm := srv.received("CALL")
	if warm == 0 {
		t.Error("no warm-up call before ready")
	}
	if _, err := io.WriteString(feed, "go\n"); err != nil {
		t.Fatal(err)
	}
	if !lines.Scan() {
		t.Fatalf("no result: %v", <-done)
	}
	var r rpcResult
	if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Calls != 50 || r.Served != 50 || srv.received("CALL")-warm != 50 {
		t.Errorf("calls %d, served %d, router %d; want 50 each", r.Calls, r.Served, srv.received("CALL")-warm)
	}
	if n := srv.router.Stats().Sessions; n != 2 {
		t.Errorf("%d sessions attached after the result, want the callee and caller held", n)
	}
	feed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestFanout publishes a fixed count of events to subscribers over each
// transport: every subscriber gets every event, as the router counts them
// (the warm-up window included).
func TestFanout(t *testing.T) {
	srv := newServer(t)
	for _, transport := range []string{"websocket", "rawsocket"} {
		t.Run(transport, func(t *testing.T) {
			events := srv.sent("EVENT")
			var r fanoutResult
			loadgen(t, &r, "fanout", "-addr", srv.addr(transport), "-transport", transport, "-serializer", "msgpack",
				"-subscribers", "10", "-count", "50", "-window", "20")
			if r.Publications != 50 || r.Delivered != 500 || r.Drops != 0 {
				t.Errorf("publications %d, delivered %d, drops %d; want 50, 500, 0", r.Publications, r.Delivered, r.Drops)
			}
			if got := srv.sentAtLeast("EVENT", events+(50+20)*10) - events; got != (50+20)*10 {
				t.Errorf("the router sent %d EVENTs, want %d (the warm-up window's too)", got, (50+20)*10)
			}
			if r.Seconds <= 0 || r.EventsPerS != float64(r.Delivered)/r.Seconds || r.PublishPerS != float64(r.Publications)/r.Seconds {
				t.Errorf("%v events/s, %v publications/s in %v s: want delivered and publications over seconds",
					r.EventsPerS, r.PublishPerS, r.Seconds)
			}
		})
	}
}

// TestTally checks the count of drops: each subscriber's missing events.
func TestTally(t *testing.T) {
	tests := []struct {
		name              string
		before, now       []int64
		published         int64
		delivered, missed int64
	}{
		{"all", []int64{3, 7}, []int64{13, 17}, 10, 20, 0},
		{"one short", []int64{0, 0}, []int64{10, 6}, 10, 16, 4},
		{"one closed, one with more", []int64{0, 0}, []int64{0, 12}, 10, 12, 10},
		{"none published", []int64{5}, []int64{5}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, m := tally(tt.before, tt.now, tt.published)
			if d != tt.delivered || m != tt.missed {
				t.Errorf("tally = %d delivered, %d drops; want %d, %d", d, m, tt.delivered, tt.missed)
			}
		})
	}
}

// TestIdle joins idle sessions over each transport and reads this
// process's RSS (the router runs here): the router holds every session
// while the result is taken.
func TestIdle(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("idle reads /proc/PID/status, Linux only")
	}
	for _, transport := range []string{"websocket", "rawsocket"} {
		t.Run(transport, func(t *testing.T) {
			srv := newServer(t) // its own: the sessions it counts are this run's
			tg := target{transport: transport, addr: srv.addr(transport), path: "/", serializer: "json", realm: "realm1"}
			o := idleOptions{sessions: 40, parallel: 8, pid: os.Getpid(),
				settle: settleOptions{every: 10 * time.Millisecond, span: 30 * time.Millisecond, tolerance: 0.5, bound: time.Second}}
			got, err := runIdle(tg, o)
			if err != nil {
				t.Fatal(err)
			}
			if n := srv.router.Stats().Sessions; n != 40 {
				t.Errorf("the router holds %d sessions, want 40", n)
			}
			got.release()
			r := got.result.(*idleResult)
			if r.Sessions != 40 || r.Lost != 0 || !r.Settled || r.RSSBefore <= 0 || r.RSSIdle <= 0 {
				t.Errorf("result %+v", r)
			}
			if want := float64(r.RSSIdle-r.RSSBefore) / 40; r.BytesPerSession != want {
				t.Errorf("bytes per session %v, want (idle - before) / sessions = %v", r.BytesPerSession, want)
			}
		})
	}
}

// TestCommandLine checks that a command line loadgen cannot run fails
// with the reason, before it connects anywhere.
func TestCommandLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"flood"}, "usage"},
		{[]string{"rpc"}, "-addr is required"},
		{[]string{"rpc", "-addr", "127.0.0.1:1", "-transport", "quic"}, `-transport "quic"`},
		{[]string{"rpc", "-addr", "127.0.0.1:1", "-serializer", "xml"}, `-serializer "xml"`},
		{[]string{"rpc", "-addr", "127.0.0.1:1", "extra"}, "unexpected arguments"},
		{[]string{"rpc", "-addr", "127.0.0.1:1", "-inflight", "0"}, "-inflight must be at least 1"},
		{[]string{"fanout", "-addr", "127.0.0.1:1", "-subscribers", "0"}, "-subscribers and -window"},
		{[]string{"idle", "-addr", "127.0.0.1:1"}, "-pid and -sessions are required"},
		{[]string{"rpc", "-nosuchflag"}, "not defined"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			err := run(tt.args, strings.NewReader(""), &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) = %v, want an error with %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestHelp: -h lists a mode's flags and is not an error.
func TestHelp(t *testing.T) {
	for _, mode := range []string{"rpc", "fanout", "idle"} {
		if err := run([]string{mode, "-h"}, strings.NewReader(""), io.Discard); err != nil {
			t.Errorf("loadgen %s -h: %v", mode, err)
		}
	}
}

func TestPercentile(t *testing.T) {
	tests := []struct {
		values []int
		q      float64
		want   int
	}{
		{nil, 0.5, 0},
		{[]int{7}, 0.99, 7},
		{[]int{4, 1, 3, 2}, 0.5, 2},
		{[]int{4, 1, 3, 2}, 0.75, 3},
		{[]int{4, 1, 3, 2}, 1, 4},
		{seq(100), 0.99, 99},
		{seq(100), 0.5, 50},
		{seq(1000), 0.99, 990},
		{seq(101), 0.99, 100},
	}
	for _, tt := range tests {
		lat := make([]time.Duration, len(tt.values))
		for i, v := range tt.values {
			lat[i] = time.Duration(v)
		}
		if got := percentile(lat, tt.q); got != time.Duration(tt.want) {
			t.Errorf("percentile(%d values, %v) = %d, want %d", len(tt.values), tt.q, got, tt.want)
		}
	}
}

// seq is 1..n, shuffled by reversal.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = n - i
	}
	return s
}

func TestParseVmRSS(t *testing.T) {
	tests := []struct {
		status string
		want   int64
		err    bool
	}{
		{"Name:\tjunction\nVmPeak:\t  9000 kB\nVmRSS:\t   1234 kB\nThreads:\t7\n", 1234 << 10, false},
		{"VmRSS: 0 kB\n", 0, false},
		{"Name:\tzombie\nThreads:\t1\n", 0, true},
		{"VmRSS:\t12x kB\n", 0, true},
		{"VmRSS:\t12 MB\n", 0, true},
		{"VmRSS:\t-5 kB\n", 0, true},
		{"VmRSS:\t9007199254740993 kB\n", 0, true},
	}
	for _, tt := range tests {
		got, err := parseVmRSS([]byte(tt.status))
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("parseVmRSS(%q) = %d, %v; want %d, error %v", tt.status, got, err, tt.want, tt.err)
		}
	}
}

func FuzzParseVmRSS(f *testing.F) {
	f.Add([]byte("Name:\tjunction\nVmRSS:\t   1234 kB\n"))
	f.Add([]byte("VmRSS:\t-5 kB\n"))
	f.Add([]byte("VmRSS:\t99999999999999999999 kB\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, status []byte) {
		v, err := parseVmRSS(status)
		if err != nil && v != 0 || err == nil && (v < 0 || v%1024 != 0) {
			t.Errorf("parseVmRSS(%q) = %d, %v; want whole KiB or an error", status, v, err)
		}
	})
}
