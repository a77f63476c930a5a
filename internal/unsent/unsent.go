// Package unsent says what to do with a message a peer's Send refused
// before writing any of it: one longer than the other side accepts
// (wamp.ErrMessageTooLong: the maximum message length a RawSocket client
// announced), or one holding a value the other side's serializer cannot
// carry (wamp.ErrUnencodable: NaN or a channel for JSON, from an
// in-process session that sends Go values as they are). The router and
// the proxy's relay answer for such a message rather than lose it: the
// error URI (Reason.URI), the text saying what was refused (Text), the
// plainer form of an ERROR, ABORT, GOODBYE or CANCEL (SendPlainer), and the
// count and rate-limited log (Log) are this package's, the rest theirs.
package unsent

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

// Reason is why a peer's Send refused a message before writing it.
type Reason uint8

const (
	None        Reason = iota // sent, or failed otherwise (closed, slow consumer)
	TooLong                   // wamp.ErrMessageTooLong
	Unencodable               // wamp.ErrUnencodable
	numReasons
)

// Of returns why err, Send's, refused its message.
func Of(err error) Reason {
	switch {
	case err == nil:
		return None
	case errors.Is(err, wamp.ErrMessageTooLong):
		return TooLong
	case errors.Is(err, wamp.ErrUnencodable):
		return Unencodable
	}
	return None
}

// Refused reports whether err, Send's, refused a message before writing
// it, so that its sender must answer for it.
func Refused(err error) bool { return Of(err) != None }

// URI is the error URI that answers for a message refused so:
// wamp.error.payload_size_exceeded for one too long, and
// wamp.error.invalid_argument for one that does not encode (its values
// are not acceptable to the receiver, as the WAMP specification says of
// that URI; the router cannot pass them on).
func (r Reason) URI() wamp.URI {
	if r == Unencodable {
		return wamp.ErrInvalidArgument
	}
	return wamp.ErrPayloadSizeExceeded
}

// Text says what err refused, to whom (who: "caller", "client"): "RESULT
// of 5000 bytes, longer than the 1024 bytes the caller accepts", "RESULT
// with a value the caller's serializer cannot encode (json: non-finite
// float)".
func Text(err error, who string) string {
	if tl, ok := errors.AsType[*wamp.MessageTooLongError](err); ok {
		return fmt.Sprintf("%s of %d bytes, longer than the %d bytes the %s accepts", tl.Type, tl.Length, tl.Limit, who)
	}
	if ee, ok := errors.AsType[*wamp.EncodeError](err); ok {
		return fmt.Sprintf("%s with a value the %s's serializer cannot encode (%v)", ee.Type, who, ee.Err)
	}
	if Of(err) == Unencodable {
		return fmt.Sprintf("message with a value the %s's serializer cannot encode", who)
	}
	return fmt.Sprintf("message longer than the %s accepts", who)
}

// Error is the ERROR answering request req of type t (a CALL, an
// INVOCATION), whose RESULT or INVOCATION err refused, for who.
func Error(t wamp.MessageType, req wamp.ID, err error, who string) *wamp.Error {
	return wamp.ErrorFor(t, req, wamp.Errorf(Of(err).URI(), "%s", Text(err, who)))
}

// plainer returns what to send instead of m, refused by err by who (as
// in Text), or nil for a message that has none (an EVENT, a RESULT or an
// INVOCATION, which their senders answer for). bare: the plainest form,
// when the first replacement was refused too.
func plainer(m wamp.Message, err error, who string, bare bool) wamp.Message {
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Error:
		var args wamp.List
		if !bare {
			args = wamp.List{"the error's details and arguments were cut: " + Text(err, who)}
		}
		return &wamp.Error{RequestType: m.RequestType, Request: m.Request, Details: wamp.Dict{}, Error: m.Error, Args: args}
	case *wamp.Abort:
		return &wamp.Abort{Details: wamp.Dict{}, Reason: m.Reason}
	case *wamp.Goodbye:
		return &wamp.Goodbye{Details: wamp.Dict{}, Reason: m.Reason}
	case *wamp.Cancel:
		opts := wamp.Dict{}
		if mode, ok := m.Options[wamp.OptMode].(string); ok && !bare {
			opts[wamp.OptMode] = mode
		}
		return &wamp.Cancel{Request: m.Request, Options: opts}
	}
	return nil
}

// SendPlainer sends with send, instead of m that err refused, its plainer
// form: an ERROR with its URI, its details, arguments and keyword
// arguments replaced by a message saying what who (as in Text) refused
// (without it when even that is refused); an ABORT or GOODBYE without its
// details; a CANCEL (a client's, which the proxy's relay passes on) with
// its mode alone, then without options. It returns send's error, or err
// when m has no plainer form.
func SendPlainer(send func(wamp.Message) error, m wamp.Message, err error, who string) error {
	for _, bare := range []bool{false, true} {
		r := plainer(m, err, who, bare)
		if r == nil {
			return err
		}
		if err = send(r); !Refused(err) {
			return err
		}
	}
	return err
}

// LogEvery is the shortest interval between two lines of a Log about
// messages refused for one reason.
const LogEvery = 10 * time.Second

// Log counts refused messages by reason, and logs them at warning level,
// each reason at most once per LogEvery. Safe for concurrent use; it
// takes no lock of its user's.
type Log struct {
	log   *slog.Logger
	total [numReasons]atomic.Uint64
	rate  [numReasons]lograte.Limit // Interval LogEvery
}

// NewLog returns a Log writing to log.
func NewLog(log *slog.Logger) *Log {
	l := &Log{log: log}
	for i := range l.rate {
		l.rate[i].Interval = LogEvery
	}
	return l
}

// Count is the number of messages refused for r so far.
func (l *Log) Count(r Reason) uint64 { return l.total[r].Load() }

// Note counts one message of type t refused by session's peer with err
// (Send's), and logs it if the last line of its reason is old enough:
// realm, session, the message's type, what the peer says (the length and
// the receiver's limit, or why it does not encode), and the count since
// the last line.
func (l *Log) Note(realm string, session uint64, t wamp.MessageType, err error) {
	r := Of(err)
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
	if r == Unencodable {
		msg = "message its receiver's serializer cannot encode: not sent"
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	attrs = append(attrs, slog.Int("count", suppressed+1))
	l.log.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
}
