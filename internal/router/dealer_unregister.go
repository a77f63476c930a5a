package router

import (
	"slices"

	"github.com/junction-wamp/junction/wamp"
)

// handleUnregister removes s as a callee of one of its registrations. Its
// invocations in flight go on: their YIELDs still reach the callers. In a
// cluster, the table is written first: when it cannot be, UNREGISTER
// fails (junction.error.cluster_unavailable) and s stays a callee.
func (s *session) handleUnregister(m *wamp.Unregister) error {
	rm := s.realm
	info, ok := rm.dealer.lookup(s, m.Registration)
	if !ok {
		return wamp.Errorf(wamp.ErrNoSuchRegistration, "no registration %d", m.Registration)
	}
	if err := rm.retract(info.Procedure, info.Match, s.id); err != nil {
		return err
	}
	info, deleted, ok := rm.dealer.unregister(s, m.Registration)
	if !ok {
		return wamp.Errorf(wamp.ErrNoSuchRegistration, "no registration %d", m.Registration)
	}
	s.send(&wamp.Unregistered{Request: m.Request})
	rm.hooks.Unregistered(s.id, info)
	if deleted {
		rm.hooks.RegistrationDeleted(s.id, info)
	}
	return nil
}

// lookup returns what registration id of s is, if s holds it.
func (d *dealer) lookup(s *session, id wamp.ID) (regInfo, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	reg := s.regs.m[id]
	if reg == nil {
		return regInfo{}, false
	}
	return reg.info(), true
}

func (d *dealer) unregister(s *session, id wamp.ID) (info regInfo, deleted, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	reg := s.regs.m[id]
	if reg == nil {
		return regInfo{}, false, false
	}
	return reg.info(), d.drop(reg, s), true
}

// drop removes s from reg's callees, and reg from the index once it has no
// callee left (then it returns true). dealer.mu must be held.
func (d *dealer) drop(reg *registration, s *session) (deleted bool) {
	s.regs.remove(reg.id)
	s.regWeight -= reg.weight
	for i, c := range reg.callees {
		if c.s == s {
			reg.callees = slices.Delete(reg.callees, i, i+1)
			break
		}
	}
	if reg.next >= len(reg.callees) {
		reg.next = 0
	}
	deleted = len(reg.callees) == 0
	d.holders.release(reg.weight, deleted)
	if !deleted {
		return false
	}
	d.index.Delete(string(reg.procedure), reg.match)
	delete(d.byID, reg.id)
	return true
}
