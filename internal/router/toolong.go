package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// What the router does with a message longer than its receiver accepts
// (a RawSocket client announces its maximum message length in its
// handshake, and its peer's Send refuses a longer message with
// wamp.ErrMessageTooLong, before writing anything). Nothing is lost
// silently, and the session stays open (but for a WELCOME too long):
//   - a RESULT: the caller gets ERROR wamp.error.payload_size_exceeded
//     for its CALL instead, and the call ends; a callee still running it
//     (the RESULT was a progressive one) gets INTERRUPT (mode killnowait,
//     reason wamp.error.payload_size_exceeded) if it announced
//     call_canceling, and its later YIELDs are ignored;
//   - an INVOCATION: the caller gets that ERROR, the callee nothing;
//   - an EVENT: that subscriber misses it (counted and logged), the others
//     get it, and the publisher its PUBLISHED when it asked;
//   - an ERROR: an ERROR with the same URI replaces it, its details,
//     arguments and keyword arguments replaced by a message saying how
//     long it was (and without them if even that is too long);
//   - an ABORT or GOODBYE: sent again without its details;
//   - a WELCOME (a large authextra): the session ends with ABORT
//     wamp.error.payload_size_exceeded (handshake).
//
// Every refusal is counted (Stats.TooLong) and logged at warning level,
// at most once per tooLongLogEvery.

// tooLongLogEvery is the shortest interval between two "message too long"
// lines.
const tooLongLogEvery = 10 * time.Second

// tooLongLog counts the messages not sent because they were longer than
// their receiver accepts, and logs them, rate-limited. Safe for concurrent
// use; it takes no router lock.
type tooLongLog struct {
	log   *slog.Logger
	total atomic.Uint64
	rate  lograte.Limit // Interval tooLongLogEvery
}

func newTooLongLog(log *slog.Logger) tooLongLog {
	return tooLongLog{log: log, rate: lograte.Limit{Interval: tooLongLogEvery}}
}

// note counts one message refused by session's peer with err (Send's),
// and logs it if the last line is old enough: realm, session, the
// message's type, length and the receiver's limit (when the peer says),
// and the count since the last line.
func (l *tooLongLog) note(realm string, session uint64, t wamp.MessageType, err error) {
	l.total.Add(1)
	ok, suppressed := l.rate.Allow()
	if !ok || !l.log.Enabled(context.Background(), slog.LevelWarn) {
		return
	}
	attrs := []slog.Attr{slog.String("realm", realm), slog.Uint64("session", session), slog.String("type", t.String())}
	if tl, ok := errors.AsType[*wamp.MessageTooLongError](err); ok {
		attrs = append(attrs, slog.Int("length", tl.Length), slog.Int("limit", tl.Limit))
	}
	attrs = append(attrs, slog.Int("count", suppressed+1))
	l.log.LogAttrs(context.Background(), slog.LevelWarn, "message too long for its receiver: not sent", attrs...)
}

// tooLong reports whether err, Send's, refused a message longer than the
// receiver accepts.
func tooLong(err error) bool { return errors.Is(err, wamp.ErrMessageTooLong) }

// tooLongText says what err refused, for the ERROR that replaces it:
// "RESULT of 5000 bytes, longer than the 1024 bytes the caller accepts".
func tooLongText(err error, who string) string {
	if tl, ok := errors.AsType[*wamp.MessageTooLongError](err); ok {
		return fmt.Sprintf("%s of %d bytes, longer than the %d bytes the %s accepts", tl.Type, tl.Length, tl.Limit, who)
	}
	return fmt.Sprintf("message longer than the %s accepts", who)
}

// tooLongCallError is the ERROR answering CALL req, whose RESULT or
// INVOCATION err refused.
func tooLongCallError(req wamp.ID, err error, who string) *wamp.Error {
	return wamp.ErrorFor(wamp.TypeCall, req, wamp.Errorf(wamp.ErrPayloadSizeExceeded, "%s", tooLongText(err, who)))
}

// shorter returns what to send instead of m, refused by err as too long,
// or nil for a message that has no shorter form (an EVENT, a RESULT or an
// INVOCATION, which their senders answer for). bare: the shortest form,
// when the first replacement was refused too.
func shorter(m wamp.Message, err error, bare bool) wamp.Message {
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Error:
		var args wamp.List
		if !bare {
			args = wamp.List{"the error's details and arguments were cut: " + tooLongText(err, "client")}
		}
		return &wamp.Error{RequestType: m.RequestType, Request: m.Request, Details: wamp.Dict{}, Error: m.Error, Args: args}
	case *wamp.Abort:
		return &wamp.Abort{Details: wamp.Dict{}, Reason: m.Reason}
	case *wamp.Goodbye:
		return &wamp.Goodbye{Details: wamp.Dict{}, Reason: m.Reason}
	}
	return nil
}

// sendShorter sends, instead of m that err refused as too long, its
// shorter form if it has one (see shorter). It returns Send's error, or
// err when m has none.
func (s *session) sendShorter(by *session, m wamp.Message, err error) error {
	for _, bare := range []bool{false, true} {
		r := shorter(m, err, bare)
		if r == nil {
			return err
		}
		if err = s.sendPeer(by, r); !tooLong(err) {
			return err
		}
	}
	return err
}

// resultTooLong ends c, whose RESULT res its caller's peer refused with
// err: the caller gets ERROR wamp.error.payload_size_exceeded instead.
// After a progressive RESULT the call was still running: it ends here,
// and its callee gets INTERRUPT killnowait (if it announced
// call_canceling, and was not interrupted already); a call that ended
// meanwhile (canceled, timed out) had its answer, and nothing more is
// sent. A final RESULT had ended the call already (yield).
func (d *dealer) resultTooLong(c *call, res *wamp.Result, err error) {
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
			c.interrupt(&out, wamp.CancelKillNoWait, wamp.ErrPayloadSizeExceeded)
		}
	}
	out.add(c.caller, tooLongCallError(c.request, err, "caller"))
	d.mu.Unlock()
	out.flush()
}

// invocationTooLong ends c, whose INVOCATION its callee's peer refused
// with err: the caller gets ERROR wamp.error.payload_size_exceeded. A call
// that ended meanwhile (its callee left, it was canceled) had its answer.
func (d *dealer) invocationTooLong(c *call, err error) {
	d.mu.Lock()
	if !c.pending() {
		d.mu.Unlock()
		return
	}
	d.finish(c)
	d.mu.Unlock()
	c.caller.send(tooLongCallError(c.request, err, "callee"))
}
