package router

import (
	"cmp"
	"slices"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// SessionSummary is one joined session as an operator sees it (the node's
// dashboard): what wamp.session.get says, and when it joined.
type SessionSummary struct {
	ID         wamp.ID
	AuthID     string
	AuthRole   string
	AuthMethod string
	Transport  string // wamp.PeerInfo.Transport: "websocket", "rawsocket", "local", ...
	Serializer string
	Peer       string // wamp.PeerInfo.RemoteAddr; "" for the node's own sessions
	Joined     time.Time
}

// RegistrationSummary is one registration of a realm and its number of
// callees.
type RegistrationSummary struct {
	ID        wamp.ID
	Procedure wamp.URI
	Match     string
	Invoke    string
	Callees   int
	Created   time.Time
}

// SubscriptionSummary is one subscription of a realm and its number of
// subscribers (0 for one the router holds for its event history).
type SubscriptionSummary struct {
	ID          wamp.ID
	Topic       wamp.URI
	Match       string
	Subscribers int
	Created     time.Time
}

// Sessions returns the sessions joined to realm, oldest first (then by
// ID), from offset on and at most limit of them, and how many there are in
// all; nothing for a realm the router does not have. It takes realm.mu for
// reading while it copies the session list, and sorts outside it. Safe for
// concurrent use.
func (r *Router) Sessions(realm wamp.URI, offset, limit int) ([]SessionSummary, int) {
	rm := r.realm(realm)
	if rm == nil {
		return nil, 0
	}
	all := rm.joined(func(*session) bool { return true })
	slices.SortFunc(all, func(a, b *session) int {
		return cmp.Or(cmp.Compare(a.joinedAt, b.joinedAt), cmp.Compare(a.id, b.id))
	})
	page := window(all, offset, limit)
	out := make([]SessionSummary, len(page))
	for i, s := range page {
		out[i] = s.summary()
	}
	return out, len(all)
}

// summary reads s's immutable fields (set before it joined).
func (s *session) summary() SessionSummary {
	p := s.peer.Info()
	return SessionSummary{
		ID: s.id, AuthID: s.ident.AuthID, AuthRole: s.ident.AuthRole, AuthMethod: s.ident.AuthMethod,
		Transport: p.Transport, Serializer: p.Serializer, Peer: p.RemoteAddr, Joined: time.Unix(0, s.joinedAt),
	}
}

// Registrations returns the registrations of realm, by procedure (then
// match policy), the first limit of them, and how many there are in all.
// It holds the realm's dealer lock while it copies them. Safe for
// concurrent use.
func (r *Router) Registrations(realm wamp.URI, limit int) ([]RegistrationSummary, int) {
	rm := r.realm(realm)
	if rm == nil {
		return nil, 0
	}
	d := rm.dealer
	d.mu.Lock()
	all := make([]RegistrationSummary, 0, len(d.byID))
	for _, reg := range d.byID {
		all = append(all, RegistrationSummary{ID: reg.id, Procedure: reg.procedure, Match: reg.match.String(),
			Invoke: reg.policy, Callees: len(reg.callees), Created: reg.created})
	}
	d.mu.Unlock()
	slices.SortFunc(all, func(a, b RegistrationSummary) int {
		return cmp.Or(cmp.Compare(a.Procedure, b.Procedure), cmp.Compare(a.Match, b.Match))
	})
	return window(all, 0, limit), len(all)
}

// Subscriptions returns the subscriptions of realm, by topic (then match
// policy), the first limit of them, and how many there are in all. It
// holds the realm's broker lock for reading while it copies them. Safe for
// concurrent use.
func (r *Router) Subscriptions(realm wamp.URI, limit int) ([]SubscriptionSummary, int) {
	rm := r.realm(realm)
	if rm == nil {
		return nil, 0
	}
	b := rm.broker
	b.mu.RLock()
	all := make([]SubscriptionSummary, 0, len(b.byID))
	for _, sub := range b.byID {
		n := 0
		if sub.set != nil {
			n = len(sub.set.sessions)
		}
		all = append(all, SubscriptionSummary{ID: sub.id, Topic: sub.topic, Match: sub.match.String(),
			Subscribers: n, Created: sub.created})
	}
	b.mu.RUnlock()
	slices.SortFunc(all, func(a, b SubscriptionSummary) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Match, b.Match))
	})
	return window(all, 0, limit), len(all)
}

// window returns all[offset:offset+limit], clipped to all; a negative
// offset counts as 0 and a limit <= 0 as no limit.
func window[T any](all []T, offset, limit int) []T {
	offset = min(max(offset, 0), len(all))
	end := len(all)
	if limit > 0 && limit < end-offset {
		end = offset + limit
	}
	return all[offset:end]
}
