package h1

import (
	"bufio"
	"io"
	"math"
	"sync/atomic"
	"time"
)

// connReader is what the connection's bufio.Reader reads from: the
// connection, with a limit while a request head is read (past it, io.EOF
// and hit, for 431), the byte the watcher read first, a copy of the
// bytes read while a head is (for the Host fields http.ReadRequest drops),
// and the body timeout of the reads made for a request body.
type connReader struct {
	c       *conn
	remain  int64
	hit     bool
	hasByte bool // byteBuf holds a byte the watcher read
	byteBuf [1]byte
	record  bool
	head    []byte

	// inBody is set while the request's body may be read from the
	// connection (by the handler, on any goroutine, or by the engine
	// discarding what it left): each such read from the connection sets
	// the read deadline to the body timeout from now, so that only a
	// client that sends nothing for that long is cut, and a body that has
	// arrived with its head costs no deadline at all. Without a body
	// timeout, the first such read clears the deadline (the head's).
	inBody   atomic.Bool
	cleared  bool // the deadline was cleared for this body (no body timeout); read under the body's lock
	bodyIdle time.Duration
}

func (r *connReader) limit(n int64) { r.remain, r.hit = n, false }

func (r *connReader) unlimit() { r.remain = math.MaxInt64 }

// startHead begins recording a head: what br holds already, then every
// byte read until endHead.
func (r *connReader) startHead(br *bufio.Reader) {
	buffered, _ := br.Peek(br.Buffered())
	r.head = append(r.head[:0], buffered...)
	r.record = true
}

// endHead returns the bytes recorded since startHead (the head, and what
// followed it in the same reads); valid until the next startHead.
func (r *connReader) endHead() []byte {
	r.record = false
	if cap(r.head) > 64<<10 {
		h := r.head
		r.head = nil // do not keep a huge head's buffer
		return h
	}
	return r.head
}

func (r *connReader) Read(p []byte) (int, error) {
	if r.remain <= 0 {
		r.hit = true
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > r.remain {
		p = p[:r.remain]
	}
	if r.hasByte {
		r.hasByte = false
		p[0] = r.byteBuf[0]
		r.remain--
		r.keep(p[:1])
		return 1, nil
	}
	if r.inBody.Load() {
		r.bodyDeadline()
	}
	n, err := r.c.rwc.Read(p)
	r.remain -= int64(n)
	r.keep(p[:n])
	return n, err
}

// beginBody starts the body reads of a request.
func (r *connReader) beginBody() {
	r.cleared = false
	r.inBody.Store(true)
}

// endBody ends them: the connection's reads are the engine's again.
func (r *connReader) endBody() { r.inBody.Store(false) }

// bodyDeadline sets the read deadline of a read for the request body.
func (r *connReader) bodyDeadline() {
	if r.bodyIdle > 0 {
		r.c.rdeadline.Store(true)
		_ = r.c.rwc.SetReadDeadline(time.Now().Add(r.bodyIdle))
		return
	}
	if !r.cleared {
		r.cleared = true
		r.c.rdeadline.Store(true)
		_ = r.c.rwc.SetReadDeadline(time.Time{})
	}
}

func (r *connReader) keep(b []byte) {
	if r.record {
		r.head = append(r.head, b...)
	}
}
