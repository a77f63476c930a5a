// Package outbox is the bounded outbound queue shared by the stream
// transports (WebSocket, RawSocket). Send encodes on the caller's goroutine
// and queues the frame; a writer goroutine, started only while the queue is
// non-empty, writes every queued frame into one buffered writer and flushes
// once per batch. With SendNow, when nothing is queued or being written
// and the connection is a plain socket, the sender writes the frame itself
// with a write that never waits, and queues only what the socket did not
// take (see writeDirect): a message then costs no goroutine hand-off. A peer
// whose queue passes its limits (messages or bytes) is closed as a slow
// consumer: nothing is dropped silently and Send never blocks.
package outbox

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// Defaults for a zero Options.
const (
	DefaultMaxMessages  = 4096
	DefaultMaxBytes     = 16 << 20
	DefaultCloseTimeout = 2 * time.Second
	bufferSize          = 4096
)

// Options bounds the queue. Zero values mean the defaults.
type Options struct {
	MaxMessages  int           // queued frames before slow-consumer close; default 4096
	MaxBytes     int           // queued bytes before slow-consumer close; default 16 MiB
	CloseTimeout time.Duration // time Close gives queued frames to flush; default 2 s
	// Traffic, when set by the transport, counts each message Send queues
	// (its encoded size, before any compression), and the writer checks
	// its watch after each batch; nil counts nothing.
	Traffic *wamp.Traffic
}

func (o Options) withDefaults() Options {
	if o.MaxMessages <= 0 {
		o.MaxMessages = DefaultMaxMessages
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	return o
}

// Frame is one queued frame. Kind is the transport's own frame kind (data,
// ping, pong, close) and is handed back to the WriteFunc unchanged; Data must
// not be modified once queued (it may be shared between peers).
type Frame struct {
	Kind uint8
	Data []byte
}

// KindData is the kind of frames queued by Send.
const KindData uint8 = 0

// WriteFunc writes one frame, with the transport's framing, into w. It runs
// one call at a time, on the writer goroutine or on a sender's that writes
// directly (see writeDirect), never concurrently with itself.
type WriteFunc func(w *bufio.Writer, f Frame) error

// EncodeFunc turns a message into a data frame's payload.
type EncodeFunc func(m wamp.Message) ([]byte, error)

// Outbox is a bounded outbound queue in front of a net.Conn. All methods are
// safe for concurrent use.
type Outbox struct {
	conn   net.Conn
	encode EncodeFunc
	write  WriteFunc
	opts   Options

	mu      sync.Mutex // guards the fields below
	queue   []Frame
	spare   []Frame // the previous batch, reused by the next swap
	bytes   int
	err     error // why the outbox closed; nil while open
	bw      *bufio.Writer
	flushed []func() // AfterFlush callbacks for the frames queued so far

	// raw, when the connection has one (a plain TCP or Unix socket on a
	// Unix system), lets a sender write without waiting (see writeDirect);
	// nil otherwise. Immutable.
	raw syscall.RawConn

	writers   sync.WaitGroup
	closeOnce sync.Once
	// writing: a writer goroutine is running, or a sender writes directly.
	// Guarded by mu; here, in closeOnce's padding, the Outbox fits a
	// smaller size class (224 bytes, was 240).
	writing bool
}

// ErrEncode wraps errors from the encode function: the message was not
// queued and the connection stays open.
var ErrEncode = errors.New("outbox: encode")

var writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufferSize) }}

// New returns an outbox writing to conn. bw, if not nil, is the buffered
// writer to use (one already held for the connection, such as the one net/http
// hands over on hijack); otherwise writers come from a pool while frames are
// being written, so an idle connection holds no write buffer.
func New(conn net.Conn, bw *bufio.Writer, encode EncodeFunc, write WriteFunc, opts Options) *Outbox {
	return &Outbox{conn: conn, bw: bw, encode: encode, write: write, opts: opts.withDefaults(), raw: rawConn(conn)}
}

// Send encodes m on the caller's goroutine and queues it as a data frame.
// It returns wamp.ErrSlowConsumer (and closes the connection) when the queue
// is past its limits, wamp.ErrClosed once the outbox is closed, and an error
// wrapping ErrEncode, leaving the outbox open, when m does not encode.
func (o *Outbox) Send(m wamp.Message) error { return o.send(m, false) }

// SendNow is Send for a sender that has nothing more to send soon (see
// wamp.NowSender): when nothing is queued or being written it writes the
// frame itself, without waiting (see writeDirect). A sender in a burst
// calls Send, so that its frames go out in batches.
func (o *Outbox) SendNow(m wamp.Message) error { return o.send(m, true) }

func (o *Outbox) send(m wamp.Message, now bool) error {
	if o.Closed() {
		return wamp.ErrClosed
	}
	b, err := o.encode(m)
	if err != nil {
		return errors.Join(ErrEncode, err)
	}
	if err := o.queueFrame(Frame{Kind: KindData, Data: b}, now); err != nil {
		return err
	}
	o.opts.Traffic.Add(len(b))
	if now && o.opts.Traffic.Due() {
		// The writer checks after its batch, but a frame written directly
		// has none; Check may call into the router, and the sender may
		// hold its locks.
		go o.opts.Traffic.Check()
	}
	return nil
}

// Queue queues one frame, under the same limits as Send: the transports use
// it for control frames (pong, ping).
func (o *Outbox) Queue(f Frame) error { return o.queueFrame(f, false) }

// queueFrame queues f, or with now writes it directly if it can.
func (o *Outbox) queueFrame(f Frame, now bool) error {
	o.mu.Lock()
	if o.err != nil {
		o.mu.Unlock()
		return wamp.ErrClosed
	}
	if len(o.queue) >= o.opts.MaxMessages || (o.bytes > 0 && o.bytes+len(f.Data) > o.opts.MaxBytes) {
		o.err = wamp.ErrSlowConsumer
		full := &wamp.SlowConsumerError{QueuedMessages: len(o.queue), QueuedBytes: o.bytes}
		o.mu.Unlock()
		o.conn.Close()
		return full
	}
	if now && !o.writing && o.raw != nil {
		o.writing = true
		o.writers.Add(1)
		o.mu.Unlock()
		o.writeDirect(f)
		return nil
	}
	start := o.pushLocked(f)
	o.mu.Unlock()
	if start {
		go o.run()
	}
	return nil
}

// pushLocked appends f and reports whether a writer must be started.
// o.mu must be held and o.err nil.
func (o *Outbox) pushLocked(f Frame) bool {
	o.queue = append(o.queue, f)
	o.bytes += len(f.Data)
	if o.writing {
		return false
	}
	o.writing = true
	o.writers.Add(1)
	return true
}

// AfterFlush calls fn once every frame queued before the call has been
// written and flushed to the connection, so that what fn queues goes out
// in a later write: a client then reads it after what was queued before.
// fn runs on the writer goroutine, or at once on the caller's when nothing
// is waiting to be written; it must not block (Send and Queue do not). It
// is never called if the outbox closes first.
func (o *Outbox) AfterFlush(fn func()) {
	o.mu.Lock()
	if o.err != nil {
		o.mu.Unlock()
		return
	}
	if !o.writing {
		o.mu.Unlock()
		fn()
		return
	}
	o.flushed = append(o.flushed, fn)
	o.mu.Unlock()
}

// Closed reports whether the outbox is closed (by Close, a slow consumer or
// a write error).
func (o *Outbox) Closed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err != nil
}

// Err returns why the outbox closed: nil while open, wamp.ErrClosed after
// Close, wamp.ErrSlowConsumer, or the write error that broke the connection.
func (o *Outbox) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// Close flushes what is queued, giving it CloseTimeout, and closes the
// connection. Safe to call more than once and concurrently.
func (o *Outbox) Close() error { return o.CloseWith(nil) }

// CloseWith is Close that first queues final (a WebSocket close frame),
// ignoring the limits. final is not sent if the outbox is already closed.
func (o *Outbox) CloseWith(final *Frame) error {
	o.closeOnce.Do(func() {
		o.mu.Lock()
		start := false
		if o.err == nil {
			if final != nil {
				start = o.pushLocked(*final)
			}
			o.err = wamp.ErrClosed
		}
		o.mu.Unlock()
		if start {
			go o.run()
		}
		o.conn.SetWriteDeadline(time.Now().Add(o.opts.CloseTimeout))
		o.writers.Wait()
		o.conn.Close()
	})
	return nil
}
