package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"syscall"
	"time"

	"github.com/junction-wamp/junction/internal/epoll"
)

// exchange is one proxied request of a loop's client: its upstream
// request, then the upstream's answer relayed to the client. It goes
// through the states below in order; a pooled connection that fails
// before any answer byte starts it again, once, on a new one.
type exchange struct {
	gen   uint32 // counts the client's exchanges: a dial's result for another is dropped
	cl    *client
	route ProxyRoute
	state exState

	method string
	path   string // escaped, below the mount point: for the log
	head   []byte // the upstream request head, kept for a retry
	up     *upConn
	// cancelDial cancels the dial under way (exDialing).
	cancelDial context.CancelFunc
	retried    bool
	deadline   int64 // when the answer's head is late (exAwaitHead); 0: never
	start      int64 // when the request's head was read
	status     int   // the final answer's status, once read
	n1xx       int   // informational answers passed on

	ans      upAnswer
	headSent bool         // the client's answer head is out
	left     int64        // body bytes still to come (bodyLength)
	chunks   chunkDecoder // bodyChunked
	sniff    bool         // the client's head waits for the body's first bytes
	paused   bool         // the upstream is not read: the client's output is full
}

type exState uint8

const (
	exDone      exState = iota // not under way
	exDialing                  // a new upstream connection is being made
	exSending                  // the request head is being written
	exAwaitHead                // the answer's head is awaited
	exBody                     // the answer's body is relayed
)

// answering reports whether the final answer has begun.
func (ex *exchange) answering() bool { return ex.state == exBody }

// begin starts the exchange of c's request (c.req), for route's proxy,
// whose path below the mount point is rest (escaped) and decoded.
func (l *loop) begin(c *client, route ProxyRoute, rest, decoded string) {
	p, req, ex := route.proxy, &c.req, &c.x
	*ex = exchange{gen: ex.gen + 1, cl: c, route: route, method: req.method, path: rest, start: l.now,
		head: ex.head[:0], ans: ex.ans, chunks: chunkDecoder{}}
	c.ex = ex
	c.deadline, c.heading = 0, false
	c.closeAfter = req.close || l.shutting
	_, target := p.joinPath(decoded, rest)
	port := p.fwdPort
	if port == "" {
		port = c.port
	}
	h := outgoingHead{method: req.method, target: target, query: req.query, forceQuery: req.forceQuery,
		fields: req.fields, connection: req.connection, te: req.te,
		fwd: p.forwardingOf(c.ip, req.xff, req.host, false, port)}
	ex.head = p.appendOutgoing(ex.head, &h)
	c.consume(req.n)
	if u := l.poolOf(p).get(l); u != nil {
		l.sendHead(ex, u)
		return
	}
	l.dial(ex)
}

// dial makes a new upstream connection for ex on a goroutine of its own
// (DNS and connect never block the loop), with the proxy's dialer; the
// result comes back through the loop's inbox (dialDone).
func (l *loop) dial(ex *exchange) {
	ex.state = exDialing
	ctx, cancel := context.WithCancel(l.e.dialCtx)
	ex.cancelDial = cancel
	p, gen := ex.route.proxy, ex.gen
	l.e.dials.Add(1)
	go func() {
		defer l.e.dials.Done()
		defer cancel()
		fd := -1
		nc, err := p.dialer.DialContext(ctx, "tcp", p.conns.addr)
		if err == nil {
			fd, err = epoll.Take(nc)
			_ = nc.Close()
		}
		if !l.postDial(dialResult{ex: ex, gen: gen, fd: fd, err: err}) && err == nil {
			epoll.Close(fd)
		}
	}()
}

// dialDone takes the result of a dial.
func (l *loop) dialDone(d dialResult) {
	ex := d.ex
	if ex.gen != d.gen || ex.state != exDialing {
		if d.err == nil {
			epoll.Close(d.fd) // the client went away meanwhile
		}
		return
	}
	ex.cancelDial = nil
	if d.err != nil {
		l.fail(ex, d.err) // as returned, for classifyUpstreamError
		return
	}
	u := l.poolOf(ex.route.proxy).add(l, d.fd)
	if u == nil {
		l.fail(ex, errors.New("web: reverseproxy: upstream connection not watched"))
		return
	}
	l.sendHead(ex, u)
}

// sendHead writes ex's request head on u.
func (l *loop) sendHead(ex *exchange, u *upConn) {
	ex.up, u.ex, u.nread = u, ex, 0
	ex.state = exSending
	n, err := epoll.Write(u.fd, ex.head)
	if err != nil && err != syscall.EAGAIN {
		l.upstreamBroken(ex, err)
		return
	}
	if n < len(ex.head) {
		u.out = ex.head[n:]
		l.watchUp(u, epoll.Out|epoll.RDHup)
		return
	}
	l.awaitHead(ex)
}

// awaitHead waits for the answer, within the proxy's timeout from now.
func (l *loop) awaitHead(ex *exchange) {
	ex.state = exAwaitHead
	if t := ex.route.proxy.conns.timeout; t > 0 {
		ex.deadline = l.now + int64(t)
	}
	l.watchUp(ex.up, epoll.In|epoll.RDHup)
}

// upstreamEvent handles an event of u's descriptor.
func (l *loop) upstreamEvent(u *upConn, events uint32) {
	ex := u.ex
	if ex == nil {
		u.pool.drop(l, u) // idle: the upstream closed it, or sent what no one asked for
		return
	}
	if events&epoll.Out != 0 && len(u.out) > 0 {
		n, err := epoll.Write(u.fd, u.out)
		if err != nil && err != syscall.EAGAIN {
			l.upstreamBroken(ex, err)
			return
		}
		if u.out = u.out[n:]; len(u.out) == 0 {
			u.out = nil
			l.awaitHead(ex)
		}
	}
	if events&(epoll.In|epoll.RDHup|epoll.Hup|epoll.Err) == 0 {
		return
	}
	if ex.paused {
		// A hang-up (reported whatever is watched) while paused: out of the
		// instance until resume, which reads what is left.
		_ = l.poll.Del(u.fd)
		u.events = ^uint32(0)
		return
	}
	l.readUpstream(ex, u)
}

// readUpstream reads what the upstream sent and relays it.
func (l *loop) readUpstream(ex *exchange, u *upConn) {
	if len(u.in) == cap(u.in) {
		if ex.state != exAwaitHead || cap(u.in) >= upstreamMaxHeaderBytes {
			l.fail(ex, fmt.Errorf("web: reverseproxy: upstream response headers exceed the limit: %d bytes", len(u.in)))
			return
		}
		u.in = append(make([]byte, 0, 2*cap(u.in)), u.in...)
	}
	n, err := epoll.Read(u.fd, u.in[len(u.in):cap(u.in)])
	switch {
	case err == syscall.EAGAIN:
		return
	case err != nil:
		l.upstreamBroken(ex, err)
		return
	case n == 0:
		l.upstreamBroken(ex, io.EOF)
		return
	}
	u.in = u.in[:len(u.in)+n]
	u.nread += int64(n)
	l.answer(ex)
}

// upstreamBroken handles the end of the upstream's connection, or an
// error on it.
func (l *loop) upstreamBroken(ex *exchange, err error) {
	u := ex.up
	switch {
	case ex.state == exBody && ex.ans.framing == bodyToClose && err == io.EOF:
		l.relayEnd(ex)
	case ex.state == exBody:
		l.cutShort(ex, err)
	case u.reused && u.nread == 0 && isStaleConnErr(err) && !ex.retried:
		// A pooled connection the upstream had closed: once more, on a
		// new one, as the direct path does.
		ex.retried = true
		ex.up = nil
		u.pool.release(l, u, false)
		l.dial(ex)
	default:
		if err == io.EOF && u.nread > 0 {
			err = io.ErrUnexpectedEOF
		}
		l.fail(ex, fmt.Errorf("web: reverseproxy: upstream exchange: %w", err))
	}
}

// answer reads the answer's heads from the upstream's input, passes
// informational answers on, and relays the final one.
func (l *loop) answer(ex *exchange) {
	for ex.state == exAwaitHead {
		u := ex.up
		n := headEnd(u.in)
		if n == 0 {
			return
		}
		if err := readAnswer(u.in[:n], ex.method, &ex.ans); err != nil {
			l.fail(ex, fmt.Errorf("web: reverseproxy: upstream exchange: %w", err))
			return
		}
		u.consume(n)
		if !ex.ans.informational() {
			l.final(ex)
			break
		}
		if ex.n1xx++; ex.n1xx > upstreamMax1xx {
			l.fail(ex, fmt.Errorf("web: reverseproxy: more than %d informational responses from upstream", upstreamMax1xx))
			return
		}
		if !l.send(ex.cl, appendAnswerHead(l.scratch[:0], &ex.ans, &clientHead{})) {
			return
		}
	}
	if ex.state == exBody {
		l.relay(ex)
	}
}

// final begins relaying the final answer, whose head ex.ans holds.
func (l *loop) final(ex *exchange) {
	ex.state, ex.deadline, ex.status = exBody, 0, ex.ans.code
	ex.left = ex.ans.length
	ex.sniff = needsSniff(&ex.ans)
}

// relay relays what the upstream's input holds of the answer's body to
// the client, with the client's head first; then pauses the upstream if
// the client's output is full, or ends the exchange with the body.
func (l *loop) relay(ex *exchange) {
	c := ex.cl
	for {
		before := len(ex.up.in)
		out, done, err := l.relayBody(ex, l.scratch[:0])
		l.scratch = out[:0]
		if len(out) > 0 && !l.send(c, out) {
			return // c is closed, and ex aborted with it
		}
		switch {
		case err != nil:
			l.cutShort(ex, err)
			return
		case done:
			l.finish(ex, true)
			l.afterExchange(c)
			return
		case len(c.out) >= loopHighWater:
			ex.paused = true
			l.watchUp(ex.up, 0)
			l.watch(c)
			return
		case len(ex.up.in) == before || len(ex.up.in) == 0:
			return // nothing more to relay until the upstream sends more
		}
	}
}

// relayBody appends to out what the upstream's input holds of the body,
// in the client's framing, and consumes it; done once the body is whole.
func (l *loop) relayBody(ex *exchange, out []byte) (_ []byte, done bool, err error) {
	u, a := ex.up, &ex.ans
	switch a.framing {
	case bodyNone:
		return l.appendClientHead(out, ex, nil, false), true, nil
	case bodyLength:
		avail := int(min(int64(len(u.in)), ex.left))
		if !ex.headSent {
			if ex.sniff && int64(avail) < min(sniffLen, a.length) {
				return out, false, nil // h1 sniffs the body's first bytes
			}
			out = l.appendClientHead(out, ex, u.in[:avail], false)
		}
		out = append(out, u.in[:avail]...)
		u.consume(avail)
		ex.left -= int64(avail)
		return out, ex.left == 0, nil
	case bodyChunked:
		return l.relayChunks(ex, out)
	}
	if len(u.in) > 0 { // bodyToClose: its end is the connection's (relayEnd)
		if !ex.headSent {
			out = l.appendClientHead(out, ex, u.in, true)
		}
		out = appendChunk(out, u.in)
		u.consume(len(u.in))
	}
	return out, false, nil
}

// relayChunks decodes the chunks in the upstream's input and appends
// them as the client's chunks, then the trailer section, to out.
func (l *loop) relayChunks(ex *exchange, out []byte) ([]byte, bool, error) {
	u, pos := ex.up, 0
	defer func() { u.consume(pos) }()
	for len(out) < loopHighWater {
		n, data, err := ex.chunks.next(u.in[pos:])
		if err != nil {
			return out, false, err
		}
		if n == 0 {
			break
		}
		pos += n
		if len(data) > 0 {
			if !ex.headSent {
				out = l.appendClientHead(out, ex, data, true)
			}
			out = appendChunk(out, data)
		}
		if ex.chunks.done() {
			return l.appendBodyEnd(out, ex, ex.chunks.trailer), true, nil
		}
	}
	return out, false, nil
}

// appendBodyEnd appends the end of a body of unknown length: the last
// chunk and trailers, or a head with "Content-Length: 0" when no byte
// of it came (as h1 finishes an answer whose handler wrote nothing).
func (l *loop) appendBodyEnd(out []byte, ex *exchange, trailer http.Header) []byte {
	if !ex.headSent && len(ex.ans.trailers) == 0 && len(trailer) == 0 {
		return l.appendClientHead(out, ex, nil, false)
	}
	if !ex.headSent {
		out = l.appendClientHead(out, ex, nil, true)
	}
	return appendLastChunk(out, ex.ans.trailers, trailer)
}

// relayEnd ends an answer whose body ended with the upstream's
// connection.
func (l *loop) relayEnd(ex *exchange) {
	out := l.appendBodyEnd(l.scratch[:0], ex, nil)
	c := ex.cl
	l.finish(ex, false)
	if l.send(c, out) {
		l.afterExchange(c)
	}
}

// appendClientHead appends the client's answer head, body being the
// body's first bytes (for a sniffed Content-Type): chunked, or with the
// upstream's Content-Length, or "Content-Length: 0" for a body of
// unknown length that turned out empty (chunked false, body nil).
func (l *loop) appendClientHead(out []byte, ex *exchange, body []byte, chunked bool) []byte {
	ex.headSent = true
	h := clientHead{chunked: chunked, close: ex.cl.closeAfter, date: l.dateValue()}
	h.emptyLength = !chunked && ex.ans.framing != bodyLength && ex.ans.framing != bodyNone
	if ex.sniff && len(body) > 0 {
		h.contentType = http.DetectContentType(body[:min(len(body), sniffLen)])
	}
	return appendAnswerHead(out, &ex.ans, &h)
}

// resume reads the upstream again once the client's output drained;
// false when the client is closed.
func (l *loop) resume(ex *exchange) bool {
	if !ex.paused {
		return true
	}
	ex.paused = false
	u := ex.up
	if u.events == ^uint32(0) { // taken out at a hang-up
		u.events = epoll.In | epoll.RDHup
		if err := l.poll.Add(u.fd, u.events, u.tag); err != nil {
			l.cutShort(ex, err)
			return true
		}
	} else {
		l.watchUp(u, epoll.In|epoll.RDHup)
	}
	c := ex.cl
	l.relay(ex)
	return !c.gone && l.closeIfDone(c)
}

// fail answers ex's request with the error answer of err, before any of
// the final answer went out: 502 or 504 with a short JSON body, logged,
// as the direct path does (ReverseProxy.serveError).
func (l *loop) fail(ex *exchange, err error) {
	c := ex.cl
	status, body := ex.route.proxy.upstreamFailed(context.Background(), ex.method, ex.path, err)
	ex.status = status
	out := appendSmallJSON(l.scratch[:0], status, body, ex.method == http.MethodHead,
		&clientHead{close: c.closeAfter, date: l.dateValue()})
	l.finish(ex, false)
	if l.send(c, out) {
		l.afterExchange(c)
	}
}

// cutShort ends an answer the upstream broke off: the client's
// connection closes once what was relayed is written, so that it cannot
// take the answer for whole.
func (l *loop) cutShort(ex *exchange, err error) {
	c := ex.cl
	ex.route.proxy.log.LogAttrs(context.Background(), slog.LevelDebug, "web: reverseproxy: answer cut short",
		slog.String("path", ex.path), slog.String("error", err.Error()))
	c.closeAfter = true
	l.finish(ex, false)
	l.afterExchange(c)
}

// finish ends ex: it is counted, and its upstream connection goes back to
// the pool (reuse, when the answer allows it) or is closed.
func (l *loop) finish(ex *exchange, reuse bool) {
	if obs := ex.route.observe; obs != nil {
		obs(ex.status, time.Duration(l.now-ex.start))
	}
	if u := ex.up; u != nil {
		ex.up = nil
		u.pool.release(l, u, reuse && !ex.ans.close && !ex.paused)
	}
	ex.state = exDone
	ex.cl.ex = nil
}

// abort ends ex for a client that went away: the upstream connection is
// closed (or the dial canceled).
func (l *loop) abort(ex *exchange) {
	if ex.cancelDial != nil {
		ex.cancelDial()
		ex.cancelDial = nil
	}
	if !ex.answering() {
		ex.status = 0 // no answer: counted as none
	}
	l.finish(ex, false)
}

// afterExchange moves c on after an exchange: closed once its output is
// written when it asked for that, else on to its next request.
func (l *loop) afterExchange(c *client) {
	if c.gone {
		return
	}
	if c.closeAfter {
		if len(c.out) == 0 {
			l.closeClient(c)
			return
		}
		l.watch(c)
		return
	}
	l.setDeadline(c, l.e.idle, false)
	if l.next(c) {
		l.watch(c)
	}
}

// sweepExchange answers 504 for an answer whose head is late.
func (l *loop) sweepExchange(ex *exchange) {
	if ex.state == exAwaitHead && ex.deadline != 0 && l.now >= ex.deadline {
		l.fail(ex, fmt.Errorf("web: reverseproxy: upstream exchange: %w", os.ErrDeadlineExceeded))
	}
}
