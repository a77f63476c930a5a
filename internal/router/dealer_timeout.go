package router

import (
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// startTimer cancels c after timeout unless it is over by then. It is
// started after the INVOCATION was sent, so that INTERRUPT cannot overtake
// it.
func (d *dealer) startTimer(c *call, timeout time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c.pending() {
		c.timer = time.AfterFunc(timeout, func() { d.expire(c) })
	}
}

// expire ends a call whose timeout passed, as Crossbar does: the caller
// gets ERROR wamp.error.timeout and the callee INTERRUPT (mode killnowait,
// reason wamp.error.timeout) if it announced call_canceling. Runs on the
// timer's goroutine.
func (d *dealer) expire(c *call) {
	var out outbox
	d.mu.Lock()
	if c.pending() {
		d.finish(c)
		c.interrupt(&out, wamp.CancelKillNoWait, wamp.ErrTimeout)
		out.add(c.caller, c.callError(wamp.ErrTimeout, "call timed out"))
	}
	d.mu.Unlock()
	out.flush()
}
