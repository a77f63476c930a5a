package router

import (
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/wamp"
)

// The router's counters for the operator (Stats, and through it the
// node's Prometheus metrics) are plain atomics in the structs that count:
// a session's messages by type in the session (senders to different
// sessions share no cache line), joins and failed logins by method in the
// realm, calls' durations in the dealer (observed under its lock), the
// errors answering calls in the router. Labels stay bounded: message
// types, authentication methods and error URIs are fixed lists, with
// "other" or "application" for anything else.

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

// counters are a session's messages by type; each session has its own so
// that the hot path does not share a cache line between sessions.
type counters struct {
	in, out [typeSlots]atomic.Uint64
}

func (c *counters) received(t wamp.MessageType) { c.in[slotOf(t)].Add(1) }

// sent counts a message of type t as sent, or, with n = -1, takes that
// back.
func (c *counters) sent(t wamp.MessageType, n int64) { c.out[slotOf(t)].Add(uint64(n)) }

func (c *counters) add(o *counters) {
	for i := range c.in {
		c.in[i].Add(o.in[i].Load())
		c.out[i].Add(o.out[i].Load())
	}
}

// total is the number of messages either way.
func (c *counters) total() uint64 {
	var n uint64
	for i := range c.in {
		n += c.in[i].Load() + c.out[i].Load()
	}
	return n
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

func (mc MessageCounts) addSlots(a *[typeSlots]atomic.Uint64) {
	for i := range a {
		if v := a[i].Load(); v > 0 {
			mc[slotName(i)] += v
		}
	}
}

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
	m := make(map[string]uint64)
	for i := range a {
		if v := a[i].Load(); v > 0 {
			name := OtherLabel
			if i < len(AuthMethods) {
				name = AuthMethods[i]
			}
			m[name] = v
		}
	}
	return m
}

// CallErrors are the error URIs counted apart when they answer a CALL;
// any other URI (a callee's own) counts as ApplicationError.
var CallErrors = [...]wamp.URI{
	wamp.ErrInvalidURI, wamp.ErrNoSuchProcedure, wamp.ErrNotAuthorized,
	wamp.ErrAuthorizationFailed, wamp.ErrInvalidArgument, wamp.ErrCanceled,
	wamp.ErrTimeout, wamp.ErrNoAvailableCallee, wamp.ErrFeatureNotSupported,
	wamp.ErrOptionNotAllowed, wamp.ErrOptionDisallowedDisclose,
	wamp.ErrRuntimeError, wamp.ErrTypeCheck, wamp.ErrLimitExceeded,
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
	m := make(map[string]uint64)
	for i := range c {
		if v := c[i].Load(); v > 0 {
			name := ApplicationError
			if i < len(CallErrors) {
				name = string(CallErrors[i])
			}
			m[name] = v
		}
	}
	return m
}

// noteCallError counts m if it is an ERROR answering a CALL.
func (r *Router) noteCallError(m wamp.Message) {
	if e, ok := m.(*wamp.Error); ok && e.RequestType == wamp.TypeCall {
		r.callErrors.note(e.Error)
	}
}
