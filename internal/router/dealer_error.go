package router

import "github.com/junction-wamp/junction/wamp"

// handleError passes a callee's ERROR for an INVOCATION to the caller with
// the same URI, arguments and details. ERROR for anything but INVOCATION is
// a protocol violation; for an unknown invocation it is ignored. One whose
// payload passthru options are invalid ends the call with
// wamp.error.invalid_argument for the caller (see handleYield).
func (s *session) handleError(m *wamp.Error) error {
	if m.RequestType != wamp.TypeInvocation {
		return violation("ERROR for a %s request", m.RequestType)
	}
	if err := s.checkAnswer(m.Request, m.Details, wamp.PayloadOf(m)); err != nil {
		return s.realm.dealer.answerRefused(s, m.Request, err)
	}
	caller, e := s.realm.dealer.calleeError(s, m)
	if caller != nil {
		caller.sendFrom(s, e, wamp.TypeError)
	}
	return nil
}

func (d *dealer) calleeError(s *session, m *wamp.Error) (*session, *wamp.Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := s.invs.m[m.Request]
	if c == nil {
		return nil, nil
	}
	d.finish(c)
	details := m.Details
	if details == nil {
		details = wamp.Dict{}
	}
	return c.caller, &wamp.Error{RequestType: wamp.TypeCall, Request: c.request, Details: details,
		Error: m.Error, Args: m.Args, Kwargs: m.Kwargs, Raw: m.Raw}
}
