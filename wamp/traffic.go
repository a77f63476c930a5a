package wamp

import "sync/atomic"

// DefaultRatedSize is the size of a rated message until SetRatedSize says
// otherwise: Crossbar's default "rated_message_size".
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
const DefaultRatedSize = 512

// Traffic counts the WAMP messages a peer reads and writes, both ways
// together, their bytes and their rated messages: a message of n bytes
// counts ceil(n / rated size), at least one, as Crossbar rates them.
// Transports that see frames keep one per connection and offer it through
// Metered: the reader counts what it decodes (Count), Send what it queues
// (Add), and the writer checks the watch after each write (Check). Safe for concurrent use (atomics only); the zero value counts
// with DefaultRatedSize. Methods on a nil *Traffic do nothing.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Traffic struct {
	messages, bytes, rated atomic.Uint64
	size                   atomic.Uint64 // rated message size; 0: DefaultRatedSize
	watch                  atomic.Pointer[TrafficWatch]
}

// TrafficCount is what a Traffic counted.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type TrafficCount struct{ Messages, Bytes, Rated uint64 }

// Metered is an optional capability of a Peer that counts its traffic.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Metered interface {
	Traffic() *Traffic
}

// TrafficWatch calls Fn once, from Count or Check, when the rated
// messages have reached At. Fn must not block.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type TrafficWatch struct {
	At    uint64
	Fn    func()
	fired atomic.Bool
}

// Count adds one message of n bytes and fires the watch if it is due: for
// a goroutine that holds no lock, such as a connection's reader.
func (t *Traffic) Count(n int) {
	t.Add(n)
	t.Check()
}

// Add adds one message of n bytes without firing the watch: for senders,
// which may hold a router lock; the connection's writer calls Check.
func (t *Traffic) Add(n int) {
	if t == nil {
		return
	}
	t.messages.Add(1)
	t.bytes.Add(uint64(n))
	t.rated.Add(rated(uint64(n), t.size.Load()))
}

// Check fires the watch once the rated messages have reached it.
func (t *Traffic) Check() {
	if t == nil {
		return
	}
	w := t.watch.Load()
	if w != nil && t.rated.Load() >= w.At && w.fired.CompareAndSwap(false, true) {
		w.Fn()
	}
}

// Due reports whether Check would fire the watch now: for a sender that
// must not call Check itself (it may hold a router lock) to hand it over.
func (t *Traffic) Due() bool {
	if t == nil {
		return false
	}
	w := t.watch.Load()
	return w != nil && t.rated.Load() >= w.At && !w.fired.Load()
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
