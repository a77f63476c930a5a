package websocket

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// lingerConn is the connection as the outbox sees it. With a close
// handshake timeout, closing it after our close frame was written leaves the
// TCP connection open for the peer's answering close frame: closing at once
// could reset the connection under data the peer is still sending, and the
// reset can destroy our close frame before the peer reads it (RFC 6455
// section 7.1.1 has the server close TCP after both close frames). The
// connection is then closed when the peer's close frame or the stream's
// end arrives (closeNow, from awaitClose), or by a timer after the timeout.
type lingerConn struct {
	net.Conn
	wait      time.Duration
	closeSent atomic.Bool // our close frame was written (on the outbox's writer)
	closeRecv atomic.Bool // the peer's close frame arrived
	closed    atomic.Bool // closeNow ran
	timer     atomic.Pointer[time.Timer]
	once      sync.Once
}

// Close closes the connection, or, after our close frame with a close
// handshake timeout, arms the timer that closes it.
func (c *lingerConn) Close() error {
	if c.wait <= 0 || !c.closeSent.Load() || c.closeRecv.Load() {
		c.closeNow()
		return nil
	}
	t := time.AfterFunc(c.wait, c.closeNow)
	if !c.timer.CompareAndSwap(nil, t) {
		t.Stop()
	}
	return nil
}

// closeNow closes the TCP connection (once).
func (c *lingerConn) closeNow() {
	c.once.Do(func() {
		c.closed.Store(true)
		if t := c.timer.Load(); t != nil {
			t.Stop()
		}
		c.Conn.Close()
	})
}

// lingering reports whether the connection waits for the peer's close
// frame.
func (c *lingerConn) lingering() bool {
	return c.wait > 0 && c.closeSent.Load() && !c.closeRecv.Load() && !c.closed.Load()
}

// awaitClose ends a server connection once its session is over: while it
// lingers (see lingerConn), it reads until the peer's close frame or the
// stream's end, for at most the timeout, discarding what comes (data the
// peer sent before it saw our close frame); then it closes the TCP
// connection. After a framing error the stream cannot be parsed any more,
// so it discards bytes until the peer closes or the timeout. It must run
// only when nothing else reads: after Attach has returned.
func (p *Peer) awaitClose() {
	if p.conn.lingering() {
		if r, ok := p.rd.(interface{ Fixed() }); ok {
			r.Fixed() // the deadline below is ours now (idlereader)
		}
		p.conn.SetReadDeadline(time.Now().Add(p.conn.wait))
		if p.desync.Load() {
			io.Copy(io.Discard, p.rd)
		} else {
			for {
				if _, err := p.readMessage(); err != nil {
					break
				}
			}
		}
	}
	p.conn.closeNow()
}

// SyscallConn gives the outbox the socket to write to without waiting
// (see outbox.New) when the connection is a plain socket; a TLS
// connection has none.
func (c *lingerConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errNoSyscallConn
	}
	return sc.SyscallConn()
}

var errNoSyscallConn = errors.New("websocket: not a plain socket")
