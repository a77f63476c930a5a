package router

import (
	"errors"
	"fmt"

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
//
// A YIELD whose payload passthru options are invalid ends the call: its
// caller gets wamp.error.invalid_argument, as from Crossbar.
func (s *session) handleYield(m *wamp.Yield) error {
	if _, err := s.checkPassthruFrom(pptCallee, m.Options, wamp.PayloadOf(m)); err != nil {
		return s.realm.dealer.answerRefused(s, m.Request, err)
	}
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
	copyPassthru(res.Details, m.Options)
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

// answerRefused ends the call of s's invocation req, whose YIELD or ERROR
// the router refused with err (invalid passthru options): the caller gets
// err, a wamp.error.invalid_argument, as the call's ERROR. A protocol
// violation is returned, to end s's session.
func (d *dealer) answerRefused(s *session, req wamp.ID, err error) error {
	var re *wamp.RequestError
	if !errors.As(err, &re) {
		return err
	}
	d.mu.Lock()
	c := s.invs.m[req]
	if c != nil {
		d.finish(c)
	}
	d.mu.Unlock()
	if c != nil {
		e := wamp.Errorf(re.URI, "the callee's answer: %s", fmt.Sprint(re.Args...))
		c.caller.sendFrom(s, wamp.ErrorFor(wamp.TypeCall, c.request, e), wamp.TypeError)
	}
	return nil
}
