package router

import "github.com/junction-wamp/junction/wamp"

// removeSession takes s out of the dealer when it leaves: its
// registrations go, the callers of its invocations in flight get ERROR
// wamp.error.canceled ("callee disconnected from in-flight request", as
// Crossbar says), and its own calls in flight are canceled (INTERRUPT
// killnowait to their callees; later YIELDs are ignored). Runs on s's
// goroutine; hooks run after the lock is released.
func (d *dealer) removeSession(s *session) {
	var out outbox
	d.mu.Lock()
	all := d.release(s, &out)
	if d.remote != nil {
		d.remote.sessionLeft(s.id)
	}
	d.mu.Unlock()
	out.flush()
	for _, g := range all {
		d.realm.retract(g.reg.Procedure, g.reg.Match, s.id) // the cluster logs a failure
		d.realm.hooks.Unregistered(s.id, g.reg)
		if g.deleted {
			d.realm.hooks.RegistrationDeleted(s.id, g.reg)
		}
	}
}

// released is a registration that a session left.
type released struct {
	reg     regInfo
	deleted bool // s was its last callee
}

// release takes s out of the dealer: its registrations go, the callers
// of its invocations in flight get ERROR wamp.error.canceled, and its own
// calls in flight end (INTERRUPT killnowait to their callees, added to
// out). It returns the registrations s left. dealer.mu must be held.
func (d *dealer) release(s *session, out *outbox) []released {
	regs := s.regs.take() // drop's removals from s.regs are then no-ops
	all := make([]released, 0, len(regs))
	for _, reg := range regs {
		all = append(all, released{reg.info(), d.drop(reg, s)})
	}
	for _, c := range s.calls.m {
		d.forget(c)
		c.interrupt(out, wamp.CancelKillNoWait, wamp.ErrCanceled)
	}
	for _, c := range s.invs.m {
		d.forget(c)
		out.add(c.caller, c.callError(wamp.ErrCanceled, "callee disconnected from in-flight request"))
	}
	return all
}
