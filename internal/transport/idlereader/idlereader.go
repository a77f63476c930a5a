// Package idlereader is a buffered reader for a connection that holds a
// pooled buffer only while data is flowing, so that an idle connection
// holds no read buffer (10,000 idle WAMP sessions must fit in about
// 100 MiB).
//
// An idle connection is read with a one-byte read straight from the
// connection; once data arrives the Reader takes a buffer from the pool
// and keeps it while traffic goes on, reading whole bursts into it. When
// the connection can hold a read deadline (a net.Conn), the Reader keeps
// one between Linger/2 and Linger ahead while it waits with its buffer,
// and when the deadline passes with nothing received it gives the buffer
// back and waits with a one-byte read again: a busy connection makes one
// read call per burst (plus the one that finds nothing more, as Go's
// poller does), an idle one holds no buffer after at most Linger. A connection without deadlines gives
// its buffer back whenever it is drained, which costs one more read call
// per burst.
package idlereader

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// BufferSize is the size of the pooled buffers.
const BufferSize = 4096

// Linger is how long, at most, a connection keeps its buffer after its
// last data (at least Linger/2).
const Linger = 250 * time.Millisecond

var pool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, BufferSize) }}

// deadliner is a connection whose reads can be interrupted by a deadline.
type deadliner interface {
	SetReadDeadline(t time.Time) error
}

// Reader reads from a connection through a pooled buffer held only while
// data is arriving. It is used by one goroutine (the connection's reader).
type Reader struct {
	conn    io.Reader
	dl      deadliner // conn's deadlines; nil without, or after Fixed
	pending []byte    // bytes received before the Reader took over
	br      *bufio.Reader
	// until is the read deadline the Reader set, in Unix nanoseconds, 0
	// when none (not a time.Time: the Reader fits 80 bytes, not 96).
	until int64
}

// New returns a Reader for conn that first returns pending: the bytes
// another reader had already buffered (net/http's, after a hijack). It
// keeps its own copy of pending.
func New(conn io.Reader, pending []byte) *Reader {
	r := &Reader{conn: conn}
	r.dl, _ = conn.(deadliner)
	if len(pending) > 0 {
		r.pending = append([]byte(nil), pending...)
	}
	return r
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		if len(r.pending) == 0 {
			r.pending = nil
		}
		return n, nil
	}
	for {
		if r.br == nil {
			return r.readIdle(p)
		}
		if r.br.Buffered() > 0 || r.dl == nil {
			return r.readBuffered(p)
		}
		r.extend()
		n, err := r.br.Read(p)
		if n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		// Nothing for at least Linger/2: wait without the buffer.
		r.until = 0
		r.dl.SetReadDeadline(time.Time{})
		r.Release()
	}
}

// readIdle waits for the next byte without a buffer, then takes one.
func (r *Reader) readIdle(p []byte) (int, error) {
	n, err := r.conn.Read(p[:1])
	if n == 1 {
		r.br = pool.Get().(*bufio.Reader)
		r.br.Reset(r.conn)
	}
	return n, err
}

// readBuffered reads through the buffer, giving it back once drained when
// the connection has no deadlines to wake an idle reader.
func (r *Reader) readBuffered(p []byte) (int, error) {
	n, err := r.br.Read(p)
	if r.dl == nil && r.br.Buffered() == 0 {
		r.Release()
	}
	return n, err
}

// extend makes sure the read deadline lies at least Linger/2 ahead, moving
// it at most once per Linger/2 (a timer update, no system call).
func (r *Reader) extend() {
	now := time.Now()
	if time.Duration(r.until-now.UnixNano()) >= Linger/2 {
		return
	}
	until := now.Add(Linger)
	r.until = until.UnixNano()
	r.dl.SetReadDeadline(until)
}

// Buffered reports whether bytes were read and wait to be returned.
func (r *Reader) Buffered() bool {
	return len(r.pending) > 0 || (r.br != nil && r.br.Buffered() > 0)
}

// ErrIdle is Wait's answer for a connection idle for Linger.
var ErrIdle = errors.New("idlereader: idle")

// Wait returns nil once a byte can be read without waiting, ErrIdle when
// the connection stayed idle for Linger (the Reader then holds no
// buffer), or the connection's error. Call it between messages only (no
// partial message buffered). Without deadlines (see Fixed) it returns nil
// at once: Read waits.
func (r *Reader) Wait() error {
	if r.dl == nil || r.Buffered() {
		return nil
	}
	if r.br == nil {
		r.br = pool.Get().(*bufio.Reader)
		r.br.Reset(r.conn)
	}
	r.extend()
	_, err := r.br.Peek(1)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		if err != nil {
			r.Release()
		}
		return err
	}
	r.until = 0
	r.dl.SetReadDeadline(time.Time{})
	r.Release()
	return ErrIdle
}

// Idle reports whether nothing waits in the Reader, and then readies it
// for a wait of any length without a reader: it gives its buffer back and
// clears the read deadline it set, so that the next Read waits with a
// one-byte read. Call it between messages, before parking the connection
// (nobody reads until it is readable again).
func (r *Reader) Idle() bool {
	if r.Buffered() {
		return false
	}
	if r.until != 0 {
		r.until = 0
		r.dl.SetReadDeadline(time.Time{})
	}
	r.Release()
	return true
}

// Fixed stops the Reader from setting read deadlines: call it before
// setting one of your own on the connection (a close handshake's). The
// Reader then gives its buffer back whenever it is drained.
func (r *Reader) Fixed() {
	r.dl = nil
	r.until = 0
}

// Release returns the buffer to the pool if one is held and empty. Call it
// when the connection is done.
func (r *Reader) Release() {
	if r.br != nil && r.br.Buffered() == 0 {
		r.br.Reset(nil)
		pool.Put(r.br)
		r.br = nil
	}
}
