package router

import (
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// handleYield passes a callee's result to the caller. A YIELD for an
// invocation the dealer does not know (canceled, timed out, or the caller
// left) is ignored. A progressive YIELD is passed on only if the caller
// asked for progressive results; otherwise it is dropped (logged at debug
// level), since the callee was not offered receive_progress. A RESULT
// the caller's peer refuses (too long, or not encodable) ends the call
// with an ERROR (resultRefused).
func (s *session) handleYield(m *wamp.Yield) error {
	c, res := s.realm.dealer.yield(s, m)
	if c != nil {
		if err := c.caller.sendFrom(s, res, wamp.TypeResult); unsent.Refused(err) {
			s.realm.dealer.resultRefused(c, res, err)
		}
	} else if res != nil {
		s.logger().Debug("progressive result dropped: the caller did not ask for it", "invocation", uint64(m.Request))
	}
	return nil
}

// yield returns the call and the RESULT for its caller; a nil call with a
// non-nil result is a dropped progressive result. Only c's immutable
// fields (caller, request) may be read once the lock is released.
func (d *dealer) yield(s *session, m *wamp.Yield) (*call, *wamp.Result) {
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
		return c, res
	}
	d.finish(c)
	return c, res
}
