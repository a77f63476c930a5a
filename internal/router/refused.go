package router

import (
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// What the router does with a message its receiver's peer refuses before
// writing any of it: one longer than the receiver accepts (a RawSocket
// client announces its maximum message length in its handshake; Send
// returns wamp.ErrMessageTooLong), or one holding a value the receiver's
// serializer cannot carry (a channel, NaN in JSON, a string that is not
// UTF-8, ...: an in-process session sends Go values as they are, and the
// socket's Send returns wamp.ErrUnencodable). Nothing is lost silently,
// and the session stays open (but for a WELCOME refused). The answer's
// URI is the refusal's (unsent.Reason.URI): wamp.error.payload_size_exceeded
// for a message too long, wamp.error.invalid_argument for one that does
// not encode.
//   - a RESULT: the caller gets that ERROR for its CALL instead, and the
//     call ends; a callee still running it (the RESULT was a progressive
//     one) gets INTERRUPT (mode killnowait, reason the URI) if it
//     announced call_canceling, and its later YIELDs are ignored;
//   - an INVOCATION: the caller gets that ERROR, the callee nothing;
//   - an EVENT: that subscriber misses it (counted and logged), the others
//     get it, and the publisher its PUBLISHED when it asked;
//   - an ERROR: an ERROR with the same URI replaces it, its details,
//     arguments and keyword arguments replaced by a message saying what
//     was refused (and without them if even that is refused);
//   - an ABORT or GOODBYE: sent again without its details;
//   - a WELCOME (a large or odd authextra): the session ends with ABORT
//     and the URI (handshake).
//
// Every refusal is counted by reason (Stats.TooLong, Stats.Unencodable)
// and logged at warning level, each reason at most once per
// unsent.LogEvery (Router.unsent).

// sendPlainer sends, instead of m that err refused, its plainer form if
// it has one (unsent.SendPlainer). It returns Send's error, or err when m
// has none.
func (s *session) sendPlainer(by *session, m wamp.Message, err error) error {
	return unsent.SendPlainer(func(r wamp.Message) error { return s.sendPeer(by, r) }, m, err, "client")
}

// resultRefused ends c, whose RESULT res its caller's peer refused with
// err: the caller gets an ERROR instead (unsent.Reason.URI). After a
// progressive RESULT the call was still running: it ends here, and its
// callee gets INTERRUPT killnowait (if it announced call_canceling, and
// was not interrupted already); a call that ended meanwhile (canceled,
// timed out) had its answer, and nothing more is sent. A final RESULT
// had ended the call already (yield).
func (d *dealer) resultRefused(c *call, res *wamp.Result, err error) {
	var out outbox
	progressive, _ := res.Details[wamp.OptProgress].(bool)
	d.mu.Lock()
	if progressive {
		if !c.pending() {
			d.mu.Unlock()
			return
		}
		d.finish(c)
		if !c.killing {
			c.interrupt(&out, wamp.CancelKillNoWait, unsent.Of(err).URI())
		}
	}
	out.add(c.caller, unsent.Error(wamp.TypeCall, c.request, err, "caller"))
	d.mu.Unlock()
	out.flush()
}

// invocationRefused ends c, whose INVOCATION its callee's peer refused
// with err: the caller gets an ERROR (unsent.Reason.URI). A call that ended
// meanwhile (its callee left, it was canceled) had its answer.
func (d *dealer) invocationRefused(c *call, err error) {
	d.mu.Lock()
	if !c.pending() {
		d.mu.Unlock()
		return
	}
	d.finish(c)
	d.mu.Unlock()
	c.caller.send(unsent.Error(wamp.TypeCall, c.request, err, "callee"))
}
