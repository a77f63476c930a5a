package bridge

import (
	"net/http"
	"sync/atomic"
)

// DefaultBodyBufferLimit is the bound of a BodyBuffer made with 0, and of
// a service without one: room for two webhook bodies at their default
// limit (25 MiB) and many small calls, while a flood of large bodies
// holds at most this much of the node's memory in request buffers.
const DefaultBodyBufferLimit = 64 << 20

// BodyBuffer bounds the request-body bytes that services hold at once,
// all requests together: each request reserves the capacity of its
// buffer before it is allocated (a declared Content-Length at once, a
// chunked body as it grows), grows it to the estimated memory of a JSON
// body's decoded value (Caller, Publisher; wamp.ObjectSize) once decoded if
// that is more, and gives it back when it is answered. A
// request that does not fit now is answered 503 with Retry-After, never
// made to wait; one that could never fit (larger than the whole bound) is
// answered 413. One BodyBuffer is shared by the services of a web
// transport. Safe for concurrent use: a reservation is one atomic
// compare-and-swap.
type BodyBuffer struct {
	max  int64 // < 0: no bound
	used atomic.Int64
}

// NewBodyBuffer returns a bound of max bytes; 0 means
// DefaultBodyBufferLimit, negative means no bound.
func NewBodyBuffer(max int64) *BodyBuffer {
	if max == 0 {
		max = DefaultBodyBufferLimit
	}
	return &BodyBuffer{max: max}
}

// Limit returns the bound in bytes, negative for none.
func (b *BodyBuffer) Limit() int64 { return b.max }

// InUse returns the bytes reserved now.
func (b *BodyBuffer) InUse() int64 { return b.used.Load() }

// hold grows a request's reservation of *held bytes to n, if n is more:
// 413, its text tooLarge given n and the bound, if n could never fit; 503
// if it does not fit now, *held then unchanged.
func (b *BodyBuffer) hold(held *int64, n int64, tooLarge string) error {
	more := n - *held
	if more <= 0 {
		return nil
	}
	if b.max >= 0 && n > b.max {
		return refuse(http.StatusRequestEntityTooLarge, tooLarge, n, b.max)
	}
	if !b.reserve(more) {
		return refuse(http.StatusServiceUnavailable, textBusy)
	}
	*held = n
	return nil
}

// reserve takes n bytes if they fit now.
func (b *BodyBuffer) reserve(n int64) bool {
	for {
		cur := b.used.Load()
		if b.max >= 0 && cur+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// release gives n reserved bytes back.
func (b *BodyBuffer) release(n int64) { b.used.Add(-n) }
