package rawsocket

import (
	"bufio"
	"net"
	"sync"
)

const readBufferSize = 4096

var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}

// idleReader is a buffered reader that holds a pooled buffer only while data
// is flowing: with its buffer empty it waits for the next byte with a
// one-byte read straight from the connection, so an idle connection holds no
// read buffer. Used by the connection's reader goroutine only.
type idleReader struct {
	conn net.Conn
	br   *bufio.Reader // nil while idle
}

func (r *idleReader) Read(p []byte) (int, error) {
	if r.br == nil {
		if len(p) == 0 {
			return 0, nil
		}
		n, err := r.conn.Read(p[:1])
		if n == 1 {
			r.br = readerPool.Get().(*bufio.Reader)
			r.br.Reset(r.conn)
		}
		return n, err
	}
	n, err := r.br.Read(p)
	if r.br.Buffered() == 0 {
		r.br.Reset(nil)
		readerPool.Put(r.br)
		r.br = nil
	}
	return n, err
}
