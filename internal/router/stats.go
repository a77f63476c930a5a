package router

import (
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/wamp"
)

// Stats is a snapshot of the router's counters.
type Stats struct {
	Sessions      int    // sessions attached now, joined to a realm or not
	SlowConsumers uint64 // sessions closed because their peer fell behind
	MessagesIn    uint64 // messages received, over the router's life
	MessagesOut   uint64 // messages sent (queued), over the router's life
	Realms        map[wamp.URI]RealmStats
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
}

// counters are a session's message counts; each session has its own so
// that the hot path does not share a cache line between sessions.
type counters struct {
	in, out atomic.Uint64
}

func (c *counters) add(o *counters) {
	c.in.Add(o.in.Load())
	c.out.Add(o.out.Load())
}

// Stats returns a snapshot of the router's counters.
func (r *Router) Stats() Stats {
	st := Stats{
		SlowConsumers: r.slow.total.Load(),
		MessagesIn:    r.retired.in.Load(),
		MessagesOut:   r.retired.out.Load(),
		Realms:        make(map[wamp.URI]RealmStats),
	}
	r.mu.Lock()
	st.Sessions = len(r.sessions)
	for s := range r.sessions {
		st.MessagesIn += s.counts.in.Load()
		st.MessagesOut += s.counts.out.Load()
	}
	realms := make([]*realm, 0, len(r.realms))
	for _, rm := range r.realms {
		realms = append(realms, rm)
	}
	r.mu.Unlock()
	for _, rm := range realms {
		st.Realms[rm.name] = rm.stats()
	}
	return st
}
