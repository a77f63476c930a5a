package router

import (
	"math/bits"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// The router's counters for the operator (Stats, and through it the
// node's Prometheus metrics) are plain atomics in the structs that count:
// messages by type in the router's stripes (messageCounts: a session
// counts in the stripe its ID picks, so an idle session holds none, and
// sessions busy on different CPUs seldom share a cache line), joins and
// failed logins by method in the realm, calls' durations in the dealer
// (observed under its lock), the errors answering calls in the router.
// Labels stay bounded: message types, authentication methods and error
// URIs are fixed lists, with "other" or "application" for anything else.

// OtherLabel stands for any value outside a fixed list: an authmethod not
// among AuthMethods, a message type not among wamp's, a realm that is not
// configured.
const OtherLabel = "other"

// messageTypes are the message types counted apart, in slot order; slot 0
// counts any other type.
var messageTypes = [...]wamp.MessageType{
	wamp.TypeHello, wamp.TypeWelcome, wamp.TypeAbort, wamp.TypeChallenge,
	wamp.TypeAuthenticate, wamp.TypeGoodbye, wamp.TypeError, wamp.TypePublish,
	wamp.TypePublished, wamp.TypeSubscribe, wamp.TypeSubscribed,
	wamp.TypeUnsubscribe, wamp.TypeUnsubscribed, wamp.TypeEvent, wamp.TypeCall,
	wamp.TypeCancel, wamp.TypeResult, wamp.TypeRegister, wamp.TypeRegistered,
	wamp.TypeUnregister, wamp.TypeUnregistered, wamp.TypeInvocation,
	wamp.TypeInterrupt, wamp.TypeYield,
}

const typeSlots = len(messageTypes) + 1

// typeSlot maps a message type (its code, < 71) to its slot.
var typeSlot = func() (s [wamp.TypeYield + 1]uint8) {
	for i, t := range messageTypes {
		s[t] = uint8(i + 1)
	}
	return s
}()

func slotOf(t wamp.MessageType) int {
	if t < wamp.MessageType(len(typeSlot)) {
		return int(typeSlot[t])
	}
	return 0
}

func slotName(i int) string {
	if i == 0 {
		return OtherLabel
	}
	return messageTypes[i-1].String()
}

// counters are messages by type, either way.
type counters struct {
	in, out [typeSlots]atomic.Uint64
}

func (c *counters) received(t wamp.MessageType) { c.in[slotOf(t)].Add(1) }

func (c *counters) sent(t wamp.MessageType) { c.out[slotOf(t)].Add(1) }

// stripe is one of messageCounts' counters, alone on its cache lines: its
// size is a multiple of 128 bytes (two 64-byte lines, which x86 fetches in
// pairs; 512 bytes in all), and the stripes' array, at least 8 of them, a
// multiple of 4 KiB, which Go allocates page-aligned.
type stripe struct {
	counters
	_ [(128 - unsafe.Sizeof(counters{})%128) % 128]byte
}

// messageCounts are the router's messages by type, in stripes, so that
// an idle session holds no counter of its own. A message counts in the
// stripe of the session whose goroutine handles it (stripe, by its ID):
// one it received or answers in its own, an EVENT of a publication in the
// publisher's (its fan-out counts in one stripe, not in every
// subscriber's, which concurrent publishers would share), an INVOCATION
// in the caller's, a RESULT or ERROR for a call in the callee's
// (session.sendFrom). No lock, no allocation: two sessions running at once
// on two CPUs contend only when their IDs pick the same stripe. A stripe
// is never reset or dropped, so that the totals, summed at scrape time
// with no lock, never go back (Prometheus would read that as a counter
// reset): each count only grows.
type messageCounts struct {
	stripes []stripe
	shift   uint // 64 - log2(len(stripes))
}

// stripesPerProc is how many stripes per CPU (GOMAXPROCS) messageCounts
// has: two sessions running at once on two CPUs count in one stripe
// with a chance of 1/(8·GOMAXPROCS) rounded up to a power of two (1/16 on
// two CPUs), and contend only while they both count.
const stripesPerProc = 8

// init makes the stripes: stripesPerProc per CPU, rounded up to a power
// of two.
func (mc *messageCounts) init() {
	n := stripesPerProc * runtime.GOMAXPROCS(0)
	mc.shift = 64 - uint(bits.Len(uint(n-1)))
	mc.stripes = make([]stripe, 1<<(64-mc.shift))
}

// stripe returns the counters of session id: its Fibonacci hash, so that
// sequential IDs spread as well as random ones.
func (mc *messageCounts) stripe(id wamp.ID) *counters {
	return &mc.stripes[(uint64(id)*0x9E3779B97F4A7C15)>>mc.shift].counters
}

// load adds the counts of every stripe to in and out.
func (mc *messageCounts) load(in, out MessageCounts) {
	for i := range mc.stripes {
		in.addSlots(&mc.stripes[i].in)
		out.addSlots(&mc.stripes[i].out)
	}
}

// MessageCounts are messages by type name ("CALL"; OtherLabel for a type
// wamp does not know), zero counts left out.
type MessageCounts map[string]uint64

// Total is the number of messages of every type.
func (mc MessageCounts) Total() uint64 {
	var n uint64
	for _, v := range mc {
		n += v
	}
	return n
}

func (mc MessageCounts) addSlots(a *[typeSlots]atomic.Uint64) { addNonZero(mc, a[:], slotName) }

// AuthMethods are the authentication methods counted apart; any other
// counts as OtherLabel.
var AuthMethods = [...]string{
	auth.MethodAnonymous, auth.MethodTicket, auth.MethodWampCRA,
	auth.MethodCryptosign, auth.MethodScram, auth.MethodTLS, auth.MethodCookie,
}

// authCounts count joins or failed logins by authmethod; the last slot is
// OtherLabel.
type authCounts [len(AuthMethods) + 1]atomic.Uint64

func (a *authCounts) note(method string) {
	i := 0
	for i < len(AuthMethods) && AuthMethods[i] != method {
		i++
	}
	a[i].Add(1)
}

// load returns the counts by method, zero counts left out.
func (a *authCounts) load() map[string]uint64 {
	m := map[string]uint64{}
	addNonZero(m, a[:], func(i int) string {
		if i < len(AuthMethods) {
			return AuthMethods[i]
		}
		return OtherLabel
	})
	return m
}

// addNonZero adds the non-zero counts of c to m, each under name(its
// index).
func addNonZero(m map[string]uint64, c []atomic.Uint64, name func(int) string) {
	for i := range c {
		if v := c[i].Load(); v > 0 {
			m[name(i)] += v
		}
	}
}

// CallErrors are the error URIs counted apart when they answer a CALL:
// the WAMP errors the router knows and Junction's own (a limit, the
// cluster unavailable or this node isolated from it); any other URI (a
// callee's own) counts as ApplicationError.
var CallErrors = [...]wamp.URI{
	wamp.ErrInvalidURI, wamp.ErrNoSuchProcedure, wamp.ErrNotAuthorized,
	wamp.ErrAuthorizationFailed, wamp.ErrInvalidArgument, wamp.ErrCanceled,
	wamp.ErrTimeout, wamp.ErrNoAvailableCallee, wamp.ErrFeatureNotSupported,
	wamp.ErrOptionNotAllowed, wamp.ErrOptionDisallowedDisclose,
	wamp.ErrRuntimeError, wamp.ErrTypeCheck, wamp.ErrPayloadSizeExceeded, wamp.ErrLimitExceeded,
	wamp.ErrClusterUnavailable, wamp.ErrClusterIsolated,
}

// ApplicationError labels the call errors whose URI is not in CallErrors.
const ApplicationError = "application"

var callErrorSlot = func() map[wamp.URI]int {
	m := make(map[wamp.URI]int, len(CallErrors))
	for i, u := range CallErrors {
		m[u] = i
	}
	return m
}()

// callErrors count the ERRORs answering CALLs by URI; the last slot is
// ApplicationError.
type callErrors [len(CallErrors) + 1]atomic.Uint64

func (c *callErrors) note(uri wamp.URI) {
	i, ok := callErrorSlot[uri]
	if !ok {
		i = len(CallErrors)
	}
	c[i].Add(1)
}

func (c *callErrors) load() map[string]uint64 {
	m := map[string]uint64{}
	addNonZero(m, c[:], func(i int) string {
		if i < len(CallErrors) {
			return string(CallErrors[i])
		}
		return ApplicationError
	})
	return m
}

// noteCallError counts m if it is an ERROR answering a CALL.
func (r *Router) noteCallError(m wamp.Message) {
	if e, ok := m.(*wamp.Error); ok && e.RequestType == wamp.TypeCall {
		r.callErrors.note(e.Error)
	}
}
