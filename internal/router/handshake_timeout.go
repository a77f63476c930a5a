package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/wamp"
)

// DefaultJoinTimeout is a gate's join timeout when GateOptions.JoinTimeout
// is 0.
const DefaultJoinTimeout = 10 * time.Second

// ErrJoinTimeoutURI is the ABORT reason of a client that did not send
// HELLO, or did not answer a CHALLENGE, within its gate's join timeout.
const ErrJoinTimeoutURI wamp.URI = "junction.error.join_timeout"

// joinClock is a handshake's join timeout. It runs while the router waits
// for the client (for HELLO after attach, for AUTHENTICATE after each
// CHALLENGE) and is stopped while the router itself works or holds a
// CHALLENGE back (throttle.go). When it expires, it ends the session with
// ABORT ErrJoinTimeoutURI; the session's Recv then fails.
//
// Not safe for concurrent use: start and stop are called from the
// session's goroutine, or from a held-back CHALLENGE's timer that the
// session's goroutine waits for before it calls stop (see sendAfter).
type joinClock struct {
	s *session
	d time.Duration // <= 0: no deadline
	t *timerFunc    // nil while stopped
}

// newJoinClock returns s's join clock, stopped.
func newJoinClock(s *session) *joinClock {
	return &joinClock{s: s, d: s.gate.JoinTimeout()}
}

// start runs the clock while the router waits for the message named what.
func (c *joinClock) start(what string) {
	if c.d <= 0 {
		return
	}
	c.t = afterFunc(c.d, func() { c.s.abort(ErrJoinTimeoutURI, "no %s within %v", what, c.d) })
}

// stop stops the clock. It returns false if the clock expired: the
// session has been sent ABORT (stop waits until then) and is over.
func (c *joinClock) stop() bool {
	t := c.t
	c.t = nil
	return t == nil || t.stop()
}

// sendAfter sends m after wait (at once when wait <= 0), then calls then.
// It returns the send still to come, nil if it is done: the session's
// goroutine already waits for the answer in Recv meanwhile, so the wait
// ends at once if the client leaves or the router closes the session.
func (s *session) sendAfter(m wamp.Message, wait time.Duration, then func()) *timerFunc {
	send := func() {
		s.send(m)
		then()
	}
	if wait <= 0 {
		send()
		return nil
	}
	return afterFunc(wait, send)
}

// timerFunc is a time.AfterFunc whose stop tells whether the function
// will run and, if it has begun, waits until it has returned: what it did
// is then done and seen by the caller.
type timerFunc struct {
	t    *time.Timer
	done chan struct{} // closed once the function has returned
}

// afterFunc calls f on its own goroutine after d.
func afterFunc(d time.Duration, f func()) *timerFunc {
	tf := &timerFunc{done: make(chan struct{})}
	tf.t = time.AfterFunc(d, func() {
		f()
		close(tf.done)
	})
	return tf
}

// stop reports true if it stopped the timer before f ran; otherwise it
// waits for f to return and reports false.
func (tf *timerFunc) stop() bool {
	if tf.t.Stop() {
		return true
	}
	<-tf.done
	return false
}
