package h1

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// watcher notices a client going away while its request's handler runs,
// and cancels the request's context then (the reverse proxy aborts its
// upstream request, the Caller its call, a stream its loop).
//
// Noticing it takes a read on the connection, which net/http's server
// starts for every request once its body is read: a goroutine, a 1-byte
// read and the deadlines that end it, on the hot path of every request.
// Here the read starts only for a handler still running WatchDelay after
// it began, and only once the request's body has been read (before that
// the handler owns the reading side; a read of the body fails anyway when
// the client goes away). A handler that answers sooner never pays for it,
// and one that runs longer (a long poll, a stream, a slow upstream) is
// watched from then on, as net/http would: the disconnect tests pass on
// both engines, only later by WatchDelay at most.
//
// The read takes one byte: the client going away ends it with an error
// (the context is cancelled), a byte of a pipelined request ends it too
// (the byte is kept for the next request, and the watch ends: the client
// is there), and the handler's return ends it with a deadline in the
// past.
type watcher struct {
	mu       sync.Mutex // guards the fields below
	timer    *time.Timer
	pending  bool      // the timer is set
	began    time.Time // when the running handler began
	running  bool      // a handler runs
	due      bool      // WatchDelay has passed since it began
	bodyDone bool      // its request body has been read (or it has none)
	started  bool      // the read goroutine runs
	aborted  bool      // the read was ended by end or hijack
	cancel   context.CancelFunc
	done     chan struct{} // closed when the read goroutine returns
}

// watchStarted, when set (by tests), is called as a watch starts.
var watchStarted atomic.Pointer[func()]

// begin arms the watch of a request whose handler starts now.
//
// The timer is not stopped when a handler returns, nor set again for the
// next request while it is set: on a connection whose requests follow
// each other, it fires once per WatchDelay or so, and sets itself again
// for what remains of the delay of the handler running then (see fire).
// Setting and stopping a timer for every request cost about 1 % of the
// reverse proxy's CPU per request.
func (w *watcher) begin(c *conn, cancel context.CancelFunc, bodyDone bool) {
	now := time.Now()
	w.mu.Lock()
	w.running, w.due, w.bodyDone, w.started, w.aborted = true, false, bodyDone, false, false
	w.cancel, w.began = cancel, now
	switch {
	case w.timer == nil:
		w.timer = time.AfterFunc(WatchDelay, func() { w.fire(c) })
	case !w.pending:
		w.timer.Reset(WatchDelay)
	}
	w.pending = true
	w.mu.Unlock()
}

// fire runs when the timer fires: WatchDelay after the running handler
// began, the watch starts; sooner, the timer is set for the rest of the
// delay; with no handler running, nothing happens (the next begin sets
// the timer).
func (w *watcher) fire(c *conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = false
	if !w.running {
		return
	}
	if left := WatchDelay - time.Since(w.began); left > 0 {
		w.timer.Reset(left)
		w.pending = true
		return
	}
	w.due = true
	w.startLocked(c)
}

// bodyEnded is called when the request body has been read to its end.
func (w *watcher) bodyEnded(c *conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bodyDone = true
	w.startLocked(c)
}

// startLocked starts the read if it is time. Lock held.
func (w *watcher) startLocked(c *conn) {
	if !w.running || !w.due || !w.bodyDone || w.started {
		return
	}
	if c.br.Buffered() > 0 || c.r.hasByte {
		return // the next request is there already: the client is too
	}
	w.started = true
	w.done = make(chan struct{})
	if f := watchStarted.Load(); f != nil {
		(*f)()
	}
	_ = c.rwc.SetReadDeadline(time.Time{}) // the body timeout's, if any, is over
	go w.read(c, w.cancel, w.done)
}

// read is the watch's goroutine.
func (w *watcher) read(c *conn, cancel context.CancelFunc, done chan struct{}) {
	defer close(done)
	n, err := c.rwc.Read(c.r.byteBuf[:])
	if n == 1 {
		c.r.hasByte = true
	}
	if err == nil {
		return
	}
	w.mu.Lock()
	aborted := w.aborted
	w.mu.Unlock()
	if aborted && errors.Is(err, os.ErrDeadlineExceeded) {
		return
	}
	var ne net.Error
	if aborted && errors.As(err, &ne) && ne.Timeout() {
		return
	}
	cancel() // the client went away (or a deadline the handler set passed)
}

// end stops the watch when the handler has returned, and waits for its
// read to end, so that the connection's reader is the engine's again. It
// reports whether the read had started (it set the read deadline).
func (w *watcher) end(c *conn) bool {
	w.mu.Lock()
	w.running = false
	started, done := w.started, w.done
	w.started, w.aborted = false, true
	w.mu.Unlock()
	if started {
		_ = c.rwc.SetReadDeadline(aLongTimeAgo)
		<-done
		_ = c.rwc.SetReadDeadline(time.Time{})
	}
	return started
}

// stop stops the timer when the connection is done: it would keep the
// connection from being collected until it fires.
func (w *watcher) stop() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.pending = false
	w.mu.Unlock()
}
