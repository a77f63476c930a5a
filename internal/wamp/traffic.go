package wamp

import "sync/atomic"

// DefaultRatedSize is the size of a rated message until SetRatedSize says
// otherwise: Crossbar's default "rated_message_size".
const DefaultRatedSize = 512

// Traffic counts the WAMP messages a peer reads and writes, both ways
// together, their bytes and their rated messages: a message of n bytes
// counts ceil(n / rated size), at least one, as Crossbar rates them.
// Transports that see frames keep one per connection and offer it through
// Metered; the reader goroutine counts what it decodes, the writer what it
// writes. Safe for concurrent use (atomics only); the zero value counts
// with DefaultRatedSize. Methods on a nil *Traffic do nothing.
type Traffic struct {
	messages, bytes, rated atomic.Uint64
	size                   atomic.Uint64 // rated message size; 0: DefaultRatedSize
	watch                  atomic.Pointer[TrafficWatch]
}

// TrafficCount is what a Traffic counted.
type TrafficCount struct{ Messages, Bytes, Rated uint64 }

// Metered is an optional capability of a Peer that counts its traffic.
type Metered interface {
	Traffic() *Traffic
}

// TrafficWatch calls Fn once, on the goroutine that counts the message
// that brings the rated messages to At or more. Fn must not block.
type TrafficWatch struct {
	At    uint64
	Fn    func()
	fired atomic.Bool
}

// Count adds one message of n bytes.
func (t *Traffic) Count(n int) {
	if t == nil {
		return
	}
	t.messages.Add(1)
	t.bytes.Add(uint64(n))
	r := t.rated.Add(rated(uint64(n), t.size.Load()))
	if w := t.watch.Load(); w != nil && r >= w.At && w.fired.CompareAndSwap(false, true) {
		w.Fn()
	}
}

func rated(n, size uint64) uint64 {
	if size == 0 {
		size = DefaultRatedSize
	}
	return max(1, (n+size-1)/size)
}

// Load returns what was counted so far (zero for nil).
func (t *Traffic) Load() TrafficCount {
	if t == nil {
		return TrafficCount{}
	}
	return TrafficCount{Messages: t.messages.Load(), Bytes: t.bytes.Load(), Rated: t.rated.Load()}
}

// SetRatedSize sets the size of a rated message for the messages counted
// from now on; n <= 0 means DefaultRatedSize.
func (t *Traffic) SetRatedSize(n int) {
	if t != nil {
		t.size.Store(uint64(max(n, 0)))
	}
}

// Watch replaces the watch (nil: none).
func (t *Traffic) Watch(w *TrafficWatch) {
	if t != nil {
		t.watch.Store(w)
	}
}
