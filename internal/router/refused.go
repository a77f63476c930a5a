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

// What the router does with a message its receiver's peer refuses before
// writing any of it: one longer than the receiver accepts (a RawSocket
// client announces its maximum message length in its handshake; Send
// returns wamp.ErrMessageTooLong), or one holding a value the receiver's
// serializer cannot carry (a channel, NaN in JSON, a string that is not
// UTF-8, ...: an in-process session sends Go values as they are, and the
// socket's Send returns wamp.ErrUnencodable). Nothing is lost silently,
// and the session stays open (but for a WELCOME refused). The answer's
// URI is the refusal's (sendRefusal.uri): wamp.error.payload_size_exceeded
// for a message too long, wamp.error.invalid_argument for one that does
// not encode (the arguments are not acceptable to the receiver, as the
// WAMP specification says of that URI: the router cannot pass them on).
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
// refusedLogEvery.

// refusedLogEvery is the shortest interval between two lines about
// refused messages of one reason.
const refusedLogEvery = 10 * time.Second

// sendRefusal is why a peer's Send refused a message before writing it.
type sendRefusal uint8

const (
	notRefused         sendRefusal = iota // sent, or failed otherwise
	refusedTooLong                        // wamp.ErrMessageTooLong
	refusedUnencodable                    // wamp.ErrUnencodable
	numRefusals
)

// refusalOf returns why err, Send's, refused its message.
func refusalOf(err error) sendRefusal {
	switch {
	case err == nil:
		return notRefused
	case errors.Is(err, wamp.ErrMessageTooLong):
		return refusedTooLong
	case errors.Is(err, wamp.ErrUnencodable):
		return refusedUnencodable
	}
	return notRefused
}

// refusedSend reports whether err, Send's, refused a message before writing
// it: the router answers for that message (see above).
func refusedSend(err error) bool { return refusalOf(err) != notRefused }

// uri is the error URI that answers for a message refused so.
func (r sendRefusal) uri() wamp.URI {
	if r == refusedUnencodable {
		return wamp.ErrInvalidArgument
	}
	return wamp.ErrPayloadSizeExceeded
}

// refusedLog counts the messages their receivers' peers refused, by
// reason, and logs them, rate-limited. Safe for concurrent use; it takes
// no router lock.
type refusedLog struct {
	log   *slog.Logger
	total [numRefusals]atomic.Uint64
	rate  [numRefusals]lograte.Limit // Interval refusedLogEvery
}

func newRefusedLog(log *slog.Logger) *refusedLog {
	l := &refusedLog{log: log}
	for i := range l.rate {
		l.rate[i].Interval = refusedLogEvery
	}
	return l
}

// note counts one message refused by session's peer with err (Send's),
// and logs it if the last line of its reason is old enough: realm,
// session, the message's type, what the peer says (the length and the
// receiver's limit, or why it does not encode), and the count since the
// last line.
func (l *refusedLog) note(realm string, session uint64, t wamp.MessageType, err error) {
	r := refusalOf(err)
	l.total[r].Add(1)
	ok, suppressed := l.rate[r].Allow()
	if !ok || !l.log.Enabled(context.Background(), slog.LevelWarn) {
		return
	}
	attrs := []slog.Attr{slog.String("realm", realm), slog.Uint64("session", session), slog.String("type", t.String())}
	msg := "message too long for its receiver: not sent"
	if tl, ok := errors.AsType[*wamp.MessageTooLongError](err); ok {
		attrs = append(attrs, slog.Int("length", tl.Length), slog.Int("limit", tl.Limit))
	}
	if r == refusedUnencodable {
		msg = "message its receiver's serializer cannot encode: not sent"
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	attrs = append(attrs, slog.Int("count", suppressed+1))
	l.log.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
}

// refusedText says what err refused, for the ERROR that replaces it:
// "RESULT of 5000 bytes, longer than the 1024 bytes the caller accepts",
// "RESULT with a value the caller's serializer cannot encode (json:
// non-finite float)".
func refusedText(err error, who string) string {
	if tl, ok := errors.AsType[*wamp.MessageTooLongError](err); ok {
		return fmt.Sprintf("%s of %d bytes, longer than the %d bytes the %s accepts", tl.Type, tl.Length, tl.Limit, who)
	}
	if ee, ok := errors.AsType[*wamp.EncodeError](err); ok {
		return fmt.Sprintf("%s with a value the %s's serializer cannot encode (%v)", ee.Type, who, ee.Err)
	}
	if refusalOf(err) == refusedUnencodable {
		return fmt.Sprintf("message with a value the %s's serializer cannot encode", who)
	}
	return fmt.Sprintf("message longer than the %s accepts", who)
}

// refusedCallError is the ERROR answering CALL req, whose RESULT or
// INVOCATION err refused.
func refusedCallError(req wamp.ID, err error, who string) *wamp.Error {
	return wamp.ErrorFor(wamp.TypeCall, req, wamp.Errorf(refusalOf(err).uri(), "%s", refusedText(err, who)))
}

// shorter returns what to send instead of m, refused by err, or nil for
// a message that has no plainer form (an EVENT, a RESULT or an
// INVOCATION, which their senders answer for). bare: the plainest form,
// when the first replacement was refused too.
func shorter(m wamp.Message, err error, bare bool) wamp.Message {
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Error:
		var args wamp.List
		if !bare {
			args = wamp.List{"the error's details and arguments were cut: " + refusedText(err, "client")}
		}
		return &wamp.Error{RequestType: m.RequestType, Request: m.Request, Details: wamp.Dict{}, Error: m.Error, Args: args}
	case *wamp.Abort:
		return &wamp.Abort{Details: wamp.Dict{}, Reason: m.Reason}
	case *wamp.Goodbye:
		return &wamp.Goodbye{Details: wamp.Dict{}, Reason: m.Reason}
	}
	return nil
}

// sendShorter sends, instead of m that err refused, its shorter form if
// it has one (see shorter). It returns Send's error, or err when m has
// none.
func (s *session) sendShorter(by *session, m wamp.Message, err error) error {
	for _, bare := range []bool{false, true} {
		r := shorter(m, err, bare)
		if r == nil {
			return err
		}
		if err = s.sendPeer(by, r); !refusedSend(err) {
			return err
		}
	}
	return err
}

// resultRefused ends c, whose RESULT res its caller's peer refused with
// err: the caller gets an ERROR instead (sendRefusal.uri). After a
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
			c.interrupt(&out, wamp.CancelKillNoWait, refusalOf(err).uri())
		}
	}
	out.add(c.caller, refusedCallError(c.request, err, "caller"))
	d.mu.Unlock()
	out.flush()
}

// invocationRefused ends c, whose INVOCATION its callee's peer refused
// with err: the caller gets an ERROR (sendRefusal.uri). A call that ended
// meanwhile (its callee left, it was canceled) had its answer.
func (d *dealer) invocationRefused(c *call, err error) {
	d.mu.Lock()
	if !c.pending() {
		d.mu.Unlock()
		return
	}
	d.finish(c)
	d.mu.Unlock()
	c.caller.send(refusedCallError(c.request, err, "callee"))
}
