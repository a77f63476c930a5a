package router

import (
	"errors"
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// protocolError is a message the client must not send in this state; the
// session ends with ABORT wamp.error.protocol_violation.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return "router: protocol violation: " + e.msg }

func violation(format string, a ...any) error {
	return &protocolError{msg: fmt.Sprintf(format, a...)}
}

// isViolation reports whether err is a protocolError.
func isViolation(err error) bool {
	var pe *protocolError
	return errors.As(err, &pe)
}

// dispatch hands m to its handler and maps the handler's error to the wire:
// a *wamp.RequestError becomes ERROR for the request, a protocolError ends
// the session. It returns false when the session is over.
func (s *session) dispatch(m wamp.Message) bool {
	var err error
	switch m := m.(type) {
	case *wamp.Publish:
		err = s.handlePublish(m)
	case *wamp.Subscribe:
		err = s.handleSubscribe(m)
	case *wamp.Unsubscribe:
		err = s.handleUnsubscribe(m)
	case *wamp.Call:
		err = s.handleCall(m)
	case *wamp.Cancel:
		err = s.handleCancel(m)
	case *wamp.Register:
		err = s.handleRegister(m)
	case *wamp.Unregister:
		err = s.handleUnregister(m)
	case *wamp.Yield:
		err = s.handleYield(m)
	case *wamp.Error:
		err = s.handleError(m)
	case *wamp.Acting:
		return s.reply(m.Message, s.handleActing(m))
	case *wamp.Goodbye:
		s.handleGoodbye(m)
		return false
	case *wamp.Abort:
		return false
	case nil:
		err = violation("no message")
	default:
		err = violation("unexpected %s message", m.Type())
	}
	return s.reply(m, err)
}

// reply sends the ERROR for a failed request (junction.error.limit_exceeded
// for a limitError, counted and logged), or aborts on a protocol
// violation. It returns false when the session is over.
func (s *session) reply(m wamp.Message, err error) bool {
	if err == nil {
		return true
	}
	var pe *protocolError
	if errors.As(err, &pe) {
		s.abort(wamp.ErrProtocolViolation, "%s", pe.msg)
		return false
	}
	var re *wamp.RequestError
	var le *limitError
	switch {
	case errors.As(err, &le):
		re = s.refusal(le)
	case !errors.As(err, &re):
		re = wamp.Errorf(wamp.ErrRuntimeError, "%v", err)
	}
	s.send(wamp.ErrorFor(m.Type(), requestID(m), re))
	return true
}

// requestID is the request ID of a client request.
func requestID(m wamp.Message) wamp.ID {
	switch m := m.(type) {
	case *wamp.Publish:
		return m.Request
	case *wamp.Subscribe:
		return m.Request
	case *wamp.Unsubscribe:
		return m.Request
	case *wamp.Call:
		return m.Request
	case *wamp.Register:
		return m.Request
	case *wamp.Unregister:
		return m.Request
	}
	return 0
}

// handleGoodbye answers the client's GOODBYE; the session then ends. A
// GOODBYE wamp.close.logout is told to the gate's OnLogout.
func (s *session) handleGoodbye(m *wamp.Goodbye) {
	if m.Reason == CloseLogout && s.gate.opts.OnLogout != nil {
		s.gate.opts.OnLogout(s.ident) // before the answer: done when the client has it
	}
	s.kill(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrGoodbyeAndOut})
}

// CloseLogout is the GOODBYE reason of a client that logs out (Crossbar's
// cookie logout).
const CloseLogout wamp.URI = "wamp.close.logout"
