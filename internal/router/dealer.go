package router

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// dealer routes calls on one realm.
//
// mu guards the dealer and every session's dealer state (regs, calls, invs)
// and every registration and call. No I/O and no call back into the
// router happen while it is held: functions that take it return what to
// send (outbox), and the caller sends after unlocking. Timers are started
// and stopped under it (time.AfterFunc does no I/O).
type dealer struct {
	realm *realm

	mu    sync.Mutex // after realm.mu in the order; a leaf otherwise
	index uriindex.Index[*registration]
	byID  map[wamp.ID]*registration
	// What the realm's limits count: the registrations the realm's
	// sessions hold (the sum of their len(regs)) and their weight, and
	// their calls in flight (of their len(calls)).
	holders  tally
	inFlight int
	// durations are the calls' times from CALL to their final RESULT or
	// ERROR (finish); atomics, observed under mu.
	durations meter.Histogram
	// remote are the sessions of other nodes (dealer_remote.go); nil on
	// one node.
	remote *remotes
}

// registration is a procedure pattern and its callees, in registration
// order; dealer.mu guards it.
type registration struct {
	id        wamp.ID
	procedure wamp.URI
	match     uriindex.Match
	weight    int // what it counts against the limits (registrationCost)
	policy    string
	created   time.Time
	callees   []callee
	next      int // round robin position
}

// callee is one registrant. announced is closed once REGISTERED was sent
// to it: a caller waits for it (outside the lock) before sending an
// INVOCATION, so that no INVOCATION overtakes REGISTERED. The wait is
// short: the callee's goroutine closes it right after its Send, which does
// not block.
type callee struct {
	s         *session
	announced chan struct{}
	order     uint64 // in a cluster, the callee's place in the registration order (Callee.Order); 0 on one node
}

// add inserts c after every callee whose order is not larger than its
// own: in registration order across the cluster (on one node, every
// order is 0 and c goes last). dealer.mu must be held.
func (r *registration) add(c callee) {
	i := len(r.callees)
	for i > 0 && r.callees[i-1].order > c.order {
		i--
	}
	r.callees = slices.Insert(r.callees, i, c)
}

// call is a CALL in flight; dealer.mu guards it.
type call struct {
	caller     *session
	request    wamp.ID // the caller's CALL request ID
	callee     *session
	invocation wamp.ID // the INVOCATION request ID, callee scope
	progress   bool    // the caller asked for progressive results
	killing    bool    // INTERRUPT (mode kill) was sent
	concurrent bool    // the caller had other calls in flight when it made this one
	timer      *time.Timer
	start      time.Duration // of the CALL, as since(); 8 bytes where a time.Time takes 24
}

// epoch is the origin of since: durations from it are monotonic.
var epoch = time.Now()

// since is the monotonic time now, as a duration from epoch.
func since() time.Duration { return time.Since(epoch) }

// outbox collects messages to send once dealer.mu is released.
type outbox []envelope

type envelope struct {
	to  *session
	msg wamp.Message
}

func (o *outbox) add(to *session, m wamp.Message) { *o = append(*o, envelope{to, m}) }

// flush sends everything; no lock may be held.
func (o outbox) flush() {
	for _, e := range o {
		e.to.send(e.msg)
	}
}

func newDealer(rm *realm) *dealer {
	return &dealer{realm: rm, byID: make(map[wamp.ID]*registration)}
}

func (r *registration) info() regInfo {
	return regInfo{ID: r.id, Procedure: r.procedure, Match: r.match.String(), Invoke: r.policy, Created: r.created}
}

// count returns the number of registrations, of registrations held by
// sessions (each callee of each), what the realm's limit on them counts,
// and the number of calls in flight.
func (d *dealer) count() (regs, held, weight, inFlight int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.byID), d.holders.held, d.holders.weight, d.inFlight
}

// pick chooses a callee by the registration's policy. A registration
// always has at least one. dealer.mu must be held.
func (r *registration) pick() callee {
	n := len(r.callees)
	switch r.policy {
	case wamp.InvokeLast:
		return r.callees[n-1]
	case wamp.InvokeRoundRobin:
		k := r.next % n
		r.next = (k + 1) % n
		return r.callees[k]
	case wamp.InvokeRandom:
		return r.callees[rand.IntN(n)]
	}
	return r.callees[0]
}

// forget removes c from its caller's and callee's state and stops its
// timer. dealer.mu must be held.
func (d *dealer) forget(c *call) {
	if c.pending() {
		d.inFlight--
	}
	c.caller.calls.remove(c.request)
	c.callee.invs.remove(c.invocation)
	if c.timer != nil {
		c.timer.Stop()
	}
}

// finish forgets c, which its final RESULT or ERROR answers, and counts
// its duration. dealer.mu must be held.
func (d *dealer) finish(c *call) {
	if c.pending() {
		d.durations.Observe(since() - c.start)
	}
	d.forget(c)
}

// pending reports whether c is still in flight. dealer.mu must be held.
func (c *call) pending() bool { return c.caller.calls.m[c.request] == c }

// interrupt adds the INTERRUPT for c's invocation to out, if the callee
// announced call_canceling: a callee that did not (autobahn-js 22) treats
// INTERRUPT as a protocol violation, so its canceled calls are skipped
// (its late YIELD or ERROR is ignored). It reports whether it was added.
func (c *call) interrupt(out *outbox, mode string, reason wamp.URI) bool {
	if !c.callee.canCancel {
		return false
	}
	out.add(c.callee, &wamp.Interrupt{Request: c.invocation, Options: wamp.Dict{wamp.OptMode: mode, wamp.OptReason: string(reason)}})
	return true
}

// callError is the ERROR answering c's CALL.
func (c *call) callError(uri wamp.URI, msg string) *wamp.Error {
	return wamp.ErrorFor(wamp.TypeCall, c.request, wamp.Errorf(uri, "%s", msg))
}

// restricted reports whether uri is reserved for the router (wamp.*).
func restricted(uri wamp.URI) bool { return strings.HasPrefix(string(uri), reserved) }

// reserved is the router's own namespace.
const reserved = "wamp."

// reachesReserved reports whether the pattern (uri, match) can match a
// URI under wamp.: an exact URI under it, a prefix that is a prefix of
// "wamp." or starts with it (the empty prefix too), a wildcard whose
// first component is empty or "wamp" (and that has more than one).
func reachesReserved(uri wamp.URI, match string) bool {
	p := string(uri)
	switch match {
	case wamp.MatchPrefix:
		return strings.HasPrefix(reserved, p) || strings.HasPrefix(p, reserved)
	case wamp.MatchWildcard:
		first, _, more := strings.Cut(p, ".")
		return more && (first == "" || first == "wamp")
	}
	return restricted(uri)
}

// trusted reports whether s may register the router's wamp.* procedures
// and be called for them: the node's own sessions (an Internal gate) and
// role "trusted" (Crossbar's role of the router's components).
func (s *session) trusted() bool {
	return s.gate.opts.Internal || s.ident.AuthRole == trustedRole
}
