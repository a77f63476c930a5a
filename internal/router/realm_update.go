package router

import (
	"fmt"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// RealmUpdate is what UpdateRealm changes on a realm.
type RealmUpdate struct {
	// Roles that exist on the realm from now on; nil accepts any role.
	Roles []string
	// Authorizer decides every action from now on; nil: auth.AllowAll{}.
	Authorizer auth.Authorizer
}

// UpdateResult is what UpdateRealm did to the realm's sessions.
type UpdateResult struct {
	// Closed counts the sessions ended with GOODBYE
	// wamp.ErrConfigChanged: their role was removed, or they held a
	// registration or subscription no longer allowed without having
	// announced its revocation feature.
	Closed int
	// Unregistered and Unsubscribed count the registrations and
	// subscriptions revoked (UNREGISTERED or UNSUBSCRIBED with request 0).
	Unregistered, Unsubscribed int
}

// revokeReason is the "reason" of a revoking UNREGISTERED or UNSUBSCRIBED.
const revokeReason = wamp.ErrNotAuthorized

// UpdateRealm gives realm name new roles and a new authorizer, which the
// next action of every session is authorized by (the answers sessions
// kept from the old one are dropped). A session whose role was removed is
// ended with GOODBYE wamp.ErrConfigChanged. Each registration and
// subscription the new authorizer refuses (Register or Subscribe on its
// URI) is revoked: the session is sent UNREGISTERED or UNSUBSCRIBED with
// request 0 and details {registration|subscription, reason} if it
// announced registration_revocation (callee) or subscription_revocation
// (subscriber), as Crossbar does, and is ended with GOODBYE
// wamp.ErrConfigChanged otherwise. In a cluster, a revoked registration
// leaves the cluster's table first, as after an UNREGISTER (a revoked
// subscription leaves the interest table as after an UNSUBSCRIBE), and
// the meta events are those of an UNREGISTER or UNSUBSCRIBE, published
// once; each table write may wait. An authorizer that fails to decide
// revokes nothing. The authorizer is asked on the calling goroutine, which
// a dynamic authorizer would block. Other realms are untouched.
func (r *Router) UpdateRealm(name wamp.URI, u RealmUpdate) (UpdateResult, error) {
	rm := r.realm(name)
	if rm == nil {
		return UpdateResult{}, fmt.Errorf("router: no realm %q", name)
	}
	a := newAccess(u.Roles, u.Authorizer)
	rm.mu.Lock()
	rm.access.Store(a)
	all := make([]*session, 0, len(rm.sessions))
	for _, s := range rm.sessions {
		all = append(all, s)
	}
	rm.mu.Unlock()
	var res UpdateResult
	for _, s := range all {
		if !a.hasRole(s.ident.AuthRole) || !rm.revoke(s, a, &res) {
			s.shutdown(wamp.ErrConfigChanged)
			res.Closed++
		}
	}
	return res, nil
}

// revoke removes what s holds that a no longer allows, telling s; false
// when s must be closed instead (it cannot be told).
func (rm *realm) revoke(s *session, a *access, res *UpdateResult) bool {
	subs, regs := rm.broker.held(s), rm.dealer.held(s)
	for _, sub := range subs {
		if a.allows(s, auth.ActionSubscribe, sub.topic, sub.match.String()) {
			continue
		}
		if !s.revokeSubs {
			return false
		}
		rm.revokeSubscription(s, sub.id)
		res.Unsubscribed++
	}
	for _, reg := range regs {
		if a.allows(s, auth.ActionRegister, reg.procedure, reg.match.String()) {
			continue
		}
		if !s.revokeRegs {
			return false
		}
		// Out of the cluster's table first, as an UNREGISTER: the other
		// nodes stop routing calls to it. A table that cannot be written
		// is logged by the cluster, and the session loses it here all the
		// same (the table keeps it until this node is lost, as a callee
		// that leaves).
		rm.retract(reg.procedure, reg.match.String(), s.id)
		rm.revokeRegistration(s, reg.id, revokeReason)
		res.Unregistered++
	}
	return true
}

// allows reports whether a's authorizer allows s action on uri with match
// policy match; an authorizer error allows it (revoke nothing on doubt).
func (a *access) allows(s *session, action auth.Action, uri wamp.URI, match string) bool {
	p, err := a.authz.Authorize(&s.ident, action, uri, wamp.Dict{wamp.OptMatch: match})
	return err != nil || p.Allow
}

// revokeSubscription removes s from subscription id and tells it.
func (rm *realm) revokeSubscription(s *session, id wamp.ID) {
	info, deleted, ok := rm.broker.unsubscribe(s, id)
	if !ok {
		return // s unsubscribed meanwhile
	}
	s.send(&wamp.Unsubscribed{Details: wamp.Dict{"subscription": id, wamp.OptReason: string(revokeReason)}})
	rm.hooks.Unsubscribed(s.id, info)
	if deleted {
		rm.hooks.SubscriptionDeleted(s.id, info)
	}
}

// revokeRegistration removes s as a callee of registration id and tells
// it, with reason. Its invocations in flight go on, as after its own
// UNREGISTER.
func (rm *realm) revokeRegistration(s *session, id wamp.ID, reason wamp.URI) {
	info, deleted, ok := rm.dealer.unregister(s, id)
	if !ok {
		return
	}
	s.send(&wamp.Unregistered{Details: wamp.Dict{"registration": id, wamp.OptReason: string(reason)}})
	rm.hooks.Unregistered(s.id, info)
	if deleted {
		rm.hooks.RegistrationDeleted(s.id, info)
	}
}

// heldSub is a subscription s holds, as revoke checks it.
type heldSub struct {
	id    wamp.ID
	topic wamp.URI
	match uriindex.Match
}

// held returns the subscriptions s holds.
func (b *broker) held(s *session) []heldSub {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]heldSub, 0, len(s.subs.m))
	for _, sub := range s.subs.m {
		out = append(out, heldSub{sub.id, sub.topic, sub.match})
	}
	return out
}

// heldReg is a registration s is a callee of, as revoke checks it.
type heldReg struct {
	id        wamp.ID
	procedure wamp.URI
	match     uriindex.Match
}

// held returns the registrations s is a callee of.
func (d *dealer) held(s *session) []heldReg {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]heldReg, 0, len(s.regs.m))
	for _, reg := range s.regs.m {
		out = append(out, heldReg{reg.id, reg.procedure, reg.match})
	}
	return out
}
