package web

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/epoll"
	"github.com/junction-wamp/junction/internal/web/h1"
)

// loopEngine is the "loop" engine (EngineLoop): event loops, each a
// goroutine locked to its OS thread with an epoll instance, that serve
// the plain proxied GET and HEAD requests themselves, and an h1.Server
// for everything else. See ServerOptions.Engine.
//
// The engine's listener is accepted from by the h1 server (so that its
// accept retries, tracking and shutdown are h1's) through a loopListener,
// which takes each connection it can out of Go's netpoller into a loop
// (round robin) and passes the others (TLS, wrapped ones) to h1 as they
// are. A loop reads each request head itself; a request it does not
// serve (see parseLoopRequest and ProxyRouter) hands the connection to
// h1 for good, with the bytes read, at that request's start.
type loopEngine struct {
	h1     *h1.Server
	router ProxyRouter // nil: everything goes to h1
	n      int         // loops
	// readHeader and idle are the h1 server's ReadHeaderTimeout and
	// IdleTimeout, which the loops keep too.
	readHeader, idle time.Duration
	log              *slog.Logger

	handoffs    *handoffQueue
	accepting   sync.WaitGroup // the loopListeners' accept goroutines
	dials       sync.WaitGroup // the upstream dials under way
	dialCtx     context.Context
	cancelDials context.CancelFunc

	startOnce sync.Once
	loops     []*loop // set once by start
	running   sync.WaitGroup
	next      atomic.Uint32
	shutting  atomic.Bool
	stopOnce  sync.Once
}

var _ engine = (*loopEngine)(nil)

// newLoopEngine returns the engine of n loops (0: DefaultLoops) over
// srv, routing with router (nil: none, every request goes to srv).
func newLoopEngine(srv *h1.Server, router ProxyRouter, n int) *loopEngine {
	if n <= 0 {
		n = DefaultLoops()
	}
	e := &loopEngine{h1: srv, router: router, n: n, readHeader: srv.ReadHeaderTimeout, idle: srv.IdleTimeout,
		log: srv.Logger, handoffs: newHandoffQueue()}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.dialCtx, e.cancelDials = context.WithCancel(context.Background())
	return e
}

// DefaultLoops is the loop engine's default number of loops: one per two
// CPUs the Go scheduler uses (GOMAXPROCS), at least one, so that the
// loops' threads leave the rest of the node (the router, the requests
// handed to h1) CPUs of its own. On two cores one loop served as much as
// two alone, and a third more than two beside busy goroutines
// (BenchmarkLoopEngine).
func DefaultLoops() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// start starts the loops, once; a loop that cannot start (no epoll) is
// logged, and its connections stay with h1.
func (e *loopEngine) start() {
	e.startOnce.Do(func() {
		if e.router == nil {
			return
		}
		for range e.n {
			l, err := newLoop(e)
			if err != nil {
				e.log.Warn("web: loop engine: cannot start a loop; h1 serves its share", "error", err)
				continue
			}
			e.loops = append(e.loops, l)
			e.running.Add(1)
			go l.run()
		}
	})
}

// started returns the loops once start is done, and makes sure none
// start later: called by Shutdown and Close, which may run before Serve.
func (e *loopEngine) started() []*loop {
	e.startOnce.Do(func() {})
	return e.loops
}

// Serve serves l (see loopEngine) until Shutdown or Close.
func (e *loopEngine) Serve(l net.Listener) error {
	if e.shutting.Load() {
		return http.ErrServerClosed
	}
	e.start()
	ll := newLoopListener(e, l)
	err := e.h1.Serve(ll)
	_ = ll.Close()
	return err
}

// take takes c, a connection just accepted on l, into a loop, and
// reports whether it did: false leaves c to h1.
func (e *loopEngine) take(l net.Listener, c net.Conn) bool {
	if len(e.loops) == 0 || e.shutting.Load() {
		return false
	}
	inner, release := c, func() {}
	if d, ok := l.(Detacher); ok {
		in, rel, err := d.Detach(c)
		if err != nil {
			return false
		}
		inner, release = in, rel
	} else if _, ok := c.(*net.TCPConn); !ok {
		return false
	}
	fd, err := epoll.Take(inner)
	if err != nil {
		return false
	}
	nc := newConn{fd: fd, release: release, ip: remoteIP(c), port: localPort(c)}
	_ = inner.Close() // the loop has the duplicate; c stays counted in until release
	lp := e.loops[e.next.Add(1)%uint32(len(e.loops))]
	if !lp.postConn(nc) {
		release()
		epoll.Close(fd)
	}
	return true
}

// engineLoops is the number of loops of e, a *loopEngine.
func engineLoops(e engine) int {
	if le, ok := e.(*loopEngine); ok {
		return le.n
	}
	return 0
}

// remoteIP is the IP address of c's client, "" when it has none (a Unix
// socket), as ReverseProxy.forwarding finds it.
func remoteIP(c net.Conn) string {
	ip, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return ""
	}
	return ip
}

// localPort is the port c arrived on, "" when it has none.
func localPort(c net.Conn) string {
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		return strconv.Itoa(a.Port)
	}
	return ""
}

// RegisterOnShutdown registers f with the h1 server, which runs it when
// Shutdown starts.
func (e *loopEngine) RegisterOnShutdown(f func()) { e.h1.RegisterOnShutdown(f) }

// Shutdown stops accepting, has the loops close their idle connections
// and answer the requests under way (with "Connection: close"), and
// waits for their connections and h1's to end, or ctx; then the loops
// stop. With ctx's error, call Close.
func (e *loopEngine) Shutdown(ctx context.Context) error {
	e.shutting.Store(true)
	for _, l := range e.started() {
		l.wake()
	}
	h1Done := make(chan error, 1)
	go func() { h1Done <- e.h1.Shutdown(ctx) }()
	err := e.waitLoops(ctx)
	if herr := <-h1Done; err == nil {
		err = herr
	}
	if err == nil {
		e.stop()
	}
	return err
}

// waitLoops polls the loops until none has a connection left, or ctx
// ends, as h1.Server.Shutdown polls its own.
func (e *loopEngine) waitLoops(ctx context.Context) error {
	poll := time.Millisecond
	t := time.NewTimer(poll)
	defer t.Stop()
	for {
		if e.loopConns() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			poll = min(2*poll, 100*time.Millisecond)
			t.Reset(poll)
		}
	}
}

// loopConns is the number of client connections the loops hold.
func (e *loopEngine) loopConns() int {
	n := 0
	for _, l := range e.loops {
		n += int(l.clientCount.Load())
	}
	return n
}

// Close closes every connection at once, the loops' and h1's, and stops
// the loops.
func (e *loopEngine) Close() error {
	e.shutting.Store(true)
	e.started()
	err := e.h1.Close()
	e.stop()
	return err
}

// stop stops the loops (each closes what it holds) and waits for them,
// the dials and the accept goroutines; then closes what was handed off
// and not accepted.
func (e *loopEngine) stop() {
	e.stopOnce.Do(func() {
		e.cancelDials()
		for _, l := range e.loops {
			l.stop()
		}
		e.running.Wait()
		e.dials.Wait()
		e.accepting.Wait()
		e.handoffs.closeAll()
	})
}

// loopEngineOf returns the engine of EngineLoop over srv: the loops, or
// srv alone when they would serve nothing (TLS, the access log, a
// handler that routes no proxy).
func loopEngineOf(srv *h1.Server, opts ServerOptions) (engine, error) {
	router, ok := opts.Handler.(ProxyRouter)
	if !ok || opts.TLS != nil || opts.AccessLog {
		return srv, nil
	}
	if opts.Loops < 0 {
		return nil, fmt.Errorf("%w: loops %d: must be >= 0", ErrBadOption, opts.Loops)
	}
	return newLoopEngine(srv, router, opts.Loops), nil
}
