package h1

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/httpsyntax"
)

// conn is one client connection, served by one goroutine (serve): the
// handler of each request runs on it, in turn. Only the watcher (see
// watch.go) touches the connection from another goroutine, and only
// while it holds the connection's reading side.
type conn struct {
	srv *Server
	rwc net.Conn
	// state is the http.ConnState (low byte) and the Unix second it began.
	state atomic.Uint64

	tls        *tls.ConnectionState // nil for plain HTTP
	remoteAddr string
	r          *connReader
	br         *bufio.Reader
	bw         *bufio.Writer
	lastMethod string
	hijacked   bool
	werr       error       // the first write error: the connection is done
	wbuf       []byte      // the body buffer of the answers, reused
	header     http.Header // the answers' header map, reused (see reuseHeader)
	watch      watcher
	// wdeadline is set when a handler sets a write deadline (on any
	// goroutine): it is cleared after the answer, which costs nothing for
	// the others.
	wdeadline atomic.Bool
	// rdeadline is set when a handler, or a read of the request body,
	// sets a read deadline (on any goroutine): the idle deadline is set
	// again after the answer.
	rdeadline atomic.Bool
	// idleUntil is the read deadline that the wait for a request set
	// last (see idleDeadline), while nothing else set one since; zero
	// otherwise.
	idleUntil time.Time
	// head is the request the engine's parser fills (see fasthead.go),
	// zero between requests: serveRequest's WithContext copies it, the
	// one request allocated.
	head http.Request
}

// connWriter is what the connection's bufio.Writer writes to: the
// connection, keeping its first error.
type connWriter struct{ c *conn }

func (w connWriter) Write(p []byte) (int, error) {
	n, err := w.c.rwc.Write(p)
	if err != nil && w.c.werr == nil {
		w.c.werr = err
	}
	return n, err
}

func (c *conn) bwErr() error { return c.werr }

// aLongTimeAgo is a deadline in the past: it makes a pending read return.
var aLongTimeAgo = time.Unix(1, 0)

func (c *conn) setState(st http.ConnState) {
	c.setStateLocked(st)
	if hook := c.srv.ConnState; hook != nil {
		hook(c.rwc, st)
	}
}

// setStateLocked records st without calling the hook, and the time for
// StateNew (the only state whose age matters, to Shutdown).
func (c *conn) setStateLocked(st http.ConnState) {
	var sec uint64
	if st == http.StateNew {
		sec = uint64(time.Now().Unix())
	}
	c.state.Store(sec<<8 | uint64(st))
}

// getState returns the connection's state, and the time it began for
// StateNew (the zero Unix time for the others).
func (c *conn) getState() (http.ConnState, time.Time) {
	v := c.state.Load()
	return http.ConnState(v & 0xff), time.Unix(int64(v>>8), 0)
}

// serve runs the connection's requests one after the other until it
// closes, hijacked or not.
func (c *conn) serve() {
	defer c.finish()
	c.setState(http.StateNew)
	c.remoteAddr = c.rwc.RemoteAddr().String()
	if !c.handshake() {
		return
	}
	ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, c.rwc.LocalAddr())
	if f := c.srv.ConnContext; f != nil {
		ctx = f(ctx, c.rwc)
	}
	c.r = &connReader{c: c, remain: math.MaxInt64, bodyIdle: c.srv.BodyTimeout}
	c.br = bufio.NewReaderSize(c.r, 4096)
	c.bw = bufio.NewWriterSize(connWriter{c}, 4096)
	c.wbuf = make([]byte, 0, bufferBeforeChunking)
	c.setReadDeadline(c.srv.ReadHeaderTimeout)
	for {
		if _, err := c.br.Peek(1); err != nil {
			return
		}
		c.setState(http.StateActive)
		if !c.serveRequest(ctx) || c.srv.shutting.Load() {
			return
		}
		c.setState(http.StateIdle)
		c.idleDeadline()
		if _, err := c.br.Peek(4); err != nil {
			return // as net/http: fewer than 4 bytes before the end are no request
		}
		if !c.headBuffered() {
			c.setReadDeadline(c.srv.ReadHeaderTimeout)
		}
	}
}

// headBuffered reports whether the next request's head has arrived in
// full (its blank line is in the buffer): reading it takes no read from
// the connection, which the read header timeout would bound. A request
// sent at once, as nearly all are, costs no deadline then.
func (c *conn) headBuffered() bool {
	b, _ := c.br.Peek(c.br.Buffered())
	b = b[leadingCRLF(b):]
	return bytes.Contains(b, []byte("\n\r\n")) || bytes.Contains(b, []byte("\n\n"))
}

// setReadDeadline sets the read deadline d from now; 0 clears it.
func (c *conn) setReadDeadline(d time.Duration) {
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	c.idleUntil = time.Time{}
	_ = c.rwc.SetReadDeadline(t)
}

// idleDeadline sets the read deadline of the wait for the next request,
// IdleTimeout from now, unless the one an earlier wait set is in force
// and at most IdleTimeout/64 short of it (see Server.IdleTimeout):
// setting a deadline for every request cost about 1 % of the reverse
// proxy's CPU per request.
func (c *conn) idleDeadline() {
	d := c.srv.IdleTimeout
	if d <= 0 {
		c.setReadDeadline(0)
		return
	}
	now := time.Now()
	if !c.idleUntil.IsZero() && c.idleUntil.Sub(now) >= d-d/64 {
		return
	}
	c.idleUntil = now.Add(d)
	_ = c.rwc.SetReadDeadline(c.idleUntil)
}

// handshake completes a TLS connection's handshake, within the read
// header timeout, and records its state; false when it fails.
func (c *conn) handshake() bool {
	tc, ok := c.rwc.(*tls.Conn)
	if !ok {
		return true
	}
	if d := c.srv.ReadHeaderTimeout; d > 0 {
		_ = c.rwc.SetDeadline(time.Now().Add(d))
	}
	if err := tc.HandshakeContext(context.Background()); err != nil {
		c.srv.logger().Debug("http: TLS handshake error", "remote", c.remoteAddr, "error", err)
		return false
	}
	_ = c.rwc.SetWriteDeadline(time.Time{})
	cs := tc.ConnectionState()
	c.tls = &cs
	return true
}

// finish closes the connection unless it was hijacked, and forgets it.
func (c *conn) finish() {
	c.watch.stop()
	if c.hijacked {
		c.srv.forget(c)
		return
	}
	if c.bw != nil {
		_ = c.bw.Flush()
	}
	_ = c.rwc.Close()
	c.srv.forget(c) // before the state: Shutdown must not find it closed but still there
	c.setState(http.StateClosed)
}

// serveRequest reads one request and runs the handler on it; false means
// the connection is done (closed after the answer, broken or hijacked).
func (c *conn) serveRequest(ctx context.Context) bool {
	req, err := c.readRequest()
	if err != nil {
		c.refuse(err)
		return false
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if req.Trailer == nil && len(req.TransferEncoding) > 0 {
		// The body fills the trailer of the request it was read for, and
		// WithContext copies the request: share one map.
		req.Trailer = make(http.Header)
	}
	req = req.WithContext(ctx) // a copy: c.head, when it was parsed there, is free again
	c.head = http.Request{}
	w := newResponse(c, req)
	if !w.checkExpect() {
		return false
	}
	if w.body != nil {
		c.r.beginBody()
	}
	c.watch.begin(c, cancel, !w.body.remains())
	c.runHandler(w, req)
	watched := c.watch.end(c)
	cancel()
	if c.hijacked || w.panicked {
		return false
	}
	w.finish()
	c.reuseHeader(w)
	c.r.endBody()
	if watched || c.rdeadline.Swap(false) {
		// The watch, the body's reads or the handler set the read
		// deadline: the wait for the next request sets it again.
		c.idleUntil = time.Time{}
	}
	if c.wdeadline.Swap(false) {
		_ = c.rwc.SetWriteDeadline(time.Time{})
	}
	return w.reusable()
}

// maxReusedHeader is the most fields an answer's header map may have
// held to serve the next answer: clearing a map costs what it has grown
// to.
const maxReusedHeader = 16

// reuseHeader keeps the header map of w, whose answer is finished and
// whose handler has returned, for the next answer on the connection,
// cleared: what the handler put in it is not used after ServeHTTP
// returns, as the http.ResponseWriter contract says. Not called after a
// hijack or a panic (the connection is done then).
func (c *conn) reuseHeader(w *response) {
	if len(w.header) > maxReusedHeader {
		return
	}
	clear(w.header)
	c.header = w.header
	w.header = nil
}

// runHandler runs the handler; a panic is logged (but ErrAbortHandler)
// and closes the connection, as with net/http.
func (c *conn) runHandler(w *response, req *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			w.panicked = true
			if v != http.ErrAbortHandler {
				c.srv.logger().Error("http: panic serving request", "remote", c.remoteAddr, "panic", v, "stack", stack())
			}
		}
	}()
	h := c.srv.Handler
	if req.RequestURI == "*" && req.Method == http.MethodOptions {
		h = http.HandlerFunc(optionsStar)
	}
	h.ServeHTTP(w, req)
}

// optionsStar answers "OPTIONS *" as net/http does: 200, no body.
func optionsStar(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "0")
	if r.ContentLength != 0 {
		mb := http.MaxBytesReader(w, r.Body, 4<<10)
		_, _ = io.Copy(io.Discard, mb)
	}
}

// statusError is a request refused with a status and a short text.
type statusError struct {
	code int
	text string
}

func (e statusError) Error() string { return fmt.Sprintf("%d %s", e.code, e.text) }

var errHeadTooLarge = errors.New("h1: request head too large")

// readRequest reads and checks the next request's head: the common kind
// with the engine's own parser (see fasthead.go), any other with
// http.ReadRequest.
func (c *conn) readRequest() (*http.Request, error) {
	limit := int64(c.srv.MaxHeaderBytes)
	if limit <= 0 {
		limit = http.DefaultMaxHeaderBytes
	}
	c.r.limit(limit + 4096) // net/http's slack for the request line and bufio
	if c.lastMethod == http.MethodPost {
		// RFC 9112 section 2.2: tolerate the CRLF some old clients send
		// after a POST body.
		peek, _ := c.br.Peek(4)
		_, _ = c.br.Discard(leadingCRLF(peek))
	}
	if parseCommonHead(c.br, &c.head) {
		return c.accept(&c.head), nil
	}
	c.head = http.Request{}
	return c.readAnyRequest()
}

// readAnyRequest reads the next request's head with http.ReadRequest,
// within the limit readRequest set, and checks it as net/http's server
// does: for the heads parseCommonHead leaves.
func (c *conn) readAnyRequest() (*http.Request, error) {
	c.r.startHead(c.br)
	req, err := http.ReadRequest(c.br)
	head := c.r.endHead()
	if err != nil {
		if c.r.hit {
			return nil, errHeadTooLarge
		}
		return nil, err
	}
	if err := checkRequest(req, head); err != nil {
		return nil, err
	}
	return c.accept(req), nil
}

// accept completes a request read and checked.
func (c *conn) accept(req *http.Request) *http.Request {
	c.r.unlimit()
	c.lastMethod = req.Method
	req.RemoteAddr = c.remoteAddr
	req.TLS = c.tls
	return req
}

func leadingCRLF(b []byte) int {
	n := 0
	for _, x := range b {
		if x != '\r' && x != '\n' {
			break
		}
		n++
	}
	return n
}

// checkRequest makes the checks of net/http's server after parsing: the
// version, Host (required in HTTP/1.1, valid), the header fields. head
// holds the bytes the head was read from (Host is gone from the parsed
// header).
func checkRequest(req *http.Request, head []byte) error {
	if req.ProtoMajor != 1 {
		return statusError{http.StatusHTTPVersionNotSupported, "unsupported protocol version"}
	}
	hosts, host := hostFields(req, head)
	if req.ProtoAtLeast(1, 1) && hosts == 0 && req.Method != http.MethodConnect {
		return statusError{http.StatusBadRequest, "missing required Host header"}
	}
	if hosts == 1 && !validHost(host) {
		return statusError{http.StatusBadRequest, "malformed Host header"}
	}
	for k, vv := range req.Header {
		if !httpsyntax.ValidFieldName(k) {
			return statusError{http.StatusBadRequest, "invalid header name"}
		}
		for _, v := range vv {
			if !httpsyntax.ValidFieldValue(v) {
				return statusError{http.StatusBadRequest, "invalid header value"}
			}
		}
	}
	return nil
}

// hostFields counts the request's Host fields and returns the value of
// the first. http.ReadRequest refuses more than one and sets req.Host
// from the only one, unless the request target is absolute (then from
// the target): only then, or with an empty Host, is the head read again.
func hostFields(req *http.Request, head []byte) (int, string) {
	if req.Host != "" && req.URL.Host == "" {
		return 1, req.Host
	}
	return scanHost(head)
}

// scanHost finds the Host fields of a request head the way textproto
// reads them (names case-insensitive, the value without surrounding
// blanks). Only called for the rare heads hostFields cannot settle.
func scanHost(head []byte) (int, string) {
	s := string(head)
	_, s, _ = strings.Cut(s, "\n") // the request line
	n, first := 0, ""
	for s != "" {
		var line string
		line, s, _ = strings.Cut(s, "\n")
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(name, "Host") {
			continue
		}
		if n == 0 {
			first = strings.Trim(value, " \t")
		}
		n++
	}
	return n, first
}

// refuse answers a request that could not be read, as net/http does, and
// leaves the connection to close: 431 for a head too large, 501 for an
// unknown transfer coding, nothing when the client went away, 400 (or the
// statusError's status) with a short text otherwise.
func (c *conn) refuse(err error) {
	const headers = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	var se statusError
	switch {
	case errors.Is(err, errHeadTooLarge):
		const text = "431 Request Header Fields Too Large"
		c.writeRaw("HTTP/1.1 " + text + headers + text)
		c.closeWriteAndWait()
	case isUnsupportedTE(err):
		c.writeRaw("HTTP/1.1 501 Not Implemented" + headers + "Unsupported transfer encoding")
	case isReadGone(err):
	case errors.As(err, &se):
		status := fmt.Sprintf("%d %s: %s", se.code, http.StatusText(se.code), se.text)
		c.writeRaw("HTTP/1.1 " + status + headers + status)
	default:
		const text = "400 Bad Request"
		c.writeRaw("HTTP/1.1 " + text + headers + text)
	}
}

// isUnsupportedTE reports http.ReadRequest's error for a transfer coding
// other than chunked, or more than one (its type is unexported: known by
// its name).
func isUnsupportedTE(err error) bool {
	return fmt.Sprintf("%T", err) == "*http.unsupportedTEError"
}

// writeRaw writes s to the connection at once, with a short deadline:
// the client that sent a bad request need not be read from.
func (c *conn) writeRaw(s string) {
	_ = c.rwc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(c.rwc, s)
}

// isReadGone reports a read error that means the client went away or
// timed out: net/http answers those with nothing.
func isReadGone(err error) bool {
	if err == io.EOF {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "read"
}

// closeWriteAndWait half-closes a TCP connection after an answer and
// gives the client a moment to read it before the close can reset it.
func (c *conn) closeWriteAndWait() {
	_ = c.bw.Flush()
	if tc, ok := c.rwc.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
	t := time.NewTimer(500 * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.srv.stopped():
	}
}
