package web

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/junction-wamp/junction/internal/epoll"
)

// handoff is a connection a loop gives to h1: its descriptor, the bytes
// read and not consumed, and what counts it out.
type handoff struct {
	fd      int
	pending []byte
	release func()
}

// loopListener is what the loop engine's h1 server accepts from: the
// connections of the engine's listener that cannot leave Go's netpoller
// (TLS, those of a listener that wraps them), which it passes on as
// they are, and those the loops hand off. Its detach takes the others
// into the loops.
type loopListener struct {
	net.Listener
	e       *loopEngine
	accepts chan acceptResult
	done    chan struct{} // closed by Close
	once    sync.Once
}

type acceptResult struct {
	c   net.Conn
	err error
}

// newLoopListener starts accepting on l.
func newLoopListener(e *loopEngine, l net.Listener) *loopListener {
	ll := &loopListener{Listener: l, e: e, accepts: make(chan acceptResult), done: make(chan struct{})}
	e.accepting.Add(1)
	go ll.acceptLoop()
	return ll
}

// acceptLoop accepts on the listener, takes what it can into the loops
// and passes the rest, and the errors, to Accept, until Close.
func (l *loopListener) acceptLoop() {
	defer l.e.accepting.Done()
	for {
		c, err := l.Listener.Accept()
		if err == nil && l.e.take(l.Listener, c) {
			continue
		}
		select {
		case l.accepts <- acceptResult{c, err}:
		case <-l.done:
			if c != nil {
				_ = c.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

// Accept returns the next connection for h1: one the loops handed off,
// or one of the listener's that they could not take.
func (l *loopListener) Accept() (net.Conn, error) {
	for {
		select {
		case <-l.e.handoffs.ready:
			if c := l.e.handoffs.take(); c != nil {
				return c, nil
			}
		case r := <-l.accepts:
			return r.c, r.err
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
}

// Close closes the listener.
func (l *loopListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// handoffQueue holds the connections the loops handed off until h1
// accepts them: a loop never waits on h1. Safe for concurrent use.
type handoffQueue struct {
	mu    sync.Mutex
	queue []handoff     // mu guards
	ready chan struct{} // holds a token while queue may be non-empty
}

func newHandoffQueue() *handoffQueue {
	return &handoffQueue{ready: make(chan struct{}, 1)}
}

// put adds h.
func (q *handoffQueue) put(h handoff) {
	q.mu.Lock()
	q.queue = append(q.queue, h)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take makes a connection of the oldest hand-off, nil when there is none
// (or it failed: its descriptor is closed then).
func (q *handoffQueue) take() net.Conn {
	q.mu.Lock()
	if len(q.queue) == 0 {
		q.mu.Unlock()
		return nil
	}
	h := q.queue[0]
	q.queue[0] = handoff{}
	q.queue = q.queue[1:]
	if len(q.queue) > 0 {
		select {
		case q.ready <- struct{}{}:
		default:
		}
	}
	q.mu.Unlock()
	c, err := epoll.Conn(h.fd)
	if err != nil {
		releaseOf(h.release)()
		return nil
	}
	return &handoffConn{Conn: c, pending: h.pending, release: h.release}
}

// closeAll closes the connections no one accepted.
func (q *handoffQueue) closeAll() {
	q.mu.Lock()
	queue := q.queue
	q.queue = nil
	q.mu.Unlock()
	for _, h := range queue {
		releaseOf(h.release)()
		epoll.Close(h.fd)
	}
}

// releaseOf is release, or a function that does nothing.
func releaseOf(release func()) func() {
	if release == nil {
		return func() {}
	}
	return release
}

// handoffConn is a connection a loop handed to h1: Read gives the bytes
// the loop read and did not consume first; Close counts the connection
// out of its listener's caps (once). The optional methods of the
// connections h1 gets from its listener (those of connlimit's) are kept.
type handoffConn struct {
	net.Conn
	pending []byte
	release func()
	once    sync.Once
}

func (c *handoffConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// Close counts the connection out, then closes it (as connlimit's
// connections do): a client that has seen the close finds its slot free.
func (c *handoffConn) Close() error {
	c.once.Do(releaseOf(c.release))
	return c.Conn.Close()
}

// ReadFrom keeps the connection's sendfile and splice.
func (c *handoffConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// WriteTo gives the pending bytes, then the connection's splice.
func (c *handoffConn) WriteTo(w io.Writer) (int64, error) {
	var n int64
	if len(c.pending) > 0 {
		k, err := w.Write(c.pending)
		n += int64(k)
		c.pending = c.pending[k:]
		if err != nil {
			return n, err
		}
	}
	var k int64
	var err error
	if wt, ok := c.Conn.(io.WriterTo); ok {
		k, err = wt.WriteTo(w)
	} else {
		k, err = io.Copy(w, struct{ io.Reader }{c.Conn})
	}
	return n + k, err
}

// halfCloser is the half-close of *net.TCPConn and *net.UnixConn.
type halfCloser interface {
	CloseWrite() error
	CloseRead() error
}

func (c *handoffConn) CloseWrite() error {
	if h, ok := c.Conn.(halfCloser); ok {
		return h.CloseWrite()
	}
	return errors.ErrUnsupported
}

func (c *handoffConn) CloseRead() error {
	if h, ok := c.Conn.(halfCloser); ok {
		return h.CloseRead()
	}
	return errors.ErrUnsupported
}

// SyscallConn gives the raw socket for writes (the outbox's), once no
// pending byte is left to be read first; errors.ErrUnsupported before.
func (c *handoffConn) SyscallConn() (syscall.RawConn, error) {
	if len(c.pending) > 0 {
		return nil, fmt.Errorf("web: connection has bytes to read first: %w", errors.ErrUnsupported)
	}
	return c.Conn.(syscall.Conn).SyscallConn()
}

var (
	_ io.ReaderFrom = (*handoffConn)(nil)
	_ io.WriterTo   = (*handoffConn)(nil)
	_ syscall.Conn  = (*handoffConn)(nil)
)
