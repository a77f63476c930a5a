package router

import (
	"reflect"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// TestStatsCounters: after a known exchange, each of the router's
// counters for the operator has exactly the value the exchange made.
func TestStatsCounters(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g := r.Gate(ticketAuth{role: "anonymous"}, auth.Anonymous("anonymous"))
		callee := join(t, g, "realm1", nil)
		caller := ticketJoin(t, g, "realm1", "joe")
		callee.register("com.slow", nil)

		// A call answered after 300 ms (the bubble's clock), one with a
		// callee error, one to nobody.
		caller.call("com.slow", nil)
		inv := expect[*wamp.Invocation](callee)
		time.Sleep(300 * time.Millisecond) // the bubble's fake clock: no real wait
		callee.send(&wamp.Yield{Request: inv.Request})
		expect[*wamp.Result](caller)
		caller.call("com.slow", nil)
		inv = expect[*wamp.Invocation](callee)
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: wamp.Dict{}, Error: "com.example.oops"})
		caller.expectError("com.example.oops")
		caller.call("com.nobody", nil)
		caller.expectError(wamp.ErrNoSuchProcedure)

		// Refused joins: a wrong ticket, a realm that does not exist.
		bad := attach(t, g)
		bad.send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authid": "joe", "authmethods": []any{"ticket"}}})
		expect[*wamp.Challenge](bad)
		bad.send(&wamp.Authenticate{Signature: "wrong", Extra: wamp.Dict{}})
		bad.expectAbort(wamp.ErrAuthenticationDenied)
		lost := attach(t, g)
		lost.send(&wamp.Hello{Realm: "attacker.chosen.name", Details: wamp.Dict{"authmethods": []any{"x-made-up"}}})
		lost.expectAbort(wamp.ErrNoSuchRealm)

		synctest.Wait() // the senders count what their peers took after Send
		st := r.Stats()
		rs := st.Realms["realm1"]
		checks := []struct {
			name      string
			got, want any
		}{
			{"joins", rs.Joins, map[string]uint64{"anonymous": 1, "ticket": 1}},
			{"auth failures", rs.AuthFailures, map[string]uint64{"ticket": 1}},
			{"auth failures, other realm", st.OtherAuthFailures, map[string]uint64{OtherLabel: 1}},
			{"call errors", st.CallErrors, map[string]uint64{ApplicationError: 1, string(wamp.ErrNoSuchProcedure): 1}},
			{"received", st.Received, MessageCounts{"HELLO": 4, "AUTHENTICATE": 2, "REGISTER": 1, "CALL": 3, "YIELD": 1, "ERROR": 1}},
			{"sent", st.Sent, MessageCounts{"WELCOME": 2, "CHALLENGE": 2, "ABORT": 2, "REGISTERED": 1, "INVOCATION": 2, "RESULT": 1, "ERROR": 2}},
			{"messages in, out", [2]uint64{st.MessagesIn, st.MessagesOut}, [2]uint64{12, 12}},
			{"calls timed", rs.CallDurations.Count, uint64(2)},
			{"time of calls", rs.CallDurations.Sum, 300 * time.Millisecond},
			{"calls up to 250 ms", rs.CallDurations.Buckets[10], uint64(1)},
			{"calls up to 500 ms", rs.CallDurations.Buckets[11], uint64(2)},
			{"calls in flight", rs.CallsInFlight, 0},
		}
		for _, c := range checks {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
			}
		}
	})
}

// TestStatsNeverGoBack: while sessions come and go, every total Stats
// reports only ever grows (Prometheus reads a drop as a reset).
func TestStatsNeverGoBack(t *testing.T) {
	r, err := New(Options{Realms: []RealmOptions{{Name: "realm1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				c := join(t, r.Gate(), "realm1", nil)
				c.publish("com.t", nil)
				c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
				expect[*wamp.Goodbye](c)
				c.waitDone()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var last Stats
	for {
		st := r.Stats()
		for typ, n := range last.Received {
			if st.Received[typ] < n {
				t.Fatalf("received %s went from %d to %d", typ, n, st.Received[typ])
			}
		}
		for typ, n := range last.Sent {
			if st.Sent[typ] < n {
				t.Fatalf("sent %s went from %d to %d", typ, n, st.Sent[typ])
			}
		}
		last = st
		select {
		case <-done:
			if st := r.Stats(); st.Received["HELLO"] != 200 || st.Received["PUBLISH"] != 200 {
				t.Errorf("received %v, want 200 HELLO and 200 PUBLISH", st.Received)
			}
			return
		default:
		}
	}
}

// TestMessageCountsStripes: the stripes each fill whole pairs of cache
// lines, there are at least stripesPerProc per CPU, a power of two,
// sessions' IDs (random or sequential) spread over all of them, and the
// totals are the sum over the stripes.
func TestMessageCountsStripes(t *testing.T) {
	var mc messageCounts
	mc.init()
	n := len(mc.stripes)
	if size := unsafe.Sizeof(stripe{}); size%128 != 0 {
		t.Errorf("a stripe takes %d bytes, want a multiple of 128", size)
	}
	if n < stripesPerProc*runtime.GOMAXPROCS(0) || n&(n-1) != 0 {
		t.Errorf("%d stripes for GOMAXPROCS %d, want a power of two >= %d", n, runtime.GOMAXPROCS(0), stripesPerProc*runtime.GOMAXPROCS(0))
	}
	for name, id := range map[string]func(i int) wamp.ID{
		"sequential": func(i int) wamp.ID { return wamp.ID(i + 1) },
		"random":     func(int) wamp.ID { return wamp.GlobalID() },
	} {
		used := map[*counters]bool{}
		for i := range 16 * n {
			c := mc.stripe(id(i))
			used[c] = true
			c.received(wamp.TypeCall)
			c.sent(wamp.TypeResult)
		}
		if len(used) != n {
			t.Errorf("%s IDs: %d sessions used %d of %d stripes", name, 16*n, len(used), n)
		}
	}
	in, out := MessageCounts{}, MessageCounts{}
	mc.load(in, out)
	want := uint64(2 * 16 * n)
	if !reflect.DeepEqual(in, MessageCounts{"CALL": want}) || !reflect.DeepEqual(out, MessageCounts{"RESULT": want}) {
		t.Errorf("received %v, sent %v; want %d CALL and %d RESULT", in, out, want, want)
	}
}

// TestCallErrorClasses: the cluster's errors are counted by their URI,
// apart from the callees' own.
func TestCallErrorClasses(t *testing.T) {
	var c callErrors
	for _, u := range []wamp.URI{wamp.ErrClusterIsolated, wamp.ErrClusterUnavailable, wamp.ErrClusterIsolated,
		"com.app.failed", wamp.ErrLimitExceeded, "junction.error.other"} {
		c.note(u)
	}
	want := map[string]uint64{
		string(wamp.ErrClusterIsolated): 2, string(wamp.ErrClusterUnavailable): 1,
		string(wamp.ErrLimitExceeded): 1, ApplicationError: 2,
	}
	if got := c.load(); !reflect.DeepEqual(got, want) {
		t.Errorf("call errors %v, want %v", got, want)
	}
}
