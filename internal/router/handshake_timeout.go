package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/wamp"
)

// ErrThrottledURI is the ABORT reason of a login that the login throttle
// refused without trying it (loginguard.ErrThrottledURI).
const ErrThrottledURI = loginguard.ErrThrottledURI

// DefaultJoinTimeout is a gate's join timeout when GateOptions.JoinTimeout
// is 0.
const DefaultJoinTimeout = 10 * time.Second

// ErrJoinTimeoutURI is the ABORT reason of a client that did not send
// HELLO, or did not answer a CHALLENGE, within its gate's join timeout.
const ErrJoinTimeoutURI wamp.URI = "junction.error.join_timeout"

// joinClock is a handshake's join timeout. It runs while the router waits
// for the client (for HELLO after attach, for AUTHENTICATE after each
// CHALLENGE) and is stopped while the router itself works or holds a
// CHALLENGE back (the login throttle). When it expires, it ends the session with
// ABORT ErrJoinTimeoutURI; the session's Recv then fails.
//
// Not safe for concurrent use: start and stop are called from the
// session's goroutine, or from a held-back CHALLENGE's timer that the
// session's goroutine waits for before it calls stop (see sendAfter).
type joinClock struct {
	s *session
	d time.Duration     // <= 0: no deadline
	t *loginguard.Timer // nil while stopped
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
	c.t = loginguard.AfterFunc(c.d, func() { c.s.abort(ErrJoinTimeoutURI, "no %s within %v", what, c.d) })
}

// stop stops the clock. It returns false if the clock expired: the
// session has been sent ABORT (stop waits until then) and is over.
func (c *joinClock) stop() bool {
	t := c.t
	c.t = nil
	return t.Stop()
}

// sendAfter sends m after wait (at once when wait <= 0), then calls then.
// It returns the send still to come, nil if it is done: the session's
// goroutine already waits for the answer in Recv meanwhile, so the wait
// ends at once if the client leaves or the router closes the session.
func (s *session) sendAfter(m wamp.Message, wait time.Duration, then func()) *loginguard.Timer {
	send := func() {
		s.send(m)
		then()
	}
	if wait <= 0 {
		send()
		return nil
	}
	return loginguard.AfterFunc(wait, send)
}
