package websocket

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// lingerConn is the connection as the outbox sees it. With a close
// handshake timeout, closing it after our close frame was queued leaves the
// TCP connection open for the peer's answering close frame: closing at once
// could reset the connection under data the peer is still sending, and the
// reset can destroy our close frame before the peer reads it (RFC 6455
// section 7.1.1 has the server close TCP after both close frames). The
// connection is then closed when the reader gets that frame or the stream's
// end (closeNow), or by a timer after the timeout.
type lingerConn struct {
	net.Conn
	wait      time.Duration
	closeSent atomic.Bool // our close frame was queued
	timer     atomic.Pointer[time.Timer]
	once      sync.Once
}

// Close closes the connection, or, after our close frame with a close
// handshake timeout, arms the timer that closes it.
func (c *lingerConn) Close() error {
	if c.wait <= 0 || !c.closeSent.Load() {
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
		if t := c.timer.Load(); t != nil {
			t.Stop()
		}
		c.Conn.Close()
	})
}

// lingering reports whether the connection waits for the peer's close
// frame.
func (c *lingerConn) lingering() bool {
	return c.wait > 0 && c.closeSent.Load() && c.timer.Load() != nil
}

// awaitClose ends a server connection once its session is over: with a
// close handshake timeout and our close frame sent, it reads (discarding
// messages) until the peer's close frame or the stream's end, for at most
// the timeout; then it closes the TCP connection. It must run only when
// nothing else reads: after Attach has returned.
func (p *Peer) awaitClose() {
	if p.conn.lingering() {
		p.conn.SetReadDeadline(time.Now().Add(p.conn.wait))
		for {
			if _, err := p.readMessage(); err != nil {
				break
			}
		}
	}
	p.conn.closeNow()
}
