package loginguard

import (
	"errors"
	"fmt"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// ErrQuiet ends a handshake without an ABORT: the client sent ABORT or
// GOODBYE, or its connection ended.
var ErrQuiet = errors.New("loginguard: handshake ended by the client")

// ProtocolError is a client's breach of the protocol during the
// handshake: its answer is ABORT wamp.error.protocol_violation with Msg.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "protocol violation: " + e.Msg }

// Violation returns a *ProtocolError.
func Violation(format string, a ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, a...)}
}

// Recv reads one handshake message of the client from p: ErrQuiet when
// the client left (its connection ended, or it sent ABORT or GOODBYE), a
// *ProtocolError when what came is no message (a frame that does not
// decode, wamp.ErrProtocol). The message is returned with ErrQuiet too
// when it was ABORT or GOODBYE, for the caller to count.
func Recv(p wamp.Peer) (wamp.Message, error) {
	m, err := p.Recv()
	if err != nil {
		if errors.Is(err, wamp.ErrProtocol) {
			return nil, Violation("%v", err)
		}
		return nil, ErrQuiet
	}
	switch m := wamp.Unwrap(m); m.(type) {
	case nil:
		return nil, Violation("no message")
	case *wamp.Abort, *wamp.Goodbye:
		return m, ErrQuiet
	default:
		return m, nil
	}
}

// Timer is a time.AfterFunc whose Stop tells whether the function will
// run and, if it has begun, waits until it has returned: what it did is
// then done and seen by the caller. A held-back CHALLENGE is one (the
// session's goroutine waits for the answer meanwhile, so the wait ends
// at once if the client leaves), a join timeout another.
type Timer struct {
	t    *time.Timer
	done chan struct{} // closed once the function has returned
}

// AfterFunc calls f on its own goroutine after d.
func AfterFunc(d time.Duration, f func()) *Timer {
	tf := &Timer{done: make(chan struct{})}
	tf.t = time.AfterFunc(d, func() {
		f()
		close(tf.done)
	})
	return tf
}

// Stop reports true if it stopped the timer before f ran, or if tf is
// nil (no timer); otherwise it waits for f to return and reports false.
func (tf *Timer) Stop() bool {
	if tf == nil || tf.t.Stop() {
		return true
	}
	<-tf.done
	return false
}
