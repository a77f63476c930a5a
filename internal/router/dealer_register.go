package router

import (
	"slices"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

var invokePolicies = []string{wamp.InvokeSingle, wamp.InvokeRoundRobin, wamp.InvokeRandom, wamp.InvokeFirst, wamp.InvokeLast}

// handleRegister makes s a callee of a procedure pattern.
func (s *session) handleRegister(m *wamp.Register) error {
	rm := s.realm
	match, err := optMatch(m.Options)
	if err != nil {
		return err
	}
	policy, err := optString(m.Options, wamp.OptInvoke, wamp.InvokeSingle)
	if err != nil {
		return err
	}
	if !slices.Contains(invokePolicies, policy) {
		return wamp.Errorf(wamp.ErrInvalidArgument, "unknown invocation policy %q", policy)
	}
	if err := rm.limits.admitURI(s, m.Procedure, "registration"); err != nil {
		return err
	}
	if !rm.validURI(m.Procedure, match) {
		return wamp.Errorf(wamp.ErrInvalidURI, "invalid procedure %q", m.Procedure)
	}
	if !s.trusted() && reachesReserved(m.Procedure, match) {
		return wamp.Errorf(wamp.ErrInvalidURI, "procedure %q (match %s) can match the router's wamp.* procedures", m.Procedure, match)
	}
	if _, err := s.authorize(auth.ActionRegister, m.Procedure, m.Options); err != nil {
		return err
	}
	um, _ := uriindex.ParseMatch(match)
	order, err := rm.announce(s, m.Procedure, match, policy)
	if err != nil {
		return err
	}
	info, announced, created, err := rm.dealer.register(s, m.Procedure, um, policy, order)
	if err != nil {
		rm.retract(m.Procedure, match, s.id) // the cluster logs a failure
		return err
	}
	s.send(&wamp.Registered{Request: m.Request, Registration: info.ID})
	close(announced)
	if created {
		rm.hooks.RegistrationCreated(s.id, info)
	}
	rm.hooks.Registered(s.id, info)
	return nil
}

// register adds s as a callee of (procedure, match). The caller sends
// REGISTERED, then closes announced. A session at its registration limit,
// or in a realm at its own, gets a limitError: the registration counts its
// weight for s, and for the realm its weight when it is new, one when s
// joins its other callees. In a cluster, order is s's place in the
// registration order (Callee.Order).
func (d *dealer) register(s *session, procedure wamp.URI, m uriindex.Match, policy string, order uint64) (info regInfo, announced chan struct{}, created bool, err error) {
	w := registrationCost.weight(procedure, m)
	d.mu.Lock()
	defer d.mu.Unlock()
	reg, ok := d.index.Get(string(procedure), m)
	if ok && d.remote != nil {
		reg, ok = d.staleRemote(reg, policy)
	}
	if ok && (policy == wamp.InvokeSingle || reg.policy != policy || s.regs.m[reg.id] != nil) {
		return info, nil, false, wamp.Errorf(wamp.ErrProcedureAlreadyExists, "procedure %q is already registered", procedure)
	}
	if err := d.realm.limits.now().regs.admit(s, s.regWeight, d.holders.weight, w, growth(w, ok)); err != nil {
		return info, nil, false, err
	}
	if !ok {
		reg = &registration{id: d.newRegID(procedure, m), procedure: procedure, match: m, weight: w, policy: policy, created: time.Now()}
		d.index.Set(string(procedure), m, reg)
		d.byID[reg.id] = reg
	}
	announced = make(chan struct{})
	reg.add(callee{s: s, announced: announced, order: order})
	s.regs.put(reg.id, reg)
	s.regWeight += w
	d.holders.hold(w, !ok)
	return reg.info(), announced, !ok, nil
}

// newRegID is the ID of a new registration: the router's next, or in a
// cluster the one every node gives (procedure, m). dealer.mu must be held.
func (d *dealer) newRegID(procedure wamp.URI, m uriindex.Match) wamp.ID {
	if d.remote != nil {
		return d.realm.fabric.RegistrationID(procedure, m.String())
	}
	return d.realm.router.regIDs.Next()
}
