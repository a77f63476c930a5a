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
	running  bool // a handler runs
	due      bool // WatchDelay has passed since it began
	bodyDone bool // its request body has been read (or it has none)
	started  bool // the read goroutine runs
	aborted  bool // the read was ended by end or hijack
	cancel   context.CancelFunc
	done     chan struct{} // closed when the read goroutine returns
}

// watchStarted, when set (by tests), is called as a watch starts.
var watchStarted atomic.Pointer[func()]

// begin arms the watch of a request whose handler starts now.
func (w *watcher) begin(c *conn, cancel context.CancelFunc, bodyDone bool) {
	w.mu.Lock()
	w.running, w.due, w.bodyDone, w.started, w.aborted = true, false, bodyDone, false, false
	w.cancel = cancel
	if w.timer == nil {
		w.timer = time.AfterFunc(WatchDelay, func() { w.fire(c) })
	} else {
		w.timer.Reset(WatchDelay)
	}
	w.mu.Unlock()
}

// fire runs when WatchDelay has passed (possibly late, for a request
// already answered: then nothing happens).
func (w *watcher) fire(c *conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.running {
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
// read to end, so that the connection's reader is the engine's again.
func (w *watcher) end(c *conn) {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.running = false
	started, done := w.started, w.done
	w.started, w.aborted = false, true
	w.mu.Unlock()
	if started {
		_ = c.rwc.SetReadDeadline(aLongTimeAgo)
		<-done
		_ = c.rwc.SetReadDeadline(time.Time{})
	}
}
