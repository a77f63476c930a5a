package router

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// heldPattern is a shape of topic or procedure for TestHeldMemory: uri
// gives the i-th of n patterns, all of one length and one number of
// components, none sharing an index node with another below its first
// bytes (the worst case: nothing is shared).
type heldPattern struct {
	name  string
	match string
	n     int
	uri   func(i int) string
}

// heldPatterns are the shapes TestHeldMemory measures: the 30-byte URI
// behind the realm's default limits, the longest URI that counts one, a
// realistic long one, URIs at the default cap (4 KiB) and past it, and
// wildcard patterns with many components, long or empty.
var heldPatterns = []heldPattern{
	{"exact, 30 bytes", "exact", 1000, func(i int) string { return fmt.Sprintf("com.example.app.item.%09d", i) }},
	{"exact, 167 bytes", "exact", 1000, padded(167)},
	{"exact, 4 KiB", "exact", 200, padded(4096)},
	{"exact, 40 KiB", "exact", 20, padded(40 << 10)},
	{"prefix, 16 bytes", "prefix", 300, splitting(16)},
	{"prefix, 30 bytes", "prefix", 600, splitting(30)},
	{"prefix, 40 KiB", "prefix", 20, splitting(40 << 10)},
	{"prefix, 40 KiB, no split", "prefix", 20, padded(40 << 10)},
	{"wildcard, 4 components", "wildcard", 1000, func(i int) string { return fmt.Sprintf("%09d.example..update", i) }},
	{"wildcard, 256 bytes and 16 components", "wildcard", 500, components(15, strings.Repeat("x", 15))},
	{"wildcard, 1000 one-byte components", "wildcard", 50, components(1000, "a")},
	{"wildcard, 4096 empty components", "wildcard", 20, components(4095, "")},
	{"wildcard, 40 components of 1 KiB", "wildcard", 20, components(40, strings.Repeat("x", 1024))},
}

// padded gives URIs of n bytes, distinct from their 10th byte.
func padded(n int) func(i int) string {
	return func(i int) string {
		s := fmt.Sprintf("com.x.%09d.", i)
		return s + strings.Repeat("y", n-len(s))
	}
}

// splitting gives prefix patterns of n bytes, each of which splits the
// label of the one before in the radix tree: two new nodes each, the
// most a prefix pattern makes ("caab…" after "cabb…").
func splitting(n int) func(i int) string {
	return func(i int) string {
		s := fmt.Sprintf("%c", 'c'+i/(n-4)) + strings.Repeat("a", i%(n-4))
		return s + strings.Repeat("b", n-len(s))
	}
}

// components gives wildcard patterns of a distinct first component and k
// more, each comp.
func components(k int, comp string) func(i int) string {
	return func(i int) string { return fmt.Sprintf("p%09d", i) + strings.Repeat("."+comp, k) }
}

// TestHeldMemory measures the heap the router holds for each
// subscription, registration and call in flight, and holds it to what
// each counts against the limits (limits_weight.go): at most its weight
// times subscriptionBytes or registrationBytes, for every shape of URI,
// and callBytes a call with a timeout (its timer). Each is measured in
// the shapes that cost the most per item: one per session (the first
// makes the session's table, sessionTableBytes more) or many per
// session. Measured on Go 1.26, with or without the race detector: 470
// bytes a subscription of 30 bytes alone in its session, 314 among many
// of one session; 557 and 402 a registration; about 1 byte per byte of
// an exact URI and 2 of a prefix or wildcard one (the index's copy); 80 a
// wildcard component; 257 a call with a timeout, about 110 without. A
// subscriber of a topic others subscribe to costs about 50.
func TestHeldMemory(t *testing.T) {
	layouts := []struct {
		name     string
		sessions int
		table    int // bytes each item may take for its session's table
	}{
		{"one per session", 0, sessionTableBytes},
		{"many per session", 2, 0},
	}
	kinds := []struct {
		name string
		cost itemCost
		hold func(c *client, uri wamp.URI, opts wamp.Dict)
	}{
		{"subscriptions", subscriptionCost, func(c *client, uri wamp.URI, opts wamp.Dict) { c.subscribe(uri, opts) }},
		{"registrations", registrationCost, func(c *client, uri wamp.URI, opts wamp.Dict) { c.register(uri, opts) }},
	}
	for _, k := range kinds {
		for _, p := range heldPatterns {
			m, _ := uriindex.ParseMatch(p.match)
			w := k.cost.weight(wamp.URI(p.uri(0)), m)
			opts := wamp.Dict{"match": p.match}
			hold := func(c *client, i int) { k.hold(c, wamp.URI(p.uri(i)), opts) }
			for _, l := range layouts {
				t.Run(k.name+", "+p.name+", "+l.name, func(t *testing.T) {
					sessions, each := p.n, 1
					if l.sessions > 0 {
						sessions, each = l.sessions, p.n/l.sessions
					}
					per := heldPerItem(t, sessions, each, hold)
					max := w*k.cost.unit + l.table
					t.Logf("%.0f bytes each, counted %d: at most %d", per, w, max)
					if per > float64(max) {
						t.Errorf("%.0f bytes each, want at most %d (weight %d): the realm's limits bound memory by these", per, max, w)
					}
				})
			}
		}
	}
	t.Run("calls in flight with a timeout", func(t *testing.T) {
		call := func(c *client, _ int) { c.call("com.slow", wamp.Dict{"timeout": 600_000}) }
		per := heldPerItem(t, 2, 5000, call)
		t.Logf("%.0f bytes each", per)
		if per > callBytes {
			t.Errorf("%.0f bytes each, want at most %d: the realm's limits bound memory by these", per, callBytes)
		}
	})
}

// heldPerItem is the heap that sessions*each items held by hold cost the
// router, each.
func heldPerItem(t *testing.T, sessions, each int, hold func(c *client, i int)) float64 {
	r, err := New(Options{Realms: []RealmOptions{{Name: "realm1", Limits: Limits{
		SubscriptionsPerSession: -1, RegistrationsPerSession: -1, CallsInFlightPerSession: -1, URIBytesPerPattern: -1}}}})
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
