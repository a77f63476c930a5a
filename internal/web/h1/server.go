package h1

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
)

// Server serves HTTP/1.1 on the listeners given to Serve. Set its fields
// before the first Serve; it is not reused after Shutdown or Close.
type Server struct {
	// Handler serves every request. Required.
	Handler http.Handler
	// ReadHeaderTimeout bounds the reading of a request's head, from its
	// first byte (from the accept for a connection's first request) to its
	// end; 0 means no bound. The handler runs without a deadline.
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds the wait for the next request on a kept-alive
	// connection; 0 means no bound. The deadline set for one wait serves
	// the waits that follow on the connection while it is at most
	// IdleTimeout/64 short of IdleTimeout from then: a connection is
	// closed after between 63/64 of IdleTimeout and IdleTimeout idle.
	IdleTimeout time.Duration
	// BodyTimeout bounds the wait for each part of a request body: a read
	// of the body that gets nothing from the client for this long fails
	// with an error wrapping ErrBodyTimeout and os.ErrDeadlineExceeded,
	// and the connection is closed after the answer; a body that keeps
	// arriving is never cut, however long it takes. It bounds what the
	// engine reads of a body the handler left unread too. 0 means no
	// bound. (A handler's own read deadline, set with
	// http.ResponseController, holds until its next read of the body.)
	BodyTimeout time.Duration
	// MaxHeaderBytes bounds a request's head (its request line and
	// header fields); 0 means http.DefaultMaxHeaderBytes. A larger head
	// gets 431.
	MaxHeaderBytes int
	// ConnContext, when set, derives the context of a connection's
	// requests from the engine's (which carries
	// http.LocalAddrContextKey).
	ConnContext func(ctx context.Context, c net.Conn) context.Context
	// ConnState, when set, is called as a connection changes state, with
	// the states of http.ConnState: StateNew at accept, StateActive when
	// a request's first byte arrives, StateIdle when its answer is written
	// and the connection waits for the next, StateHijacked or StateClosed
	// at its end. Called on the connection's goroutine.
	ConnState func(net.Conn, http.ConnState)
	// Logger receives handler panics (at error level) and accept and
	// handshake errors (at debug and warn levels); nil discards them.
	Logger *slog.Logger

	mu         sync.Mutex // guards the fields below
	listeners  map[*net.Listener]struct{}
	conns      map[*conn]struct{}
	onShutdown []func()

	shutting  atomic.Bool   // Shutdown or Close began: accept no more, keep nothing alive
	stop      chan struct{} // closed by the first Shutdown or Close
	stopOnce  sync.Once
	acceptLog lograte.Limit
}

// WatchDelay is how long a handler runs before the engine starts to watch
// its connection for the client going away (whose end cancels the
// request's context). A handler that answers sooner never pays for the
// watch: nearly every request of an API or a proxy, even on an overloaded
// machine, where a shorter delay would add the watch's work to the slow
// requests just when work hurts most (measured: 25 ms made the tail
// latency worse under overload). A long poll, a stream or a slow upstream
// is watched after a quarter of a second, soon enough for the work a
// cancellation saves.
const WatchDelay = 250 * time.Millisecond

// Serve accepts connections on l and serves each on its own goroutine,
// until Shutdown or Close (then it returns http.ErrServerClosed) or an
// accept error that is not temporary. Temporary errors (EMFILE when
// descriptors run out, ECONNABORTED) are retried after a pause that
// doubles from 5 ms to 1 s, logged at debug level at most once a second,
// as http.Server does (whose error log package web maps to debug; the
// web transport warns of accept errors itself): a burst of connections
// never stops the listener for good.
func (s *Server) Serve(l net.Listener) error {
	if !s.trackListener(&l, true) {
		return http.ErrServerClosed
	}
	defer s.trackListener(&l, false)
	var pause time.Duration
	for {
		rwc, err := l.Accept()
		if err != nil {
			if s.shutting.Load() {
				return http.ErrServerClosed
			}
			if !isTemporary(err) {
				return err
			}
			pause = nextPause(pause)
			s.logAcceptError(err, pause)
			if !s.wait(pause) {
				return http.ErrServerClosed
			}
			continue
		}
		pause = 0
		c := s.newConn(rwc)
		if c == nil {
			_ = rwc.Close()
			return http.ErrServerClosed
		}
		go c.serve()
	}
}

// isTemporary reports whether an accept error is worth retrying.
func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// nextPause doubles the pause after an accept error, from 5 ms to 1 s.
func nextPause(d time.Duration) time.Duration {
	if d == 0 {
		return 5 * time.Millisecond
	}
	return min(2*d, time.Second)
}

func (s *Server) logAcceptError(err error, pause time.Duration) {
	if s.acceptLog.Interval == 0 {
		s.mu.Lock()
		s.acceptLog.Interval = time.Second
		s.mu.Unlock()
	}
	if ok, held := s.acceptLog.Allow(); ok {
		s.logger().Debug("http: accept error; retrying", "error", err, "pause", pause, "suppressed", held)
	}
}

// wait pauses for d, or until Shutdown or Close; false means the latter.
func (s *Server) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.stopped():
		return false
	}
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// stopped is closed once Shutdown or Close starts.
func (s *Server) stopped() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop == nil {
		s.stop = make(chan struct{})
	}
	return s.stop
}

// trackListener adds or removes l; adding fails once the server stops.
func (s *Server) trackListener(l *net.Listener, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !add {
		delete(s.listeners, l)
		return true
	}
	if s.shutting.Load() {
		return false
	}
	if s.listeners == nil {
		s.listeners = make(map[*net.Listener]struct{})
	}
	s.listeners[l] = struct{}{}
	return true
}

// RegisterOnShutdown registers f to run, in its own goroutine, when
// Shutdown starts (to close hijacked connections, which Shutdown does not
// wait for).
func (s *Server) RegisterOnShutdown(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onShutdown = append(s.onShutdown, f)
}

// Shutdown stops accepting, closes idle connections and waits for the
// others to finish their request, polling as http.Server does; when ctx
// ends first it returns ctx's error and leaves them (call Close).
// Hijacked connections are not waited for.
func (s *Server) Shutdown(ctx context.Context) error {
	s.beginStop()
	s.mu.Lock()
	for _, f := range s.onShutdown {
		go f()
	}
	s.mu.Unlock()
	poll := time.Millisecond
	t := time.NewTimer(poll)
	defer t.Stop()
	for {
		if s.closeIdle() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			poll = min(2*poll, 500*time.Millisecond)
			t.Reset(poll)
		}
	}
}

// Close stops accepting and closes every connection at once, those in
// the middle of a request too; hijacked connections are their owners'.
func (s *Server) Close() error {
	s.beginStop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		_ = c.rwc.Close()
	}
	return nil
}

// beginStop marks the server stopping and closes its listeners.
func (s *Server) beginStop() {
	stop := s.stopped()
	s.stopOnce.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.shutting.Store(true)
		close(stop)
		for l := range s.listeners {
			_ = (*l).Close()
		}
	})
}

// newStateAge is how long a connection may stay new (no request byte yet)
// before Shutdown treats it as idle, as http.Server does.
const newStateAge = 5 * time.Second

// closeIdle closes the connections that wait for a request, forgets
// them (their goroutines end on their own, at once) and reports whether
// none is left.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		st, since := c.getState()
		if st == http.StateIdle || st == http.StateClosed || st == http.StateNew && time.Since(since) > newStateAge {
			_ = c.rwc.Close()
			delete(s.conns, c)
		}
	}
	return len(s.conns) == 0
}

// newConn registers a connection; nil once the server stops.
func (s *Server) newConn(rwc net.Conn) *conn {
	c := &conn{srv: s, rwc: rwc}
	c.setStateLocked(http.StateNew)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutting.Load() {
		return nil
	}
	if s.conns == nil {
		s.conns = make(map[*conn]struct{})
	}
	s.conns[c] = struct{}{}
	return c
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}
