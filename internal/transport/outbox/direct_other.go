//go:build !unix

package outbox

import (
	"net"
	"syscall"
)

// rawConn returns nil: writing without waiting is built for Unix systems
// only, so elsewhere every frame goes through the writer goroutine.
func rawConn(net.Conn) syscall.RawConn { return nil }

// nonblockingWriter keeps everything for the writer goroutine (it is not
// used where rawConn returns nil).
type nonblockingWriter struct {
	raw  syscall.RawConn
	rest []byte
}

func (w *nonblockingWriter) init() {}

func (w *nonblockingWriter) Write(p []byte) (int, error) {
	w.rest = append(w.rest, p...)
	return len(p), nil
}
