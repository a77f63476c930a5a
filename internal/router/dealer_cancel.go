package router

import "github.com/junction-wamp/junction/wamp"

// handleCancel cancels one of s's calls in flight (default mode kill):
//   - skip: the caller gets ERROR wamp.error.canceled at once; the callee
//     is not told and its later YIELD or ERROR is ignored;
//   - kill: the callee gets INTERRUPT; the caller gets whatever the callee
//     answers (ERROR wamp.error.canceled, or a RESULT);
//   - killnowait: the callee gets INTERRUPT and the caller ERROR
//     wamp.error.canceled at once.
//
// A callee that did not announce call_canceling never gets INTERRUPT: for
// it, kill and killnowait act as skip.
//
// CANCEL for a call that is over is ignored; an unknown mode is a protocol
// violation, as in autobahn.
func (s *session) handleCancel(m *wamp.Cancel) error {
	mode, err := optString(m.Options, wamp.OptMode, wamp.CancelKill)
	if err != nil || (mode != wamp.CancelSkip && mode != wamp.CancelKill && mode != wamp.CancelKillNoWait) {
		return violation("CANCEL mode must be skip, kill or killnowait")
	}
	s.realm.dealer.cancel(s, m.Request, mode).flush()
	return nil
}

func (d *dealer) cancel(s *session, req wamp.ID, mode string) outbox {
	var out outbox
	d.mu.Lock()
	defer d.mu.Unlock()
	c := s.calls.m[req]
	if c == nil {
		return nil
	}
	if mode == wamp.CancelKill && c.callee.canCancel {
		if !c.killing {
			c.killing = true
			c.interrupt(&out, wamp.CancelKill, wamp.ErrCanceled)
		}
		return out
	}
	d.finish(c)
	if mode == wamp.CancelKillNoWait {
		c.interrupt(&out, wamp.CancelKillNoWait, wamp.ErrCanceled)
	}
	out.add(c.caller, c.callError(wamp.ErrCanceled, "call canceled"))
	return out
}
