package h1

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
)

// ErrBodyTimeout is what a request body's Read returns (wrapped, with the
// connection's os.ErrDeadlineExceeded) when the client sent nothing of it
// for Server.BodyTimeout.
var ErrBodyTimeout = errors.New("h1: request body timed out")

// maxDiscard is how much of a request body the handler left unread the
// engine reads to keep the connection (net/http's figure, about what a
// TCP receive buffer holds): more, and the connection closes instead.
const maxDiscard = 256 << 10

// body is a request body as the handler sees it: it answers
// "Expect: 100-continue" at its first read, tells the watcher when it has
// ended, and knows what is left of it when the handler returns. Safe for
// concurrent use (a handler may hand it to another goroutine): a Close
// waits for a Read in progress, as net/http's.
type body struct {
	mu        sync.Mutex // guards the fields below; held during a Read
	src       io.ReadCloser
	w         *response
	remaining int64       // bytes of a Content-Length body not read yet; -1 for chunked
	expect    bool        // a 100 Continue to send before the first read
	continued bool        // the request asked for 100 Continue (sent or not)
	closing   bool        // a Content-Length body of a request whose connection closes after it
	eof       atomic.Bool // src returned io.EOF (read without the lock too)
	closed    bool
	early     bool  // closed with too much left to read: the connection cannot be reused
	broken    bool  // a read failed: what remains on the connection is no request
	timedOut  error // the read that failed with ErrBodyTimeout: every later read fails so, at once
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.readLocked(p)
}

// readLocked reads from src. Lock held.
func (b *body) readLocked(p []byte) (int, error) {
	if b.expect && !b.eof.Load() {
		b.expect = false
		b.w.sendContinue()
	}
	if b.timedOut != nil {
		return 0, b.timedOut // a read after a timeout must not wait as long again
	}
	n, err := b.src.Read(p)
	if b.remaining > 0 {
		b.remaining -= int64(n)
	}
	if err != nil && err != io.EOF {
		b.broken = true
		if b.w.c.r.bodyIdle > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("%w: %w", ErrBodyTimeout, err)
			b.timedOut = err
		}
	}
	if err == io.EOF && !b.eof.Load() {
		b.eof.Store(true)
		b.w.c.watch.bodyEnded(b.w.c)
	}
	return n, err
}

// Close marks the body closed. What the handler left of it is read (up
// to maxDiscard) so that the connection can serve the next request; past
// that, or on a read error, the connection closes after the answer.
func (b *body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if b.eof.Load() || b.closing || b.timedOut != nil {
		return nil // nothing to read, no next request to read it for, or a client that stalls
	}
	if b.remaining > maxDiscard || b.expect {
		b.early = true // not worth reading, or the client waits for a 100 Continue it will not get
		return nil
	}
	switch err := b.discardLocked(maxDiscard); err {
	case nil:
	case errTooLong:
		b.early = true
	default:
		b.broken = true
		return err
	}
	return nil
}

// discardLocked reads and drops up to limit bytes; nil once the body has
// ended, errTooLong when more remain. Lock held.
func (b *body) discardLocked(limit int64) error {
	buf := make([]byte, 4096)
	for read := int64(0); !b.eof.Load(); {
		if read > limit {
			return errTooLong
		}
		n, err := b.readLocked(buf)
		read += int64(n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type tooLongError struct{}

func (tooLongError) Error() string { return "h1: request body too long to discard" }

var errTooLong error = tooLongError{}

// ending reports, under the lock, whether the body was closed with too
// much left to read, and whether a read of it failed.
func (b *body) ending() (early, broken bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.early, b.broken
}

// waitsForContinue reports a body of an "Expect: 100-continue" request
// that has not ended. It does not wait for a Read in progress on another
// goroutine (a full-duplex handler answers while its body arrives).
func (b *body) waitsForContinue() bool {
	return b.continued && !b.eof.Load()
}

// remains reports whether the body still has bytes to read.
func (b *body) remains() bool {
	if b == nil {
		return false
	}
	return !b.eof.Load()
}

// discard reads what the handler left of the body, before the answer's
// head is written, as net/http does (some clients send the whole request
// before they read the answer): keep reports whether the connection can
// still serve another request, tooBig whether that is because the body
// was too long.
func (b *body) discard() (keep, tooBig bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.eof.Load():
		return true, false
	case b.closed || b.timedOut != nil:
		return false, false // closed before its end, or stalled
	case b.remaining >= maxDiscard:
		return false, true
	}
	switch err := b.discardLocked(maxDiscard); err {
	case nil:
		return true, false
	case errTooLong:
		return false, true
	default:
		return false, false // a timeout, a bad chunk: what remains is no request
	}
}
