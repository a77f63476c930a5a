package router

import "github.com/junction-wamp/junction/wamp"

// handleYield passes a callee's result to the caller. A YIELD for an
// invocation the dealer does not know (canceled, timed out, or the caller
// left) is ignored. A progressive YIELD is passed on only if the caller
// asked for progressive results; otherwise it is dropped (logged at debug
// level), since the callee was not offered receive_progress.
func (s *session) handleYield(m *wamp.Yield) error {
	caller, res := s.realm.dealer.yield(s, m)
	if caller != nil {
		caller.sendFrom(s, res, wamp.TypeResult)
	} else if res != nil {
		s.logger().Debug("progressive result dropped: the caller did not ask for it", "invocation", uint64(m.Request))
	}
	return nil
}

// yield returns the RESULT and who gets it; a nil caller with a non-nil
// result is a dropped progressive result.
func (d *dealer) yield(s *session, m *wamp.Yield) (*session, *wamp.Result) {
	progress, _ := optBool(m.Options, wamp.OptProgress, false)
	d.mu.Lock()
	defer d.mu.Unlock()
	c := s.invs.m[m.Request]
	if c == nil {
		return nil, nil
	}
	res := &wamp.Result{Request: c.request, Details: wamp.Dict{}, Args: m.Args, Kwargs: m.Kwargs, Raw: m.Raw}
	if progress {
		if !c.progress {
			return nil, res
		}
		res.Details[wamp.OptProgress] = true
		return c.caller, res
	}
	d.finish(c)
	return c.caller, res
}
