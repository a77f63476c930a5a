package h1

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// bufferBeforeChunking is how much of an answer's body is held before
// its head is written: an answer that ends within it gets a
// Content-Length, a longer one (or one flushed) is chunked (HTTP/1.1) or
// ends with the connection (HTTP/1.0). net/http's figure.
const bufferBeforeChunking = 2048

// response is the http.ResponseWriter of one request. It also has what
// http.ResponseController looks for: FlushError, Hijack,
// SetReadDeadline, SetWriteDeadline, EnableFullDuplex.
type response struct {
	c       *conn
	req     *http.Request
	body    *body // nil when the request has none, else &reqBody
	reqBody body

	header   http.Header
	snapshot http.Header // header as of WriteHeader, when Header was called after it
	status   int

	wroteHeader bool // WriteHeader was called (or implied)
	sentHeader  bool // the head is in the connection's buffer
	handlerDone bool
	chunking    bool
	closeAfter  bool // close the connection after this answer
	tooBig      bool // the request body was too long to discard
	fullDuplex  bool
	panicked    bool
	bodyOK      bool // the answer may have a body (set with the head)

	contentLength int64 // declared or computed; -1 unknown
	written       int64
	buf           []byte
	trailers      []string // declared by the Trailer header

	wantsClose, wants10KeepAlive bool

	mu          sync.Mutex // guards canContinue and the 100 Continue's write
	canContinue bool
}

var (
	_ http.ResponseWriter = (*response)(nil)
	_ http.Flusher        = (*response)(nil)
	_ http.Hijacker       = (*response)(nil)
)

func newResponse(c *conn, req *http.Request) *response {
	w := &response{c: c, req: req, header: c.header, contentLength: -1}
	c.header = nil // w's until the answer is finished (see reuseHeader)
	if w.header == nil {
		w.header = make(http.Header)
	}
	w.buf = c.wbuf[:0]
	connection := firstValue(req.Header, "Connection")
	w.wantsClose = req.Close || hasToken(connection, "close")
	w.wants10KeepAlive = req.ProtoMajor == 1 && req.ProtoMinor == 0 && hasToken(connection, "keep-alive")
	if req.Body != nil && req.Body != http.NoBody {
		w.reqBody = body{src: req.Body, w: w, remaining: req.ContentLength, closing: req.Close && req.ContentLength >= 0}
		w.body = &w.reqBody // one allocation for both
		req.Body = w.body
	}
	return w
}

// checkExpect answers an Expect header: 100-continue is sent at the
// body's first read; any other expectation gets 417 and false.
func (w *response) checkExpect() bool {
	exp := firstValue(w.req.Header, "Expect")
	if exp == "" {
		return true
	}
	if hasToken(exp, "100-continue") {
		if w.req.ProtoAtLeast(1, 1) && w.body != nil {
			w.body.expect, w.body.continued = true, true
			w.canContinue = true
		}
		return true
	}
	w.header.Set("Connection", "close")
	w.WriteHeader(http.StatusExpectationFailed)
	w.finish()
	return false
}

// sendContinue writes "100 Continue" unless the answer has begun.
func (w *response) sendContinue() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.canContinue {
		return
	}
	w.canContinue = false
	_, _ = w.c.bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
	_ = w.c.bw.Flush()
}

func (w *response) noContinue() {
	if w.body == nil {
		return
	}
	w.mu.Lock()
	w.canContinue = false
	w.mu.Unlock()
}

func (w *response) Header() http.Header {
	if w.wroteHeader && !w.sentHeader && w.snapshot == nil {
		w.snapshot = w.header.Clone() // the head to write is the one of WriteHeader
	}
	return w.header
}

func (w *response) WriteHeader(code int) {
	if w.c.hijacked {
		w.c.srv.logger().Debug("http: response.WriteHeader on hijacked connection")
		return
	}
	if w.wroteHeader {
		w.c.srv.logger().Debug("http: superfluous response.WriteHeader call", "status", code)
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	w.noContinue()
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		w.writeInformational(code)
		return
	}
	w.wroteHeader, w.status = true, code
	if cl := firstValue(w.header, "Content-Length"); cl != "" {
		v, err := strconv.ParseInt(cl, 10, 64)
		if err == nil && v >= 0 {
			w.contentLength = v
		} else {
			w.c.srv.logger().Debug("http: invalid Content-Length", "value", cl)
			w.header.Del("Content-Length")
		}
	}
}

// writeInformational sends a 1xx answer (103 Early Hints...) at once,
// with the header as it is now.
func (w *response) writeInformational(code int) {
	bw := w.c.bw
	writeStatusLine(bw, w.req.ProtoAtLeast(1, 1), code)
	writeFields(bw, w.header, skipNoBody)
	_, _ = bw.WriteString("\r\n")
	_ = bw.Flush()
}

func (w *response) Write(p []byte) (int, error) { return write(w, p) }

func (w *response) WriteString(s string) (int, error) { return write(w, s) }

// write adds data to the body buffer, which goes out whenever it fills.
func write[T string | []byte](w *response, data T) (int, error) {
	if err := w.checkWrite(len(data)); err != nil || len(data) == 0 {
		return 0, err
	}
	n := len(data)
	for len(data) > 0 {
		if len(w.buf) == cap(w.buf) {
			if err := w.emit(); err != nil {
				return n - len(data), err
			}
		}
		k := copy(w.buf[len(w.buf):cap(w.buf)], data)
		w.buf = w.buf[:len(w.buf)+k]
		data = data[k:]
	}
	return n, nil
}

func (w *response) checkWrite(n int) error {
	if w.c.hijacked {
		if n > 0 {
			w.c.srv.logger().Debug("http: response.Write on hijacked connection")
		}
		return http.ErrHijacked
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if n == 0 {
		return nil
	}
	if !bodyAllowed(w.status) {
		return http.ErrBodyNotAllowed
	}
	w.written += int64(n)
	if w.contentLength != -1 && w.written > w.contentLength {
		return http.ErrContentLength
	}
	return nil
}

// emit writes the head if it is not yet, then the buffered body, as a
// chunk when chunking, into the connection's buffer.
func (w *response) emit() error {
	if !w.sentHeader {
		w.writeHead(w.buf)
	}
	p := w.buf
	w.buf = w.buf[:0]
	if len(p) == 0 || !w.bodyOK {
		return nil
	}
	bw := w.c.bw
	if w.chunking {
		_, _ = bw.WriteString(strconv.FormatInt(int64(len(p)), 16))
		_, _ = bw.WriteString("\r\n")
	}
	_, _ = bw.Write(p)
	if w.chunking {
		_, _ = bw.WriteString("\r\n")
	}
	if w.c.bwErr() != nil {
		return w.c.bwErr()
	}
	return nil
}

// Flush sends what is buffered (the head first).
func (w *response) Flush() { _ = w.FlushError() }

// FlushError is Flush with its error (http.ResponseController's).
func (w *response) FlushError() error {
	if w.c.hijacked {
		return http.ErrHijacked
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if err := w.emit(); err != nil {
		return err
	}
	return w.c.bw.Flush()
}

func (w *response) SetReadDeadline(t time.Time) error {
	w.c.rdeadline.Store(true)
	return w.c.rwc.SetReadDeadline(t)
}

func (w *response) SetWriteDeadline(t time.Time) error {
	w.c.wdeadline.Store(true)
	return w.c.rwc.SetWriteDeadline(t)
}

// EnableFullDuplex lets the handler read the request body after it has
// begun its answer: the body is not read to its end before the head.
func (w *response) EnableFullDuplex() error {
	w.fullDuplex = true
	return nil
}

// Hijack hands the connection over with what was read of it and not yet
// consumed; the engine forgets it.
func (w *response) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c := w.c
	if w.handlerDone {
		return nil, nil, errors.New("h1: Hijack called after the handler returned")
	}
	if c.hijacked {
		return nil, nil, http.ErrHijacked
	}
	if w.wroteHeader {
		_ = w.emit()
		_ = c.bw.Flush()
	}
	c.watch.end(c)
	c.r.endBody()
	c.hijacked = true
	_ = c.rwc.SetDeadline(time.Time{})
	if c.r.hasByte {
		if _, err := c.br.Peek(c.br.Buffered() + 1); err != nil {
			return nil, nil, fmt.Errorf("h1: hijack: reading the buffered byte: %w", err)
		}
	}
	c.r.unlimit()
	c.bw.Reset(c.rwc)
	c.setState(http.StateHijacked)
	c.srv.forget(c) // its owner's now: Shutdown does not wait for it, Close does not close it
	return c.rwc, bufio.NewReadWriter(c.br, c.bw), nil
}

// finish ends the answer after the handler: the head (with a
// Content-Length when the body fit the buffer), the body, the last chunk
// and trailers; then what is left of the request body.
func (w *response) finish() {
	w.handlerDone = true
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	_ = w.emit()
	if w.chunking {
		_, _ = w.c.bw.WriteString("0\r\n")
		w.writeTrailers()
		_, _ = w.c.bw.WriteString("\r\n")
	}
	_ = w.c.bw.Flush()
	if w.body != nil {
		_ = w.body.Close()
	}
	if w.req.Method != http.MethodHead && w.contentLength != -1 && bodyAllowed(w.status) && w.contentLength != w.written {
		w.closeAfter = true // the body is short: the client would read the next answer as its end
	}
}

// reusable reports whether the connection can serve another request; a
// connection closed because of the request body is half-closed first.
func (w *response) reusable() bool {
	early, broken := false, false
	if w.body != nil {
		early, broken = w.body.ending()
	}
	if w.tooBig || early {
		w.c.closeWriteAndWait()
		return false
	}
	return !w.closeAfter && !broken && w.c.bwErr() == nil
}

// stack is the stack of a panicking handler, for the log.
func stack() string { return string(debug.Stack()) }
