package web

import (
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/epoll"
)

// loop is one event loop of the loop engine: a goroutine locked to its OS
// thread (run) that owns an epoll instance, its client connections and
// its upstream connections, and touches them alone. Other goroutines
// talk to it through its inbox (mu) and wake it through the Poller.
type loop struct {
	e    *loopEngine
	poll *epoll.Poller

	mu       sync.Mutex // guards the inbox and stopped
	conns    []newConn
	dialed   []dialResult
	idleOf   []*ReverseProxy // proxies whose idle connections to close
	stopped  bool
	stopping atomic.Bool

	// clientCount is the number of client connections, for Shutdown.
	clientCount atomic.Int32

	// The loop's own, touched by run only.
	fds       []fdOwner // by descriptor
	gen       int32     // the tag of the last descriptor added
	clients   []*client
	pools     map[*ReverseProxy]*loopPool
	events    []epoll.Event
	rbuf      []byte // what reads read into
	scratch   []byte // what answers are made in
	now       int64  // Unix nanoseconds, read once per wait
	nextSweep int64
	dateSec   int64
	date      []byte
	shutting  bool // the engine's shutdown was seen
}

// fdOwner is what a descriptor of the loop belongs to: a client or an
// upstream connection, with the tag its events carry.
type fdOwner struct {
	tag int32
	cl  *client
	up  *upConn
}

// newConn is a client connection given to a loop.
type newConn struct {
	fd       int
	release  func()
	ip, port string
}

// dialResult is the end of a dial made for an exchange.
type dialResult struct {
	ex  *exchange
	gen uint32 // ex's generation when the dial began
	fd  int
	err error
}

// Sizes of the loop's buffers and its sweep.
const (
	loopReadSize  = 64 << 10
	loopSweep     = 250 * time.Millisecond
	loopMaxEvents = 256
	// loopHighWater is the client output a loop holds before it stops
	// reading the upstream (backpressure); it reads again once the output
	// is below loopLowWater.
	loopHighWater = 256 << 10
	loopLowWater  = 64 << 10
)

func newLoop(e *loopEngine) (*loop, error) {
	p, err := epoll.New()
	if err != nil {
		return nil, err
	}
	return &loop{e: e, poll: p, pools: make(map[*ReverseProxy]*loopPool),
		events: make([]epoll.Event, loopMaxEvents), rbuf: make([]byte, loopReadSize)}, nil
}

// post runs add (which appends to the inbox) under the inbox's lock and
// wakes the loop; false, without add, once the loop stopped.
func (l *loop) post(add func()) bool {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return false
	}
	add()
	l.mu.Unlock()
	l.poll.Wake()
	return true
}

// postConn gives the loop a client connection; false once it stopped.
func (l *loop) postConn(c newConn) bool {
	return l.post(func() { l.conns = append(l.conns, c) })
}

// postDial gives the loop the end of a dial; false once it stopped.
func (l *loop) postDial(d dialResult) bool {
	return l.post(func() { l.dialed = append(l.dialed, d) })
}

// closeIdleOf has the loop close its idle connections to p's upstream.
func (l *loop) closeIdleOf(p *ReverseProxy) {
	l.post(func() { l.idleOf = append(l.idleOf, p) })
}

// wake makes the loop look at the engine's state.
func (l *loop) wake() { l.poll.Wake() }

// stop makes the loop close everything and end.
func (l *loop) stop() {
	l.stopping.Store(true)
	l.poll.Wake()
}

// run is the loop's goroutine.
func (l *loop) run() {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	defer l.e.running.Done()
	defer l.closeAll()
	l.now = time.Now().UnixNano()
	l.nextSweep = l.now + int64(loopSweep)
	for {
		timeout := -1
		if len(l.clients) > 0 || len(l.pools) > 0 {
			timeout = int(loopSweep / time.Millisecond)
		}
		n, woken, err := l.poll.Wait(l.events, timeout)
		l.now = time.Now().UnixNano()
		if err != nil {
			l.e.log.Error("web: loop engine: epoll_wait failed; the loop's connections are closed", "error", err)
			return
		}
		if woken && !l.inbox() {
			return
		}
		for i := range n {
			l.dispatch(&l.events[i])
		}
		if l.now >= l.nextSweep {
			l.nextSweep = l.now + int64(loopSweep)
			l.sweep()
		}
	}
}

// inbox takes what other goroutines posted; false when the loop is to
// stop.
func (l *loop) inbox() bool {
	if l.stopping.Load() {
		return false
	}
	l.mu.Lock()
	conns, dialed, idleOf := l.conns, l.dialed, l.idleOf
	l.conns, l.dialed, l.idleOf = nil, nil, nil
	l.mu.Unlock()
	for _, c := range conns {
		l.addClient(c)
	}
	for _, d := range dialed {
		l.dialDone(d)
	}
	for _, p := range idleOf {
		if pool := l.pools[p]; pool != nil {
			pool.closeIdle(l)
		}
	}
	if l.e.shutting.Load() && !l.shutting {
		l.shutting = true
		l.shutdown()
	}
	return true
}

// dispatch handles one event.
func (l *loop) dispatch(ev *epoll.Event) {
	fd := epoll.FD(ev)
	if fd >= len(l.fds) {
		return
	}
	o := l.fds[fd]
	if o.tag != epoll.Tag(ev) {
		return // a descriptor closed (and maybe reused) since the wait
	}
	switch {
	case o.cl != nil:
		l.clientEvent(o.cl, ev.Events)
	case o.up != nil:
		l.upstreamEvent(o.up, ev.Events)
	}
}

// register adds fd, owned by o, to the epoll instance, watched for
// events; it returns the tag, and false when the instance refuses it.
func (l *loop) register(fd int, events uint32, o fdOwner) (int32, bool) {
	l.gen++
	if l.gen < 0 {
		l.gen = 1
	}
	o.tag = l.gen
	for fd >= len(l.fds) {
		l.fds = append(l.fds, make([]fdOwner, len(l.fds)+64)...)
	}
	if err := l.poll.Add(fd, events, o.tag); err != nil {
		return 0, false
	}
	l.fds[fd] = o
	return o.tag, true
}

// unregister removes fd from the instance and the table (before it is
// closed or handed off).
func (l *loop) unregister(fd int) {
	_ = l.poll.Del(fd)
	l.fds[fd] = fdOwner{}
}

// sweep enforces the timeouts: the clients' head and idle timeouts, the
// upstreams' answer timeout, the pools' idle timeout.
func (l *loop) sweep() {
	for i := 0; i < len(l.clients); {
		c := l.clients[i]
		l.sweepClient(c)
		if i < len(l.clients) && l.clients[i] == c {
			i++
		}
	}
	for _, pool := range l.pools {
		pool.expire(l)
	}
}

// dateValue is the Date field of the current second, formatted once a
// second.
func (l *loop) dateValue() []byte {
	if sec := l.now / int64(time.Second); sec != l.dateSec || l.date == nil {
		l.dateSec = sec
		l.date = time.Unix(sec, 0).UTC().AppendFormat(l.date[:0], http.TimeFormat)
	}
	return l.date
}

// closeAll closes every connection the loop holds, and the loop: its
// inbox refuses from now on.
func (l *loop) closeAll() {
	l.mu.Lock()
	l.stopped = true
	conns, dialed := l.conns, l.dialed
	l.conns, l.dialed = nil, nil
	l.mu.Unlock()
	for _, c := range conns {
		c.release()
		epoll.Close(c.fd)
	}
	for _, d := range dialed {
		if d.err == nil {
			epoll.Close(d.fd)
		}
	}
	for len(l.clients) > 0 {
		l.closeClient(l.clients[len(l.clients)-1])
	}
	for p, pool := range l.pools {
		pool.closeIdle(l)
		p.loops.remove(l)
	}
	l.poll.Close()
}
