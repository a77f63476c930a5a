// Package idlereader is a buffered reader for a connection that holds a
// pooled buffer only while data is flowing, so that an idle connection
// holds no read buffer: with its buffer drained it waits for the next byte
// with a one-byte read straight from the connection, then takes a buffer
// from the pool for the rest of the burst. It costs one extra read call per
// burst and saves the buffer's size per idle connection (10,000 idle WAMP
// sessions must fit in about 100 MiB).
package idlereader

import (
	"bufio"
	"io"
	"sync"
)

// BufferSize is the size of the pooled buffers.
const BufferSize = 4096

var pool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, BufferSize) }}

// Reader reads from a connection through a pooled buffer held only while
// data is arriving. It is used by one goroutine (the connection's reader).
type Reader struct {
	conn    io.Reader
	pending []byte        // bytes received before the Reader took over
	br      *bufio.Reader // nil while idle
}

// New returns a Reader for conn that first returns pending: the bytes
// another reader had already buffered (net/http's, after a hijack). It
// keeps its own copy of pending.
func New(conn io.Reader, pending []byte) *Reader {
	r := &Reader{conn: conn}
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
	if r.br == nil {
		n, err := r.conn.Read(p[:1])
		if n == 1 {
			r.br = pool.Get().(*bufio.Reader)
			r.br.Reset(r.conn)
		}
		return n, err
	}
	n, err := r.br.Read(p)
	if r.br.Buffered() == 0 {
		r.Release()
	}
	return n, err
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
