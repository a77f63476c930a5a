package outbox

import (
	"bufio"
	"slices"
	"sync"
)

// kindRaw is the kind of a frame queued by writeDirect: bytes already
// framed that the socket did not take, written as they are. Transports use
// small kinds (WebSocket opcodes, RawSocket frame types), never this one.
const kindRaw uint8 = 0xff

// writeDirect writes f on the caller's goroutine, which took the writing
// turn in Queue (o.writing set, o.writers counted), through a write that
// never waits for the socket: what the socket does not take at once is
// queued in front of what other senders queued meanwhile, and the writer
// goroutine takes over. A message to a peer that reads as fast as it is
// written then costs one write system call and no goroutine hand-off (at
// one call in flight, the goroutine started per message cost about two
// futex calls, waking an idle thread and putting it back to sleep).
func (o *Outbox) writeDirect(f Frame) {
	d := directPool.Get().(*directWriter)
	d.nb.raw = o.raw
	err := o.write(d.bw, f)
	if err == nil {
		err = d.bw.Flush()
	}
	rest := d.nb.rest
	d.reset()
	directPool.Put(d)
	if err != nil {
		o.fail(err)
		o.writers.Done()
		return
	}
	o.mu.Lock()
	if len(rest) > 0 {
		o.queue = slices.Insert(o.queue, 0, Frame{Kind: kindRaw, Data: rest})
		o.bytes += len(rest)
	}
	if len(o.queue) > 0 || len(o.flushed) > 0 {
		o.mu.Unlock()
		go o.run() // takes over the writing turn
		return
	}
	o.writing = false
	o.mu.Unlock()
	o.writers.Done()
}

// writeFrame writes f into bw: a raw frame as it is, any other with the
// transport's framing.
func (o *Outbox) writeFrame(bw *bufio.Writer, f Frame) error {
	if f.Kind == kindRaw {
		_, err := bw.Write(f.Data)
		return err
	}
	return o.write(bw, f)
}

// directWriter is what a direct write needs: a buffered writer in front
// of a nonblockingWriter, pooled so that an idle outbox holds neither.
type directWriter struct {
	bw *bufio.Writer
	nb nonblockingWriter
}

var directPool = sync.Pool{New: func() any {
	d := &directWriter{}
	d.nb.init()
	d.bw = bufio.NewWriterSize(&d.nb, bufferSize)
	return d
}}

// reset readies d for the pool: no connection, nothing kept.
func (d *directWriter) reset() {
	d.nb.raw, d.nb.rest = nil, nil
	d.bw.Reset(&d.nb)
}
