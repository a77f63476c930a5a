package router

import (
	"slices"

	"github.com/junction-wamp/junction/internal/wamp"
)

// handleUnregister removes s as a callee of one of its registrations. Its
// invocations in flight go on: their YIELDs still reach the callers.
func (s *session) handleUnregister(m *wamp.Unregister) error {
	rm := s.realm
	info, deleted, ok := rm.dealer.unregister(s, m.Registration)
	if !ok {
		return wamp.Errorf(wamp.ErrNoSuchRegistration, "no registration %d", m.Registration)
	}
	rm.retract(info.Procedure, info.Match, s.id)
	s.send(&wamp.Unregistered{Request: m.Request})
	rm.hooks.Unregistered(s.id, info)
	if deleted {
		rm.hooks.RegistrationDeleted(s.id, info)
	}
	return nil
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
