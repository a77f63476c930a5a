package proxy

import (
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// toClient is the backend-to-client direction of a link, and what it does
// with a message of the backend's that the client's peer refuses before
// writing it: longer than the client accepts (the maximum message length
// a RawSocket client announced), or holding a value the client's
// serializer cannot encode. As the router does (package unsent), with
// what a relay knows, one message at a time; the session goes on:
//   - an INVOCATION: the backend gets ERROR for it (unsent.Reason.URI:
//     wamp.error.payload_size_exceeded or wamp.error.invalid_argument),
//     which its router passes to the caller;
//   - a RESULT: the client gets that ERROR for its CALL instead; after a
//     progressive RESULT the backend gets CANCEL (killnowait) for the
//     call, and its later answers to it (more RESULTs, the ERROR
//     wamp.error.canceled) are dropped, the client having had its answer;
//   - an EVENT: the client misses it;
//   - an ERROR, ABORT or GOODBYE: sent again in its plainer form
//     (unsent.SendPlainer).
//
// Each is counted (Stats.ToClient) and logged, rate-limited, as the
// router does. Used by the pump's goroutine alone.
type toClient struct {
	l *link
	// canceled are the CALLs whose progressive RESULT the client's peer
	// refused: the relay canceled them, and drops the backend's answers
	// to them until the last (a final RESULT or an ERROR).
	canceled map[wamp.ID]struct{}
}

// keep reports whether to relay m: anything but an answer to a call the
// relay canceled.
func (d *toClient) keep(m wamp.Message) bool {
	if len(d.canceled) == 0 {
		return true
	}
	req, final, ok := callAnswer(m)
	if _, dropped := d.canceled[req]; !ok || !dropped {
		return true
	}
	if final {
		delete(d.canceled, req)
	}
	return false
}

// callAnswer returns the CALL request m answers, if it answers one, and
// whether it is the call's last answer.
func callAnswer(m wamp.Message) (req wamp.ID, final, ok bool) {
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Result:
		progressive, _ := m.Details[wamp.OptProgress].(bool)
		return m.Request, !progressive, true
	case *wamp.Error:
		return m.Request, true, m.RequestType == wamp.TypeCall
	}
	return 0, false, false
}

func (d *toClient) refused(m wamp.Message, err error) error {
	id := d.l.identity()
	d.l.relay.byClient.Note(string(id.Realm), uint64(id.Session), m.Type(), err)
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Invocation:
		return d.l.back.Send(unsent.Error(wamp.TypeInvocation, m.Request, err, "callee"))
	case *wamp.Result:
		if progressive, _ := m.Details[wamp.OptProgress].(bool); progressive {
			if err := d.cancel(m.Request); err != nil {
				return err
			}
		}
		return sendOwn(d.l.front, unsent.Error(wamp.TypeCall, m.Request, err, "caller"), "client")
	case *wamp.Event:
		return nil
	}
	return unsent.SendPlainer(d.l.front.Send, m, err, "client")
}

// cancel asks the backend to end CALL req at once, and drops its answers
// to it from now on.
func (d *toClient) cancel(req wamp.ID) error {
	if d.canceled == nil {
		d.canceled = map[wamp.ID]struct{}{}
	}
	d.canceled[req] = struct{}{}
	return d.l.back.Send(&wamp.Cancel{Request: req, Options: wamp.Dict{wamp.OptMode: wamp.CancelKillNoWait}})
}
