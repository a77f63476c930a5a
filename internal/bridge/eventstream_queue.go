package bridge

import (
	"net/http"
	"sync"
	"time"
)

// streamQueue is one client's queue of encoded events, between the
// session's event dispatch (push, which never blocks) and the request's
// goroutine, which writes them (take). Bounded by events and bytes: a push
// past either bound marks the client slow, and the queue is closed
// (NATS's slow consumer policy: the client loses its stream, not its
// events silently). Safe for concurrent use.
type streamQueue struct {
	maxEvents int
	maxBytes  int64
	ready     chan struct{} // capacity 1: signalled after a push
	slow      chan struct{} // closed when a push found the queue full
	rc        *http.ResponseController

	mu     sync.Mutex // guards the fields below
	frames [][]byte   // queued frames, shared between clients: never modified
	spare  [][]byte   // the writer's last batch, reused
	bytes  int64      // the bytes of frames
	full   bool       // slow is closed
	ended  bool       // the request is over: rc must not be used
}

func newStreamQueue(rc *http.ResponseController, maxEvents int, maxBytes int64) *streamQueue {
	return &streamQueue{maxEvents: maxEvents, maxBytes: maxBytes, rc: rc,
		ready: make(chan struct{}, 1), slow: make(chan struct{})}
}

// push queues frame. It returns false the first time the queue cannot
// hold it: the queue is then closed, and a write in progress is cut short
// (its deadline set to now), so that the writer notices at once. Later
// pushes are dropped: the stream is ending.
func (q *streamQueue) push(frame []byte) (ok bool, queued int64) {
	q.mu.Lock()
	if q.full || q.ended {
		q.mu.Unlock()
		return true, 0
	}
	if len(q.frames) >= q.maxEvents || q.bytes+int64(len(frame)) > q.maxBytes {
		q.full = true
		queued = q.bytes
		close(q.slow)
		_ = q.rc.SetWriteDeadline(time.Now())
		q.mu.Unlock()
		return false, queued
	}
	q.frames = append(q.frames, frame)
	q.bytes += int64(len(frame))
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true, 0
}

// take returns the queued frames, oldest first; the batch is valid until
// the next take.
func (q *streamQueue) take() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	clear(q.spare)
	batch := q.frames
	q.frames, q.spare, q.bytes = q.spare[:0], batch, 0
	return batch
}

// arm sets the deadline of the next write, unless the queue was found
// full (whose deadline, now, must stand).
func (q *streamQueue) arm(timeout time.Duration) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.full {
		return false
	}
	_ = q.rc.SetWriteDeadline(time.Now().Add(timeout))
	return true
}

// end marks the request over: pushes are dropped from now on and the
// response is left alone. It returns the frames still queued.
func (q *streamQueue) end() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = true
	n := len(q.frames)
	q.frames, q.spare, q.bytes = nil, nil, 0
	return n
}
