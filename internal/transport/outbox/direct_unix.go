//go:build unix

package outbox

import (
	"net"
	"os"
	"syscall"
)

// rawConn returns conn's raw connection when it has one (a plain TCP or
// Unix socket; a TLS connection has none: its bytes must be encrypted),
// nil otherwise.
func rawConn(conn net.Conn) syscall.RawConn {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// nonblockingWriter writes into a socket without ever waiting: what the
// socket does not take at once is kept in rest, and so is everything
// written after it, for the writer goroutine to write in order.
type nonblockingWriter struct {
	raw  syscall.RawConn
	rest []byte
	// The write system call's argument and results, and the function
	// RawConn.Write calls (made once: a closure would be allocated per
	// write).
	p   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

func (w *nonblockingWriter) init() { w.fn = w.writeFD }

// writeFD writes w.p into fd once; it never asks RawConn.Write to wait.
func (w *nonblockingWriter) writeFD(fd uintptr) bool {
	w.n, w.err = syscall.Write(int(fd), w.p)
	return true
}

// Write takes all of p (keeping in rest what the socket did not take) or
// returns the error that broke the connection.
func (w *nonblockingWriter) Write(p []byte) (int, error) {
	if len(w.rest) > 0 {
		w.rest = append(w.rest, p...)
		return len(p), nil
	}
	w.p = p
	err := w.raw.Write(w.fn)
	n, werr := w.n, w.err
	w.p, w.err = nil, nil
	switch {
	case err != nil:
		return 0, err
	case werr == syscall.EAGAIN || werr == syscall.EINTR:
		n = 0
	case werr != nil:
		return 0, os.NewSyscallError("write", werr)
	}
	if n < len(p) {
		w.rest = append([]byte(nil), p[n:]...)
	}
	return len(p), nil
}
