package bridge

import "sync/atomic"

// DefaultBodyBufferLimit is the bound of a BodyBuffer made with 0, and of
// a service without one: room for two webhook bodies at their default
// limit (25 MiB) and many small calls, while a flood of large bodies
// holds at most this much of the node's memory in request buffers.
const DefaultBodyBufferLimit = 64 << 20

// BodyBuffer bounds the request-body bytes that services hold at once,
// all requests together: each request reserves the capacity of its
// buffer before it is allocated (a declared Content-Length at once, a
// chunked body as it grows), grows it to the estimated memory of a JSON
// body's decoded value (Caller, Publisher; wamp.DictSize) once decoded if
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

// fits reports whether n bytes could ever be reserved.
func (b *BodyBuffer) fits(n int64) bool { return b.max < 0 || n <= b.max }

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
