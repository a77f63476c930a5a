package router

import (
	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// Stats is a snapshot of the router's counters.
type Stats struct {
	Sessions      int    // sessions attached now, joined to a realm or not
	SlowConsumers uint64 // sessions closed because their peer fell behind
	TooLong       uint64 // messages not sent: longer than their receiver accepts (refused.go)
	Unencodable   uint64 // messages not sent: holding a value their receiver's serializer cannot encode (refused.go)
	MessagesIn    uint64 // messages received, over the router's life
	MessagesOut   uint64 // messages sent (queued), over the router's life
	// Received and Sent are MessagesIn and MessagesOut by type.
	Received, Sent MessageCounts
	// CallErrors are the ERRORs answering CALLs (the router's and the
	// callees'), by URI: one of CallErrors, or ApplicationError.
	CallErrors map[string]uint64
	// OtherAuthFailures are the refused joins that named a realm the
	// router does not have, by authmethod (one of AuthMethods, or
	// OtherLabel).
	OtherAuthFailures map[string]uint64
	Realms            map[wamp.URI]RealmStats
}

// RealmStats counts what lives on one realm.
type RealmStats struct {
	Sessions      int // joined sessions
	Subscriptions int
	Registrations int
	// The subscriptions and registrations sessions hold (each subscriber
	// or callee of a shared one counts).
	Subscribers int
	Callees     int
	// What the realm's limits count (see Limits): the subscriptions and
	// registrations by weight (each subscriber or callee one, and each
	// subscription or registration its weight less one), and the calls in
	// flight.
	SubscriptionWeight int
	RegistrationWeight int
	CallsInFlight      int
	LimitRefusals      uint64 // requests refused by a limit (see Limits)
	// Joins are the sessions that joined, AuthFailures the joins refused
	// after HELLO (authentication failed or denied, no such role, no
	// method, throttled, timed out), both by authmethod: one of
	// AuthMethods, or OtherLabel.
	Joins        map[string]uint64
	AuthFailures map[string]uint64
	// CallDurations are the times from CALL to its RESULT or ERROR (the
	// final one) of the calls routed to a callee.
	CallDurations meter.HistogramSnapshot
}

// Stats returns a snapshot of the router's counters.
func (r *Router) Stats() Stats {
	st := Stats{
		SlowConsumers:     r.slow.total.Load(),
		TooLong:           r.unsent.Count(unsent.TooLong),
		Unencodable:       r.unsent.Count(unsent.Unencodable),
		Received:          MessageCounts{},
		Sent:              MessageCounts{},
		CallErrors:        r.callErrors.load(),
		OtherAuthFailures: r.otherAuthFailures.load(),
		Realms:            make(map[wamp.URI]RealmStats),
	}
	r.msgs.load(st.Received, st.Sent)
	r.mu.Lock()
	st.Sessions = len(r.sessions)
	realms := make([]*realm, 0, len(r.realms))
	for _, rm := range r.realms {
		realms = append(realms, rm)
	}
	r.mu.Unlock()
	st.MessagesIn, st.MessagesOut = st.Received.Total(), st.Sent.Total()
	for _, rm := range realms {
		st.Realms[rm.name] = rm.stats()
	}
	return st
}
