package router

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/junction-wamp/junction/internal/wamp"
)

// The router memory one subscription, registration and call in flight
// take at most, for URIs of 30 bytes: the figures behind the realm's
// default limits (DefaultSubscriptionsPerRealm and the others, and
// docs/router.md). TestHeldMemory holds the router to them.
const (
	subscriptionBytes = 512
	registrationBytes = 600
	callBytes         = 300
)

// TestHeldMemory measures the heap the router holds for each
// subscription, registration and call in flight, in the shapes that cost
// the most per item: each on its own URI, one per session (the first
// makes the session's map) or many, a call with a timeout (its timer).
// Measured on Go 1.26, with or without the race detector: 469 bytes a
// subscription alone in its session, 283 among 5,000 of one session; 556
// and 371 a registration; 257 a call with a timeout, about 110 without.
// A subscriber of a topic others subscribe to costs about 50.
func TestHeldMemory(t *testing.T) {
	uri := func(i int) wamp.URI { return wamp.URI(fmt.Sprintf("com.example.app.item.%09d", i)) } // 30 bytes
	subscribe := func(c *client, i int) { c.subscribe(uri(i), nil) }
	register := func(c *client, i int) { c.register(uri(i), nil) }
	call := func(c *client, _ int) { c.call("com.slow", wamp.Dict{"timeout": 600_000}) }
	tests := []struct {
		name           string
		sessions, each int
		hold           func(c *client, i int)
		max            int
	}{
		{"subscriptions, one per session", 1000, 1, subscribe, subscriptionBytes},
		{"subscriptions, 5000 per session", 2, 5000, subscribe, subscriptionBytes},
		{"registrations, one per session", 1000, 1, register, registrationBytes},
		{"registrations, 5000 per session", 2, 5000, register, registrationBytes},
		{"calls in flight with a timeout", 2, 5000, call, callBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			per := heldPerItem(t, tt.sessions, tt.each, tt.hold)
			t.Logf("%.0f bytes each", per)
			if per > float64(tt.max) {
				t.Errorf("%.0f bytes each, want at most %d: the realm's default limits bound memory by these", per, tt.max)
			}
		})
	}
}

// heldPerItem is the heap that sessions*each items held by hold cost the
// router, each.
func heldPerItem(t *testing.T, sessions, each int, hold func(c *client, i int)) float64 {
	r, err := New(Options{Realms: []RealmOptions{{Name: "realm1", Limits: Limits{
		SubscriptionsPerSession: -1, RegistrationsPerSession: -1, CallsInFlightPerSession: -1}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	callee := join(t, r.Gate(), "realm1", nil)
	callee.register("com.slow", nil)
	callee.p.discard.Store(true) // the INVOCATIONs are not the router's to hold
	cs := make([]*client, sessions)
	for i := range cs {
		cs[i] = join(t, r.Gate(), "realm1", nil)
	}
	before := liveHeap()
	for i, c := range cs {
		for j := range each {
			hold(c, i*each+j)
		}
		c.result("wamp.session.count", nil, nil) // every request before it handled
	}
	after := liveHeap()
	runtime.KeepAlive(cs)
	return float64(after-before) / float64(sessions*each)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
