package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/junction-wamp/junction/internal/httpsyntax"
)

// Settings of a proxy's upstream connections, shared by its direct path
// and its http.Transport.
const (
	upstreamMaxIdle     = 256              // idle connections kept, like MaxIdleConnsPerHost
	upstreamIdleTimeout = 90 * time.Second // an idle connection is closed after this
	upstreamKeepAlive   = 30 * time.Second // TCP keep-alive period
	// upstreamMaxHeaderBytes bounds each response header block, as
	// http.Transport's default MaxResponseHeaderBytes does.
	upstreamMaxHeaderBytes = 10 << 20
	// upstreamMax1xx bounds the informational responses passed on before
	// the final one.
	upstreamMax1xx = 100
	// upstreamBufSize is the size of each connection's read buffer.
	upstreamBufSize = 4 << 10
)

// dialFunc makes a connection to an upstream (net.Dialer.DialContext's
// shape).
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// newUpstreamDialer returns the TCP dialer of a proxy's upstream
// connections.
func newUpstreamDialer() *net.Dialer {
	return &net.Dialer{Timeout: reverseProxyDialTimeout, KeepAlive: upstreamKeepAlive}
}

// upstreamConns are the persistent connections of a proxy's direct path to
// its upstream: exchange sends a request head on one and reads the answer's
// head, on the caller's goroutine; the caller reads the body and gives the
// connection back with release.
//
// It is safe for concurrent use: its fields are set once at construction,
// the idle pool has its own lock, and a connection belongs to one exchange
// (or to the pool) at a time.
type upstreamConns struct {
	addr    string        // host:port dialed
	timeout time.Duration // response header timeout; 0 means none
	maxHdr  int64         // bytes a response header block may take
	dial    dialFunc
	idle    idlePool
}

// newUpstreamConns returns the connections to upstream (a URL host, as
// upstreamHost returns it), made by dial, whose response headers must
// arrive within timeout.
func newUpstreamConns(upstream string, dial dialFunc, timeout time.Duration) *upstreamConns {
	return &upstreamConns{
		addr:    dialAddr(upstream),
		timeout: timeout,
		maxHdr:  upstreamMaxHeaderBytes,
		dial:    dial,
		idle:    idlePool{max: upstreamMaxIdle, timeout: upstreamIdleTimeout},
	}
}

// dialAddr is host with the port made explicit (80 when absent).
func dialAddr(host string) string {
	u := url.URL{Host: host}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// closeIdle closes the idle connections; exchanges in flight are not
// affected.
func (u *upstreamConns) closeIdle() { u.idle.closeAll() }

// exchange writes head, the head of a bodiless request for r, on an idle
// connection or a new one, and reads the head of the final answer,
// passing informational (1xx) answers on to w. A reused connection that
// turns out to have been closed by the upstream before it answered
// anything is replaced by a new one, once. The returned connection
// belongs to the caller until release; it is closed when r's context ends
// while the exchange waits on it (see upstreamAbortDelay).
func (u *upstreamConns) exchange(w http.ResponseWriter, r *http.Request, head []byte) (*upstreamConn, *http.Response, error) {
	ctx := r.Context()
	c, err := u.get(ctx)
	if err != nil {
		return nil, nil, err
	}
	resp, err := u.try(w, r, c, head)
	if err != nil && c.reused && c.nread == 0 && isStaleConnErr(err) && ctx.Err() == nil {
		if c, err = u.dialConn(ctx); err != nil {
			return nil, nil, err
		}
		resp, err = u.try(w, r, c, head)
	}
	if err != nil {
		return nil, nil, err
	}
	return c, resp, nil
}

// isStaleConnErr reports whether err is what a write to, or a read from,
// a connection that the upstream closed while it was idle gives.
func isStaleConnErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// get takes an idle connection, or dials one.
func (u *upstreamConns) get(ctx context.Context) (*upstreamConn, error) {
	now := time.Now()
	if c := u.idle.get(now); c != nil {
		c.taken = now
		return c, nil
	}
	return u.dialConn(ctx)
}

// dialConn dials a new connection; a dial error is returned as it is, so
// that classifyUpstreamError sees it.
func (u *upstreamConns) dialConn(ctx context.Context) (*upstreamConn, error) {
	nc, err := u.dial(ctx, "tcp", u.addr)
	if err != nil {
		return nil, err
	}
	return newUpstreamConn(nc), nil
}

// try runs one exchange on c. The abort on r's context is armed only
// when the exchange waits on the upstream (see upstreamAbortDelay) or
// reads a body that has not arrived yet, and stays armed until release.
// On error c is closed.
func (u *upstreamConns) try(w http.ResponseWriter, r *http.Request, c *upstreamConn, head []byte) (*http.Response, error) {
	ctx := r.Context()
	resp, err := u.writeAndRead(w, r, c, head)
	if err == nil && !bodyBuffered(c, resp) {
		c.arm(ctx)
		// Body reads are not bounded by the header timeout. This fails
		// only on a closed connection, which the body read reports.
		_ = c.setReadDeadline(time.Time{})
	}
	if err == nil {
		// A cancel that fired before the abort was armed is not lost.
		err = ctx.Err()
	}
	if err != nil {
		if c.inClient {
			clear(w.Header()) // empty before the answer's fields went in (see readSimple)
			c.inClient = false
		}
		c.disarm()
		_ = c.conn.Close()
		return nil, exchangeError(ctx, c, err)
	}
	return resp, nil
}

// upstreamAbortDelay is how long an exchange waits for the upstream's
// answer before it arms the abort on the request's context (a
// context.AfterFunc, which closes the connection when the client goes
// away). An answer that has arrived whole by then, head and body, as
// nearly every answer of a healthy upstream has, never pays for the
// abort: nothing is left to wait for on the connection. A request head
// too large to be sure the write never blocks arms it before the write.
// The h1 engine notices a client going away only after its WatchDelay
// (as long) anyway; on net/http's server the abort follows within this
// delay.
const upstreamAbortDelay = 250 * time.Millisecond

// smallHead is the size of a request head whose write cannot block on a
// connection with nothing in flight (the smallest TCP send buffer).
const smallHead = 4 << 10

// writeAndRead sends head and reads the final answer's head, within the
// header timeout counted from the end of the write.
func (u *upstreamConns) writeAndRead(w http.ResponseWriter, r *http.Request, c *upstreamConn, head []byte) (*http.Response, error) {
	c.nread = 0
	if len(head) > smallHead {
		c.arm(r.Context())
		c.taken = time.Time{} // the write may take a while: awaitHead reads the clock after it
	}
	if _, err := c.conn.Write(head); err != nil {
		return nil, err
	}
	return c.readFinal(w, r, u.maxHdr, u.timeout)
}

// awaitHead waits up to upstreamAbortDelay for a final answer's head to
// arrive whole, and returns its length then; when it has not, it arms the
// abort on ctx, sets the read deadline of the header timeout (counted
// from now, the end of the write), for readFinal to read the rest, and
// returns 0. For a connection taken from the pool just before a write
// that cannot block, now is when it was taken (one clock read less).
func (c *upstreamConn) awaitHead(ctx context.Context, timeout time.Duration) (int, error) {
	now := c.taken
	if c.taken = (time.Time{}); now.IsZero() {
		now = time.Now()
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = now.Add(timeout)
	}
	if c.stop == nil && (timeout <= 0 || timeout > upstreamAbortDelay) {
		// A deadline that a recent exchange set for this wait serves
		// again while it is between half the delay and the delay away.
		if short := now.Add(upstreamAbortDelay); c.rd.Before(now.Add(upstreamAbortDelay/2)) || c.rd.After(short) {
			if err := c.setReadDeadline(short); err != nil {
				return 0, err
			}
		}
		_, err := c.br.Peek(1)
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, err
		}
		if err == nil {
			if b, _ := c.br.Peek(c.br.Buffered()); finalHeadLen(b) > 0 {
				return finalHeadLen(b), nil
			}
		}
	}
	c.arm(ctx)
	return 0, c.setReadDeadline(deadline)
}

// bodyBuffered reports whether resp's body is in c's buffer already, or
// there is none: reading it takes no read from the connection.
func bodyBuffered(c *upstreamConn, resp *http.Response) bool {
	return resp.Body == http.NoBody ||
		resp.ContentLength >= 0 && len(resp.TransferEncoding) == 0 && int64(c.br.Buffered()) >= resp.ContentLength
}

// exchangeError says why an exchange on c failed: the request's context
// when it ended (the connection was closed for it), else err.
func exchangeError(ctx context.Context, c *upstreamConn, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("web: reverseproxy: upstream exchange aborted: %w", ctx.Err())
	case c.limit <= 0:
		return fmt.Errorf("web: reverseproxy: upstream response headers exceed the limit: %w", err)
	}
	return fmt.Errorf("web: reverseproxy: upstream exchange: %w", err)
}

// release ends c's exchange: c goes back to the pool when reuse is true
// (the answer was read to its end and allows it), the request's end did
// not abort it, and no unrequested bytes are waiting; else c is closed.
func (u *upstreamConns) release(c *upstreamConn, reuse bool) {
	if !c.disarm() || !reuse || c.br.Buffered() > 0 {
		_ = c.conn.Close()
		return
	}
	c.reused = true
	u.idle.put(c, time.Now())
}

// upstreamConn is one connection of the direct path. It belongs to one
// exchange (or to the idle pool) at a time, and only that owner uses it,
// except that abort (conn.Close) may run on the context's goroutine.
type upstreamConn struct {
	conn      net.Conn
	br        *bufio.Reader // reads c through Read
	abort     func()        // closes conn; made once, armed per exchange when it waits
	stop      func() bool   // disarms abort: false if it fired; nil when not armed
	reused    bool          // it served an exchange before this one
	nread     int64         // bytes read in the current exchange
	limit     int64         // bytes Read may still take
	idleSince time.Time     // when it went idle; idlePool.mu guards it
	rd        time.Time     // the read deadline set last (zero: none)
	taken     time.Time     // when an exchange took it from the pool; zero once awaitHead used it

	// What readSimple fills, reused by each exchange: valid until the
	// next one (serveDirect is done with them at release).
	resp     http.Response
	header   http.Header
	body     httpsyntax.LengthBody
	inClient bool // resp.Header is the client's answer header (see readSimple)
}

// newUpstreamConn wraps a freshly dialed connection.
func newUpstreamConn(nc net.Conn) *upstreamConn {
	c := &upstreamConn{conn: nc, limit: upstreamMaxHeaderBytes}
	c.br = bufio.NewReaderSize(c, upstreamBufSize)
	c.abort = func() { _ = nc.Close() }
	return c
}

// setReadDeadline sets the connection's read deadline and records it.
func (c *upstreamConn) setReadDeadline(t time.Time) error {
	c.rd = t
	return c.conn.SetReadDeadline(t)
}

// arm arms the abort on ctx, unless it is armed already.
func (c *upstreamConn) arm(ctx context.Context) {
	if c.stop == nil {
		if f := abortArmed.Load(); f != nil {
			(*f)()
		}
		c.stop = context.AfterFunc(ctx, c.abort)
	}
}

// abortArmed, when set (by tests), is called as an exchange arms its
// abort.
var abortArmed atomic.Pointer[func()]

// disarm disarms the abort, if it was armed, and reports whether the
// connection is still open (the abort did not fire).
func (c *upstreamConn) disarm() bool {
	if c.stop == nil {
		return true
	}
	ok := c.stop()
	c.stop = nil
	return ok
}

// Read reads from the connection within limit, counting the bytes.
func (c *upstreamConn) Read(p []byte) (int, error) {
	if c.limit <= 0 {
		return 0, errors.New("web: reverseproxy: read limit exhausted")
	}
	if int64(len(p)) > c.limit {
		p = p[:c.limit]
	}
	n, err := c.conn.Read(p)
	c.nread += int64(n)
	c.limit -= int64(n)
	return n, err
}

// readFinal reads the final answer to r, passing informational (1xx)
// answers on to w as they come, within the header timeout (see
// awaitHead). Each header block may take maxHdr bytes.
func (c *upstreamConn) readFinal(w http.ResponseWriter, r *http.Request, maxHdr int64, timeout time.Duration) (*http.Response, error) {
	c.inClient = false
	for i := range upstreamMax1xx {
		c.limit = maxHdr
		if i == 0 {
			n, err := c.awaitHead(r.Context(), timeout)
			if err != nil {
				return nil, err
			}
			if resp := c.readSimple(r, n, w.Header()); resp != nil {
				c.limit = 1<<63 - 1
				return resp, nil
			}
		}
		resp, err := http.ReadResponse(c.br, r)
		if err != nil {
			return nil, err
		}
		switch code := resp.StatusCode; {
		case code < 100:
			return nil, fmt.Errorf("web: reverseproxy: bad upstream status %d", code)
		case code == http.StatusSwitchingProtocols:
			return nil, errors.New("web: reverseproxy: upstream switched protocols without an upgrade request")
		case code >= 200:
			c.limit = 1<<63 - 1 // the body is not limited
			return resp, nil
		}
		passInformational(w, resp)
	}
	return nil, fmt.Errorf("web: reverseproxy: more than %d informational responses from upstream", upstreamMax1xx)
}

// idlePool holds the idle connections, oldest first, at most max of them,
// each for at most timeout: expired connections are closed when the
// newest one is taken, and by one timer that is set whenever the pool is
// not empty (no goroutine per connection). Safe for concurrent use.
type idlePool struct {
	max     int
	timeout time.Duration

	mu    sync.Mutex
	conns []*upstreamConn // mu must be held
	timer *time.Timer     // mu must be held; runs prune
}

// get takes the most recently used connection, or returns nil when there
// is none that is not expired.
func (p *idlePool) get(now time.Time) *upstreamConn {
	p.mu.Lock()
	n := len(p.conns)
	if n == 0 {
		p.mu.Unlock()
		return nil
	}
	c := p.conns[n-1]
	if now.Sub(c.idleSince) < p.timeout {
		p.conns[n-1] = nil
		p.conns = p.conns[:n-1]
		p.mu.Unlock()
		return c
	}
	expired := p.conns // the newest is expired, so all are
	p.conns = nil
	p.mu.Unlock()
	closeConns(expired)
	return nil
}

// put adds c to the pool, or closes it when the pool is full.
func (p *idlePool) put(c *upstreamConn, now time.Time) {
	p.mu.Lock()
	if len(p.conns) >= p.max {
		p.mu.Unlock()
		_ = c.conn.Close()
		return
	}
	c.idleSince = now
	p.conns = append(p.conns, c)
	if len(p.conns) == 1 { // else the timer is set for an older one
		p.armLocked(p.timeout)
	}
	p.mu.Unlock()
}

// armLocked sets the timer to prune in d. mu must be held.
func (p *idlePool) armLocked(d time.Duration) {
	if p.timer == nil {
		p.timer = time.AfterFunc(d, p.prune)
		return
	}
	p.timer.Reset(d)
}

// prune closes the expired connections and sets the timer for the next
// expiry, if any connection is left. It runs on the timer's goroutine.
func (p *idlePool) prune() {
	now := time.Now()
	p.mu.Lock()
	i := 0
	for i < len(p.conns) && now.Sub(p.conns[i].idleSince) >= p.timeout {
		i++
	}
	expired := slices.Clone(p.conns[:i])
	p.conns = slices.Delete(p.conns, 0, i)
	if len(p.conns) > 0 {
		p.armLocked(p.timeout - now.Sub(p.conns[0].idleSince))
	}
	p.mu.Unlock()
	closeConns(expired)
}

// closeAll closes every idle connection and stops the timer.
func (p *idlePool) closeAll() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Unlock()
	closeConns(conns)
}

// closeConns closes each connection of conns.
func closeConns(conns []*upstreamConn) {
	for _, c := range conns {
		_ = c.conn.Close()
	}
}
