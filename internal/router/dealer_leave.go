package router

import "github.com/junction-wamp/junction/internal/wamp"

// removeSession takes s out of the dealer when it leaves: its
// registrations go, the callers of its invocations in flight get ERROR
// wamp.error.canceled ("callee disconnected from in-flight request", as
// Crossbar says), and its own calls in flight are canceled (INTERRUPT
// killnowait to their callees; later YIELDs are ignored). Runs on s's
// goroutine; hooks run after the lock is released.
func (d *dealer) removeSession(s *session) {
	type gone struct {
		reg     regInfo
		deleted bool
	}
	var out outbox
	d.mu.Lock()
	regs := s.regs.take() // drop's removals from s.regs are then no-ops
	all := make([]gone, 0, len(regs))
	for _, reg := range regs {
		all = append(all, gone{reg.info(), d.drop(reg, s)})
	}
	for _, c := range s.calls.m {
		d.forget(c)
		c.interrupt(&out, wamp.CancelKillNoWait, wamp.ErrCanceled)
	}
	for _, c := range s.invs.m {
		d.forget(c)
		out.add(c.caller, c.callError(wamp.ErrCanceled, "callee disconnected from in-flight request"))
	}
	d.mu.Unlock()
	out.flush()
	for _, g := range all {
		d.realm.hooks.Unregistered(s.id, g.reg)
		if g.deleted {
			d.realm.hooks.RegistrationDeleted(s.id, g.reg)
		}
	}
}
