package web

import (
	"net/url"
	"syscall"
	"time"

	"github.com/junction-wamp/junction/internal/dotsegment"
	"github.com/junction-wamp/junction/internal/epoll"
)

// client is a client connection of a loop, between requests or with one
// exchange under way (requests are answered in order, one at a time).
type client struct {
	fd       int
	tag      int32
	slot     int // its index in loop.clients
	release  func()
	ip, port string

	in     []byte // read, not consumed
	out    []byte // to write; nil when empty
	events uint32 // what the descriptor is watched for

	req loopRequest
	ex  *exchange // the exchange under way; nil between requests
	x   exchange  // ex's memory

	// deadline is when the connection is closed unless something
	// happens first (the read header timeout while a head arrives, the
	// idle timeout between requests); 0: none.
	deadline int64
	heading  bool // deadline is the read header timeout's
	eof      bool // the client closed its writing side
	// closeAfter closes the connection once its answer is written.
	closeAfter bool
	// handOff hands the connection to h1 once its output is written.
	handOff bool
	gone    bool // closed or handed off: the loop is done with it
}

// maxClientIn bounds what a client's input holds while an exchange is
// under way (pipelined requests); past it, the loop stops reading.
const maxClientIn = maxLoopHead + 4<<10

// addClient takes a new client connection.
func (l *loop) addClient(nc newConn) {
	c := &client{fd: nc.fd, release: nc.release, ip: nc.ip, port: nc.port, events: epoll.In | epoll.RDHup}
	tag, ok := l.register(c.fd, c.events, fdOwner{cl: c})
	if !ok {
		c.release()
		epoll.Close(c.fd)
		return
	}
	c.tag = tag
	c.slot = len(l.clients)
	l.clients = append(l.clients, c)
	l.clientCount.Add(1)
	if l.shutting {
		l.closeClient(c)
		return
	}
	l.setDeadline(c, l.e.readHeader, true) // from the accept, as h1
}

// setDeadline sets c's deadline d from now (none for d 0); heading says
// it is the read header timeout's.
func (l *loop) setDeadline(c *client, d time.Duration, heading bool) {
	c.heading = heading
	c.deadline = 0
	if d > 0 {
		c.deadline = l.now + int64(d)
	}
}

// clientEvent handles an event of c's descriptor.
func (l *loop) clientEvent(c *client, events uint32) {
	if events&(epoll.Hup|epoll.Err) != 0 {
		l.closeClient(c) // reset, or closed both ways: nothing can be written
		return
	}
	if events&epoll.Out != 0 && (!l.flush(c) || c.gone) {
		return
	}
	if events&(epoll.In|epoll.RDHup|epoll.Hup|epoll.Err) != 0 && c.events&epoll.In != 0 {
		if !l.read(c) {
			return
		}
	}
	l.afterIO(c)
}

// read reads what c sent; false when c is closed.
func (l *loop) read(c *client) bool {
	room := maxClientIn - len(c.in)
	if room <= 0 {
		return true // full: watch stops the reads (a read of nothing would look like the end)
	}
	n, err := epoll.Read(c.fd, l.rbuf[:min(room, len(l.rbuf))])
	switch {
	case err == syscall.EAGAIN:
		return true
	case err != nil:
		l.closeClient(c)
		return false
	case n == 0:
		c.eof = true
		return true
	}
	c.in = append(c.in, l.rbuf[:n]...)
	return true
}

// afterIO moves c on after its I/O: the next request when between
// requests, the end of an exchange that the client's going away
// interrupts; then what its descriptor is watched for.
func (l *loop) afterIO(c *client) {
	switch {
	case c.gone:
		return
	case c.ex != nil:
		if c.eof && !c.ex.answering() {
			l.closeClient(c) // the client went away before its answer began
			return
		}
	case c.handOff:
		if len(c.out) == 0 {
			l.handOff(c)
			return
		}
	case c.closeAfter:
		if len(c.out) == 0 {
			l.closeClient(c)
			return
		}
	default:
		if !l.next(c) {
			return
		}
	}
	l.watch(c)
}

// next starts on c's next request, if its head is in; false when c was
// closed or handed off.
func (l *loop) next(c *client) bool {
	if len(c.in) == 0 {
		if c.eof {
			l.closeClient(c)
			return false
		}
		return true
	}
	switch parseLoopRequest(c.in, &c.req) {
	case headIncomplete:
		if c.eof {
			l.closeClient(c) // as h1: a head cut short gets no answer
			return false
		}
		if !c.heading {
			l.setDeadline(c, l.e.readHeader, true) // from its first byte
		}
		return true
	case headServe:
		if route, rest, decoded, ok := l.route(&c.req); ok {
			l.begin(c, route, rest, decoded)
			return !c.gone && l.closeIfDone(c)
		}
	}
	if l.shutting {
		l.closeClient(c) // h1 takes nothing more: as h1 does with a new request then
		return false
	}
	if len(c.out) > 0 {
		c.handOff = true // once the answers before it are out
		return true
	}
	l.handOff(c)
	return false
}

// closeIfDone closes c if it is done (its last answer written); it
// reports whether c is open.
func (l *loop) closeIfDone(c *client) bool {
	if c.closeAfter && c.ex == nil && len(c.out) == 0 {
		l.closeClient(c)
		return false
	}
	return true
}

// route finds the proxy of req, and the path below its mount point,
// escaped (rest) and decoded, when the loop serves it: a reverse proxy of
// its own TCP connections, and a path that cannot climb out of its Path.
func (l *loop) route(req *loopRequest) (route ProxyRoute, rest, decoded string, ok bool) {
	route, rest, ok = l.e.router.RouteProxy(req.path)
	if !ok {
		return ProxyRoute{}, "", "", false
	}
	decoded, err := url.PathUnescape(rest)
	if err != nil || dotsegment.Check(decoded) != nil {
		return ProxyRoute{}, "", "", false // the proxy answers 400
	}
	return route, rest, decoded, true
}

// watch makes c's descriptor watched for what c waits for: input while
// it has room and the client has not closed its side, output while some
// is pending.
func (l *loop) watch(c *client) {
	if c.gone {
		return
	}
	var ev uint32
	if !c.eof && len(c.in) < maxClientIn && !c.handOff {
		ev |= epoll.In | epoll.RDHup
	}
	if len(c.out) > 0 {
		ev |= epoll.Out
	}
	if ev != c.events {
		c.events = ev
		_ = l.poll.Mod(c.fd, ev, c.tag)
	}
}

// send writes b to c, or what it takes of it now, keeping the rest in
// c.out; false when c is gone (closed).
func (l *loop) send(c *client, b []byte) bool {
	if len(c.out) > 0 {
		c.out = append(c.out, b...)
		return true
	}
	n, err := epoll.Write(c.fd, b)
	if err != nil && err != syscall.EAGAIN {
		l.closeClient(c)
		return false
	}
	if n < len(b) {
		c.out = append(c.out, b[n:]...)
	}
	return true
}

// flush writes what c.out holds; false when c is gone (closed). Below
// the low-water mark, a paused upstream is read again.
func (l *loop) flush(c *client) bool {
	n, err := epoll.Write(c.fd, c.out)
	if err != nil && err != syscall.EAGAIN {
		l.closeClient(c)
		return false
	}
	c.out = c.out[n:]
	if len(c.out) == 0 {
		c.out = nil
	}
	if c.ex != nil && len(c.out) < loopLowWater {
		return l.resume(c.ex)
	}
	return true
}

// consume drops the first n bytes of c's input, keeping its buffer.
func (c *client) consume(n int) {
	c.in = c.in[:copy(c.in, c.in[n:])]
}

// closeClient closes c, and aborts its exchange (the client went away,
// or the loop stops).
func (l *loop) closeClient(c *client) {
	if c.gone {
		return
	}
	if c.ex != nil {
		l.abort(c.ex)
	}
	l.forget(c)
	c.release() // first, as connlimit's Close: a client that saw the close finds the slot free
	epoll.Close(c.fd)
}

// forget takes c out of the loop (before it is closed or handed off).
func (l *loop) forget(c *client) {
	c.gone = true
	l.unregister(c.fd)
	last := l.clients[len(l.clients)-1]
	l.clients[c.slot] = last
	last.slot = c.slot
	l.clients = l.clients[:len(l.clients)-1]
	l.clientCount.Add(-1)
}

// handOff gives c to h1 for good, with what it read and did not consume:
// at the start of a request, nothing of which was answered.
func (l *loop) handOff(c *client) {
	l.forget(c)
	l.e.handoffs.put(handoff{fd: c.fd, pending: c.in, release: c.release})
}

// sweepClient closes c when its deadline passed, and ends its exchange
// when the upstream's answer is late.
func (l *loop) sweepClient(c *client) {
	if c.ex != nil {
		l.sweepExchange(c.ex)
		return
	}
	if c.deadline != 0 && l.now >= c.deadline {
		l.closeClient(c) // as h1: nothing is said
	}
}

// shutdown closes the idle clients: no exchange, nothing read or to
// write; the others close after their answer.
func (l *loop) shutdown() {
	for i := 0; i < len(l.clients); {
		c := l.clients[i]
		if c.ex == nil && len(c.in) == 0 && len(c.out) == 0 {
			l.closeClient(c) // moves the last client to slot i
			continue
		}
		if c.ex != nil || len(c.out) > 0 {
			c.closeAfter = true // a head still arriving is read, and answered with "Connection: close"
		}
		i++
	}
}
