// Package pipenet is a net.Listener whose connections are in-memory pipes
// (net.Pipe), for tests: a server on it runs inside a synctest bubble
// (fake time for its deadlines), and the read and write deadlines set on
// the server's ends are counted.
package pipenet

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Listener hands its server the ends of the pipes Dial makes.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	// ReadDeadlines and WriteDeadlines count the deadlines set on the
	// server's ends.
	ReadDeadlines, WriteDeadlines atomic.Int64
}

// New returns a listener; make it inside the bubble of the test that
// serves on it.
func New() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept returns the server's end of the next pipe Dial makes.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close ends Accept; the pipes made stay open.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is a loopback address, as a server's listener has.
func (l *Listener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// Dial connects a client to the server, once it accepts; it returns the
// client's end.
func (l *Listener) Dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- &countingConn{Conn: server, l: l}
	return client
}

// countingConn counts the deadlines set on it in its listener.
type countingConn struct {
	net.Conn
	l *Listener
}

func (c *countingConn) SetReadDeadline(t time.Time) error {
	c.l.ReadDeadlines.Add(1)
	return c.Conn.SetReadDeadline(t)
}

func (c *countingConn) SetWriteDeadline(t time.Time) error {
	c.l.WriteDeadlines.Add(1)
	return c.Conn.SetWriteDeadline(t)
}
