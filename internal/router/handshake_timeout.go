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
// session's goroutine, or from a delayed CHALLENGE's timer that the
// session's goroutine waits for before it calls stop (see delayed).
type joinClock struct {
	s       *session
	d       time.Duration // <= 0: no deadline
	t       *time.Timer   // nil while stopped
	expired chan struct{} // closed once the expiry's ABORT was sent
}

// newJoinClock returns s's join clock, stopped.
func newJoinClock(s *session) *joinClock {
	return &joinClock{s: s, d: s.gate.JoinTimeout(), expired: make(chan struct{})}
}

// start runs the clock while the router waits for the message named what.
func (c *joinClock) start(what string) {
	if c.d <= 0 {
		return
	}
	c.t = time.AfterFunc(c.d, func() {
		c.s.abort(ErrJoinTimeoutURI, "no %s within %v", what, c.d)
		close(c.expired)
	})
}

// stop stops the clock. It returns false if the clock expired: the
// session has been sent ABORT (stop waits until then) and is over.
func (c *joinClock) stop() bool {
	t := c.t
	c.t = nil
	if t == nil || t.Stop() {
		return true
	}
	<-c.expired
	return false
}

// delayed is a message sent later by a timer, while the session's
// goroutine already waits for the answer in Recv: the wait ends at once if
// the client leaves or the router closes the session.
type delayed struct {
	t    *time.Timer // nil when sent at once
	done chan struct{}
}

// sendAfter sends m after wait (at once when wait <= 0), then calls then.
func (s *session) sendAfter(m wamp.Message, wait time.Duration, then func()) *delayed {
	d := &delayed{done: make(chan struct{})}
	send := func() {
		s.send(m)
		then()
		close(d.done)
	}
	if wait <= 0 {
		send()
	} else {
		d.t = time.AfterFunc(wait, send)
	}
	return d
}

// settle cancels the send if it is still pending and reports whether it
// happened; when it is under way, settle waits for it to finish.
func (d *delayed) settle() bool {
	if d.t != nil && d.t.Stop() {
		return false
	}
	<-d.done
	return true
}
