package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Settings of the proxy's own transport, shared by its fast path and its
// http.Transport fallback.
const (
	upstreamMaxIdle     = 256              // idle connections kept, like MaxIdleConnsPerHost
	upstreamIdleTimeout = 90 * time.Second // an idle connection is closed after this
	upstreamKeepAlive   = 30 * time.Second // TCP keep-alive period
	// upstreamMaxHeaderBytes bounds the response header block, as
	// http.Transport's default MaxResponseHeaderBytes does.
	upstreamMaxHeaderBytes = 10 << 20
	// upstreamMax1xx bounds the informational responses skipped before the
	// final one.
	upstreamMax1xx = 100
	// upstreamBufSize is the size of each connection's read buffer and of
	// the pooled write buffers.
	upstreamBufSize = 4 << 10
)

// upstreamTransport is the http.RoundTripper of a proxy whose
// ReverseProxyOptions.Transport is nil. GET and HEAD requests without a
// body and without Upgrade, to the proxy's upstream, take the fast path:
// the request is written and the response read on the calling goroutine,
// over pooled persistent connections, with no goroutine per connection.
// Everything else (bodies, other methods, WebSocket upgrades) goes to the
// fallback http.Transport, which does full duplex, 101 upgrades and
// Expect: 100-continue.
//
// It is safe for concurrent use: its fields are set once at construction,
// the idle pool has its own lock, and a connection belongs to one exchange
// (or to the pool) at a time.
type upstreamTransport struct {
	host     string        // URL host served by the fast path: the proxy's upstream
	addr     string        // host:port dialed
	timeout  time.Duration // response header timeout; 0 means none
	maxHdr   int64         // bytes a response header block may take
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	fallback *http.Transport
	idle     idlePool
}

var _ http.RoundTripper = (*upstreamTransport)(nil)

// newUpstreamDialer returns the dialer of the proxy's own transport.
func newUpstreamDialer() *net.Dialer {
	return &net.Dialer{Timeout: reverseProxyDialTimeout, KeepAlive: upstreamKeepAlive}
}

// newProxyTransport returns the transport of a proxy to upstream (a URL
// host, as upstreamHost returns it) whose response headers must arrive
// within timeout.
func newProxyTransport(upstream string, timeout time.Duration) *upstreamTransport {
	return &upstreamTransport{
		host:     upstream,
		addr:     dialAddr(upstream),
		timeout:  timeout,
		maxHdr:   upstreamMaxHeaderBytes,
		dial:     newUpstreamDialer().DialContext,
		fallback: newUpstreamTransport(timeout),
		idle:     idlePool{max: upstreamMaxIdle, timeout: upstreamIdleTimeout},
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

// RoundTrip sends req on the fast path when it qualifies, else through
// the fallback.
func (t *upstreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.fastPath(req) {
		return t.fallback.RoundTrip(req)
	}
	return t.roundTripFast(req)
}

// CloseIdleConnections closes the idle connections of the fast path and
// of the fallback; in-flight exchanges are not affected.
func (t *upstreamTransport) CloseIdleConnections() {
	t.idle.closeAll()
	t.fallback.CloseIdleConnections()
}

// fastPath reports whether req is a bodiless GET or HEAD to the upstream
// that does not ask for a protocol upgrade: safe to retry, and answered
// with a response whose body ends the exchange.
func (t *upstreamTransport) fastPath(req *http.Request) bool {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return false
	}
	if (req.Body != nil && req.Body != http.NoBody) || req.ContentLength != 0 ||
		len(req.TransferEncoding) != 0 || len(req.Trailer) != 0 {
		return false
	}
	_, upgrade := req.Header["Upgrade"]
	return !upgrade && req.URL.Scheme == "http" && req.URL.Host == t.host
}

// roundTripFast runs one exchange, and a second one on a fresh connection
// when a reused connection turns out to have been closed by the upstream
// before it answered anything.
func (t *upstreamTransport) roundTripFast(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	c, err := t.getConn(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := t.exchange(c, req)
	if err != nil && c.reused && c.nread == 0 && isStaleConnErr(err) && ctx.Err() == nil {
		if c, err = t.dialConn(ctx); err != nil {
			return nil, err
		}
		resp, err = t.exchange(c, req)
	}
	return resp, err
}

// isStaleConnErr reports whether err is what a write to, or a read from,
// a connection that the upstream closed while it was idle gives.
func isStaleConnErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// getConn takes an idle connection, or dials one.
func (t *upstreamTransport) getConn(ctx context.Context) (*upstreamConn, error) {
	if c := t.idle.get(time.Now()); c != nil {
		return c, nil
	}
	return t.dialConn(ctx)
}

// dialConn dials a fresh connection; a dial error is returned as is, so
// that classifyUpstreamError sees it.
func (t *upstreamTransport) dialConn(ctx context.Context) (*upstreamConn, error) {
	nc, err := t.dial(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	return newUpstreamConn(nc), nil
}

// exchange writes req on c and reads the response headers, with c's
// abort armed on the request's context until the body is done. On error
// c is closed.
func (t *upstreamTransport) exchange(c *upstreamConn, req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	stop := c.watch(ctx)
	resp, err := t.writeAndRead(c, req)
	if err == nil {
		// Body reads are not bounded by the header timeout. This fails
		// only on a closed connection, which the body read reports.
		_ = c.conn.SetReadDeadline(time.Time{})
		// A cancel that fired before the deadline was cleared is not lost.
		err = ctx.Err()
	}
	if err != nil {
		stop()
		_ = c.conn.Close()
		return nil, exchangeError(ctx, c, err)
	}
	t.attachBody(resp, req, c, stop)
	return resp, nil
}

// writeAndRead sends req and reads its final response headers, within
// the header timeout counted from the end of the write.
func (t *upstreamTransport) writeAndRead(c *upstreamConn, req *http.Request) (*http.Response, error) {
	c.nread = 0
	if err := c.writeRequest(req); err != nil {
		return nil, err
	}
	if t.timeout > 0 {
		if err := c.conn.SetReadDeadline(time.Now().Add(t.timeout)); err != nil {
			return nil, err
		}
	}
	return c.readResponse(req, t.maxHdr)
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

// attachBody makes resp.Body give c back (or close it) when the body is
// done; a response without a body releases c at once.
func (t *upstreamTransport) attachBody(resp *http.Response, req *http.Request, c *upstreamConn, stop func() bool) {
	keep := !resp.Close && !req.Close
	if resp.Body == http.NoBody {
		t.release(c, stop, keep)
		return
	}
	resp.Body = &upstreamBody{t: t, c: c, ctx: req.Context(), body: resp.Body, stop: stop, keep: keep}
}

// release ends c's exchange: c goes back to the pool when reuse is true,
// the context's abort never fired, and no unrequested bytes are waiting;
// else c is closed. stop is the abort's stop function.
func (t *upstreamTransport) release(c *upstreamConn, stop func() bool, reuse bool) {
	if !stop() || !reuse || c.br.Buffered() > 0 {
		_ = c.conn.Close()
		return
	}
	c.reused = true
	t.idle.put(c, time.Now())
}

// upstreamConn is one fast-path connection. It belongs to one exchange (or
// to the idle pool) at a time, and only that owner uses it, except that
// abort (conn.Close) may run on the context's goroutine.
type upstreamConn struct {
	conn      net.Conn
	br        *bufio.Reader // reads c through Read
	abort     func()        // closes conn; made once, armed per exchange
	reused    bool          // it served an exchange before this one
	nread     int64         // bytes read in the current exchange
	limit     int64         // bytes Read may still take
	idleSince time.Time     // when it went idle; idlePool.mu guards it
}

// newUpstreamConn wraps a freshly dialed connection.
func newUpstreamConn(nc net.Conn) *upstreamConn {
	c := &upstreamConn{conn: nc, limit: upstreamMaxHeaderBytes}
	c.br = bufio.NewReaderSize(c, upstreamBufSize)
	c.abort = func() { _ = nc.Close() }
	return c
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

// neverStop is the stop function of a context that is never done.
func neverStop() bool { return true }

// watch arranges for c to be closed when ctx ends; the returned stop
// function disarms that and reports whether it had not fired.
func (c *upstreamConn) watch(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil {
		return neverStop
	}
	return context.AfterFunc(ctx, c.abort)
}

// writeBuffers lends the write buffers of the fast path: a request is
// written at once, so an idle connection needs none. Safe for concurrent
// use.
var writeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, upstreamBufSize) }}

// writeRequest writes req as http.Transport would (the same Request.Write
// serialisation: request URI, Host, headers, no default User-Agent when
// the header is present and empty) and flushes it.
func (c *upstreamConn) writeRequest(req *http.Request) error {
	bw := writeBuffers.Get().(*bufio.Writer)
	bw.Reset(c.conn)
	err := req.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	writeBuffers.Put(bw)
	return err
}

// readResponse reads the final response to req, skipping informational
// (1xx) ones after reporting them to the request's ClientTrace (httputil
// forwards them to the client). Each header block may take maxHdr bytes.
func (c *upstreamConn) readResponse(req *http.Request, maxHdr int64) (*http.Response, error) {
	trace := httptrace.ContextClientTrace(req.Context())
	for range upstreamMax1xx {
		c.limit = maxHdr
		resp, err := http.ReadResponse(c.br, req)
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
		if trace != nil && trace.Got1xxResponse != nil {
			if err := trace.Got1xxResponse(resp.StatusCode, textproto.MIMEHeader(resp.Header)); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("web: reverseproxy: more than %d informational responses from upstream", upstreamMax1xx)
}

// upstreamBody is the body of a fast-path response: the framed body read
// by http.ReadResponse, which gives its connection back to the pool once
// read to EOF, or closes it when closed early or broken. Read must not be
// called concurrently with itself; Close may be called at any time, even
// during a Read, and more than once. After the connection is released,
// Read returns the error that ended the body and never touches it again.
type upstreamBody struct {
	t    *upstreamTransport
	c    *upstreamConn
	ctx  context.Context // the request's: its end aborts the read
	body io.ReadCloser   // never closed: its Close would drain the rest
	stop func() bool
	keep bool // the response allows reusing the connection

	mu   sync.Mutex
	done bool  // mu must be held; the connection was released
	err  error // mu must be held; what Read returns once done
}

// Read reads the body; at its end, or on error, the connection is
// released. A read that the request's end aborted returns that cause.
func (b *upstreamBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	done, doneErr := b.done, b.err
	b.mu.Unlock()
	if done {
		return 0, doneErr
	}
	n, err := b.body.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		err = fmt.Errorf("web: reverseproxy: upstream body aborted: %w", b.ctx.Err())
	}
	if err != nil {
		b.finish(err == io.EOF, err)
	}
	return n, err
}

// Close releases the connection, closing it unless the body was read to
// its end; the rest of the body is not read.
func (b *upstreamBody) Close() error {
	b.finish(false, http.ErrBodyReadAfterClose)
	return nil
}

// finish releases the connection once; complete says the body was read to
// EOF, and err is what later Reads return.
func (b *upstreamBody) finish(complete bool, err error) {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done, b.err = true, err
	b.mu.Unlock()
	b.t.release(b.c, b.stop, complete && b.keep)
}

// idlePool holds the idle fast-path connections, oldest first, at most
// max of them, each for at most timeout: expired connections are closed
// when the newest one is taken, and by one timer that runs while the pool
// is not empty (no goroutine per connection). Safe for concurrent use.
type idlePool struct {
	max     int
	timeout time.Duration

	mu    sync.Mutex
	conns []*upstreamConn // mu must be held
	timer *time.Timer     // mu must be held; runs prune
	armed bool            // mu must be held; timer is set to fire
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
	if !p.armed {
		p.armLocked(p.timeout)
	}
	p.mu.Unlock()
}

// armLocked sets the timer to prune in d. mu must be held.
func (p *idlePool) armLocked(d time.Duration) {
	p.armed = true
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
	p.armed = false
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
	p.armed = false
	p.mu.Unlock()
	closeConns(conns)
}

// closeConns closes each connection of conns.
func closeConns(conns []*upstreamConn) {
	for _, c := range conns {
		_ = c.conn.Close()
	}
}
