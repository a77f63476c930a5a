package outbox

import (
	"bufio"
	"fmt"
	"runtime"
)

// maxSpare is the largest batch slice kept for reuse, so that a burst does
// not pin a large array to an idle connection.
const maxSpare = 256

// run is the writer goroutine: it drains the queue batch by batch, one flush
// per batch, and exits when the queue is empty or a write fails.
//
// Before each batch it yields once, so that goroutines already runnable
// (callers producing the next messages) can queue them first: under load a
// batch then carries several frames for one write system call instead of
// one each (in the HTTP Caller benchmark, one WebSocket write per 10-20
// calls); RPC throughput rose by about 30 % and small fan-outs by 20-30 %
// (see docs/BENCHMARKS.md). With nothing else runnable the yield returns
// at once.
func (o *Outbox) run() {
	defer o.writers.Done()
	bw := o.acquireWriter()
	defer o.releaseWriter(bw)
	for {
		runtime.Gosched()
		batch, flushed, ok := o.take()
		if !ok {
			return
		}
		n, err := o.writeBatch(bw, batch)
		o.recycle(batch, n)
		if err != nil {
			o.fail(err)
			return
		}
		for _, fn := range flushed {
			fn()
		}
		o.opts.Traffic.Check() // no lock held here, unlike in Send
	}
}

// take swaps out the queued frames and the AfterFlush callbacks that wait
// for them (or, with no frame queued, for the batch just written), or
// marks the writer stopped and returns false when there are neither.
func (o *Outbox) take() ([]Frame, []func(), bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.queue) == 0 && len(o.flushed) == 0 {
		o.writing = false
		return nil, nil, false
	}
	batch, flushed := o.queue, o.flushed
	o.queue, o.spare, o.flushed = o.spare[:0], nil, nil
	if o.err != nil {
		flushed = nil // closed first: never called
	}
	return batch, flushed, true
}

func (o *Outbox) writeBatch(bw *bufio.Writer, batch []Frame) (int, error) {
	n := 0
	for _, f := range batch {
		n += len(f.Data)
		if err := o.writeFrame(bw, f); err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// recycle accounts for n written bytes and keeps batch for reuse.
func (o *Outbox) recycle(batch []Frame, n int) {
	clear(batch)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bytes -= n
	if cap(batch) <= maxSpare {
		o.spare = batch[:0]
	}
}

// fail closes the connection after a write error; later Sends return
// wamp.ErrClosed.
func (o *Outbox) fail(err error) {
	o.mu.Lock()
	if o.err == nil {
		o.err = fmt.Errorf("outbox: write: %w", err)
	}
	o.writing = false
	o.mu.Unlock()
	o.conn.Close()
}

func (o *Outbox) acquireWriter() *bufio.Writer {
	if o.bw != nil {
		return o.bw
	}
	bw := writerPool.Get().(*bufio.Writer)
	bw.Reset(o.conn)
	return bw
}

func (o *Outbox) releaseWriter(bw *bufio.Writer) {
	if bw == o.bw {
		return
	}
	bw.Reset(nil)
	writerPool.Put(bw)
}
