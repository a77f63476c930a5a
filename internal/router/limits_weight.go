package router

import (
	"strings"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// A subscription or registration counts against the limits on them with
// a weight: one per unit (subscriptionBytes, registrationBytes) of router
// memory it takes at most, so that the limits bound that memory whatever
// the URIs. A URI's length is bounded only by the transport's message size
// (1 MiB by default) and by Limits.URIBytesPerPattern, and a wildcard
// pattern takes a trie node per component: counted one each, a wildcard
// subscription of 1 MiB held 152 MB, and the 10,000 exact ones of 1 MiB
// that one session could make, 11 GB.
//
// An exact topic or procedure up to 167 bytes, and a prefix up to 16,
// count one; a wildcard pattern of a few components two. The units are
// what one subscription and one registration take at most with a URI of
// 30 bytes, the figures behind the realm's default limits (TestHeldMemory
// holds the router to them). A session's table of its subscriptions (or
// registrations) takes sessionTableBytes more once it holds any: a cost
// of the session, not of what it holds.
const (
	subscriptionBytes = 512
	registrationBytes = 600
	callBytes         = 300 // a call in flight with a timeout; calls count one each
	sessionTableBytes = 192
)

// The fixed part of what a subscription or registration takes, besides
// its URI: its struct, its entries in the realm's tables and in its
// session's, its subscriber set or callee (measured by TestHeldMemory).
var (
	subscriptionCost = itemCost{fixed: 288, unit: subscriptionBytes}
	registrationCost = itemCost{fixed: 376, unit: registrationBytes}
)

// What the prefix and wildcard indexes hold besides the pattern's string
// and their copy of its bytes (uriindex): at most two radix tree nodes of
// 80 bytes for a prefix, with a slice of children (less the exact index's
// map entry, in the fixed part), and a trie node of 80 bytes per
// component for a wildcard, with what the allocator rounds its copy of
// the component up by.
const (
	prefixNodesBytes = 2*80 + 16 - 24
	wildNodeBytes    = 80 + 16
)

// itemCost is what a subscription or a registration takes, and the unit
// it counts in.
type itemCost struct {
	fixed int // bytes besides the URI
	unit  int // bytes per count
}

// weight is what an item of pattern (uri, m) counts against the limits:
// its bytes in units, rounded up; at least one.
func (c itemCost) weight(uri wamp.URI, m uriindex.Match) int {
	return (c.fixed + uriBytes(uri, m) + c.unit - 1) / c.unit
}

// growth is what an item of weight w adds to the realm's count: its
// weight when its subscription or registration is new, one when the
// session joins those that hold it (the realm holds its pattern once).
func growth(w int, exists bool) int {
	if exists {
		return 1
	}
	return w
}

// tally is what a realm's sessions hold of subscriptions (or
// registrations): held, each subscriber (callee) of each, and weight,
// what the realm's limit counts: one for each of those, and for each
// subscription its weight less one.
type tally struct{ held, weight int }

// hold counts a session's holding an item of weight w, new if created.
func (t *tally) hold(w int, created bool) {
	t.held++
	t.weight += growth(w, !created)
}

// release counts a session's letting go of an item of weight w, gone if
// deleted.
func (t *tally) release(w int, deleted bool) {
	t.held--
	t.weight -= growth(w, !deleted)
}

// uriBytes bounds what the router holds for the URI of pattern (uri, m):
// its string, and for a prefix or wildcard pattern the index's copy of its
// bytes (labels or edges) and its nodes. Shared nodes are counted as if
// they were not: the pattern may be the last to use them.
func uriBytes(uri wamp.URI, m uriindex.Match) int {
	n := allocBytes(len(uri))
	switch m {
	case uriindex.Prefix:
		return 2*n + prefixNodesBytes
	case uriindex.Wildcard:
		return 2*n + (strings.Count(string(uri), ".")+1)*wildNodeBytes
	}
	return n
}

// allocBytes bounds the memory of an n-byte allocation: Go's allocator
// rounds a small one up to its size class (at most a quarter more, 16
// bytes for the smallest) and a large one up to whole pages of 8 KiB
// (less than a quarter more past 32 KiB).
func allocBytes(n int) int { return n + n/4 + 16 }
