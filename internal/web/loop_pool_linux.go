package web

import (
	"github.com/junction-wamp/junction/internal/epoll"
)

// upConn is a loop's connection to an upstream: in an exchange (ex), or
// idle in its pool.
type upConn struct {
	fd        int
	tag       int32
	pool      *loopPool
	in        []byte // read, not consumed (its capacity is the buffer)
	out       []byte // the part of the request head still to write
	events    uint32
	ex        *exchange // nil while idle
	reused    bool      // it served an exchange before this one
	nread     int64     // bytes read in the current exchange
	idleSince int64
}

// upBufSize is the initial size of an upstream connection's buffer; it
// grows for a longer answer head, up to upstreamMaxHeaderBytes.
const upBufSize = 16 << 10

// consume drops the first n bytes of u's input, keeping its buffer.
func (u *upConn) consume(n int) {
	u.in = u.in[:copy(u.in, u.in[n:])]
}

// loopPool is a loop's idle connections to one proxy's upstream, oldest
// first, at most upstreamMaxIdle, each for at most upstreamIdleTimeout,
// as the direct path keeps its own (upstreamConns).
type loopPool struct {
	proxy  *ReverseProxy
	idle   []*upConn
	inUse  int  // connections in exchanges
	closed bool // the proxy's Shutdown closed it: put closes
}

// poolOf returns the loop's pool of p's upstream, made (and registered
// with p, whose Shutdown closes it) on first use.
func (l *loop) poolOf(p *ReverseProxy) *loopPool {
	pool := l.pools[p]
	if pool == nil {
		pool = &loopPool{proxy: p}
		l.pools[p] = pool
		p.loops.add(l, func() { l.closeIdleOf(p) })
	}
	pool.closed = false
	return pool
}

// get takes the most recently used idle connection, nil when there is
// none that is not expired.
func (pool *loopPool) get(l *loop) *upConn {
	n := len(pool.idle)
	if n == 0 {
		return nil
	}
	u := pool.idle[n-1]
	if l.now-u.idleSince >= int64(upstreamIdleTimeout) {
		pool.closeIdle(l) // the newest is expired, so all are
		return nil
	}
	pool.idle[n-1] = nil
	pool.idle = pool.idle[:n-1]
	pool.inUse++
	u.reused = true
	return u
}

// add makes a connection of fd, a new one in an exchange; nil when the
// epoll instance refuses it (fd is closed then).
func (pool *loopPool) add(l *loop, fd int) *upConn {
	u := &upConn{fd: fd, pool: pool, in: make([]byte, 0, upBufSize), events: epoll.In | epoll.RDHup}
	tag, ok := l.register(fd, u.events, fdOwner{up: u})
	if !ok {
		epoll.Close(fd)
		return nil
	}
	u.tag = tag
	pool.inUse++
	return u
}

// release ends u's exchange: u goes back to the pool when reuse is true
// and nothing unrequested came, or is closed.
func (pool *loopPool) release(l *loop, u *upConn, reuse bool) {
	pool.inUse--
	u.ex = nil
	u.out = nil
	if !reuse || pool.closed || len(u.in) > 0 || len(pool.idle) >= upstreamMaxIdle {
		l.closeUp(u)
		pool.forgetIfUnused(l)
		return
	}
	u.idleSince = l.now
	pool.idle = append(pool.idle, u)
	l.watchUp(u, epoll.In|epoll.RDHup) // to notice the upstream closing it
}

// drop closes u, idle, which the upstream closed or sent to unasked.
func (pool *loopPool) drop(l *loop, u *upConn) {
	for i, x := range pool.idle {
		if x == u {
			pool.idle = append(pool.idle[:i], pool.idle[i+1:]...)
			break
		}
	}
	l.closeUp(u)
}

// expire closes the connections idle for upstreamIdleTimeout.
func (pool *loopPool) expire(l *loop) {
	i := 0
	for i < len(pool.idle) && l.now-pool.idle[i].idleSince >= int64(upstreamIdleTimeout) {
		l.closeUp(pool.idle[i])
		i++
	}
	if i > 0 {
		pool.idle = append(pool.idle[:0], pool.idle[i:]...)
	}
}

// closeIdle closes the idle connections, for the proxy's Shutdown; those
// in exchanges close at their end. An unused pool is forgotten.
func (pool *loopPool) closeIdle(l *loop) {
	for _, u := range pool.idle {
		l.closeUp(u)
	}
	pool.idle = nil
	pool.closed = true
	pool.forgetIfUnused(l)
}

// forgetIfUnused forgets a closed pool with no connection left, so that
// a proxy a reload replaced is not kept.
func (pool *loopPool) forgetIfUnused(l *loop) {
	if pool.closed && pool.inUse == 0 && len(pool.idle) == 0 {
		delete(l.pools, pool.proxy)
		pool.proxy.loops.remove(l)
	}
}

// closeUp closes u.
func (l *loop) closeUp(u *upConn) {
	l.unregister(u.fd)
	epoll.Close(u.fd)
}

// watchUp makes u's descriptor watched for events.
func (l *loop) watchUp(u *upConn, events uint32) {
	if events != u.events {
		u.events = events
		_ = l.poll.Mod(u.fd, events, u.tag)
	}
}
