package router

import (
	"errors"
	"strings"

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
// caller gets wamp.error.invalid_argument, as from Crossbar (or
// wamp.error.feature_not_supported, for the specification's form to a
// caller that did not announce it: see checkAnswer).
func (s *session) handleYield(m *wamp.Yield) error {
	if err := s.checkAnswer(m.Request, m.Options, wamp.PayloadOf(m)); err != nil {
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

// checkAnswer checks the passthru options of s's YIELD or ERROR for its
// invocation req: checkPassthruFrom, and, in the specification's form,
// that the caller announced payload_passthru_mode (the specification has
// the router answer the callee with feature_not_supported; clients do not
// expect an ERROR for a YIELD, so the caller gets it, and the call ends).
// A caller on another node of a cluster is not checked.
func (s *session) checkAnswer(req wamp.ID, opts wamp.Dict, p wamp.Payload) error {
	form, err := s.checkPassthruFrom(pptCallee, opts, p)
	if err != nil || form != pptPassthru {
		return err
	}
	d := s.realm.dealer
	d.mu.Lock()
	c := s.invs.m[req]
	refuse := c != nil && c.caller.ppt&pptCaller == 0 && remoteOf(c.caller) == nil
	d.mu.Unlock()
	if refuse {
		return wamp.Errorf(wamp.ErrFeatureNotSupported, "payload passthru: the caller did not announce payload_passthru_mode")
	}
	return nil
}

// answerRefused ends the call of s's invocation req, whose YIELD or ERROR
// the router refused with err (its passthru options): the caller gets
// err's URI and message as the call's ERROR. A protocol violation is
// returned, to end s's session.
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
		e := wamp.Errorf(re.URI, "the callee's answer: %s", strings.TrimPrefix(re.Error(), string(re.URI)+": "))
		c.caller.sendFrom(s, wamp.ErrorFor(wamp.TypeCall, c.request, e), wamp.TypeError)
	}
	return nil
}
