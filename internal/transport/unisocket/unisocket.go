// Package unisocket serves several protocols on one listener, as
// Crossbar's universal transport does: each accepted connection goes to
// the route of the first byte its client sends (after the TLS handshake,
// when the listener speaks TLS), and the route's server reads the
// connection from that byte on. A route is a net.Listener, so that any
// server (net/http, RawSocket) serves it unchanged.
package unisocket

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
)

// DefaultPeekTimeout is Options.PeekTimeout when zero.
const DefaultPeekTimeout = 10 * time.Second

// Accept retry pauses after a failed Accept (out of descriptors), and the
// shortest time between two accept warnings.
const (
	minAcceptDelay    = 5 * time.Millisecond
	maxAcceptDelay    = time.Second
	acceptLogInterval = 5 * time.Second
)

// Options configures a Mux. The zero value is plain TCP with the default
// peek timeout and no log.
type Options struct {
	// TLS, when non-nil, makes the Mux do each connection's TLS handshake
	// before it reads the first byte; routes get the TLS connection.
	TLS *tls.Config
	// PeekTimeout closes a connection whose client has not finished its
	// TLS handshake and sent a first byte within it. 0 means
	// DefaultPeekTimeout.
	PeekTimeout time.Duration
	// Names name the protocols of first bytes for the log, routed or not
	// (0x10: "MQTT").
	Names map[byte]string
	// Logger gets the connections closed for want of a route (warn) and
	// the accept failures (warn, rate-limited); nil discards them.
	Logger *slog.Logger
}

// Mux dispatches the connections of one listener to routes by their first
// byte. Set the routes up (Route, Fallback) before Serve; Serve and Close
// may then be called from different goroutines.
type Mux struct {
	opts      Options
	log       *slog.Logger
	acceptLog lograte.Limit
	routes    map[byte]*route
	fallback  *route
	refused   map[byte]bool

	closing   chan struct{} // closed by Close
	closeOnce sync.Once
	mu        sync.Mutex
	ln        net.Listener          // the served listener, once Serve runs
	pending   map[net.Conn]struct{} // connections waiting for their first byte
}

// New returns a Mux without routes.
func New(opts Options) *Mux {
	if opts.PeekTimeout <= 0 {
		opts.PeekTimeout = DefaultPeekTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Mux{opts: opts, log: log, acceptLog: lograte.Limit{Interval: acceptLogInterval},
		routes: map[byte]*route{}, refused: map[byte]bool{}, closing: make(chan struct{}), pending: map[net.Conn]struct{}{}}
}

// Route returns the listener of the connections whose first byte is b.
func (m *Mux) Route(b byte) net.Listener {
	r := newRoute(m)
	m.routes[b] = r
	return r
}

// Fallback returns the listener of the connections whose first byte has
// no Route. Without it, such connections are closed and logged.
func (m *Mux) Fallback() net.Listener {
	m.fallback = newRoute(m)
	return m.fallback
}

// Refuse closes (and logs) the connections whose first byte is b, even
// with a Fallback: a protocol that is known but not served.
func (m *Mux) Refuse(b byte) { m.refused[b] = true }

// Serve accepts on l until l or the Mux is closed, dispatching each
// connection on a goroutine of its own. It retries failed accepts
// (EMFILE and the like) with a growing pause. When it returns, the routes
// are closed too, and so are the connections not yet dispatched.
func (m *Mux) Serve(l net.Listener) error {
	m.mu.Lock()
	m.ln = l
	m.mu.Unlock()
	select {
	case <-m.closing:
		l.Close()
	default:
	}
	defer m.Close()
	var delay time.Duration
	for {
		c, err := l.Accept()
		if err == nil {
			delay = 0
			m.track(c)
			go m.dispatch(c)
			continue
		}
		if delay, err = m.acceptFailed(err, delay); err != nil {
			return err
		}
	}
}

// acceptFailed pauses after a failed Accept and returns the next pause,
// or the error that ends Serve.
func (m *Mux) acceptFailed(err error, delay time.Duration) (time.Duration, error) {
	if errors.Is(err, net.ErrClosed) {
		return 0, err
	}
	delay = min(max(2*delay, minAcceptDelay), maxAcceptDelay)
	if ok, held := m.acceptLog.Allow(); ok {
		m.log.Warn("unisocket: accept failed, retrying", "err", err, "retry_in", delay, "failures_since_last_log", held)
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return delay, nil
	case <-m.closing:
		return 0, net.ErrClosed
	}
}

// Close closes the listener, the routes (their Accept returns
// net.ErrClosed) and the connections not yet dispatched. Connections
// already handed to a route belong to its server.
func (m *Mux) Close() error {
	m.closeOnce.Do(func() { close(m.closing) })
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	if m.ln != nil {
		if err = m.ln.Close(); errors.Is(err, net.ErrClosed) {
			err = nil
		}
	}
	for c := range m.pending {
		c.Close()
	}
	return err
}

// track adds c to the connections waiting for their first byte.
func (m *Mux) track(c net.Conn) {
	m.mu.Lock()
	m.pending[c] = struct{}{}
	m.mu.Unlock()
}

// untrack removes c from them; false when the Mux closed meanwhile (c is
// closed then).
func (m *Mux) untrack(c net.Conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pending, c)
	select {
	case <-m.closing:
		return false
	default:
		return true
	}
}

// dispatch reads c's first byte (after the TLS handshake) and hands c to
// its route.
func (m *Mux) dispatch(raw net.Conn) {
	c := raw
	if m.opts.TLS != nil {
		c = tls.Server(raw, m.opts.TLS)
	}
	_ = c.SetReadDeadline(time.Now().Add(m.opts.PeekTimeout))
	br := bufio.NewReaderSize(c, 16) // bufio's smallest: holds what came with the first byte
	first, err := br.Peek(1)
	if !m.untrack(raw) || err != nil {
		m.log.Debug("unisocket: connection closed before its first byte", "remote", raw.RemoteAddr().String(), "err", err)
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	r := m.routes[first[0]]
	if r == nil && !m.refused[first[0]] {
		r = m.fallback
	}
	if r == nil {
		m.log.Warn("unisocket: no protocol for the connection's first byte: closed", "remote", raw.RemoteAddr().String(),
			"first_byte", fmt.Sprintf("0x%02X", first[0]), "protocol", m.opts.Names[first[0]])
		c.Close()
		return
	}
	r.deliver(&Conn{Conn: c, r: br})
}

// Conn is a dispatched connection: its reads start with the first byte.
type Conn struct {
	net.Conn // a *tls.Conn with Options.TLS
	r        *bufio.Reader
}

// Read reads what the Mux read ahead, then from the connection.
func (c *Conn) Read(p []byte) (int, error) { return c.r.Read(p) }

// NetConn returns the connection under c: a *tls.Conn with Options.TLS
// (whose ConnectionState servers may want).
func (c *Conn) NetConn() net.Conn { return c.Conn }

// SyscallConn gives the raw socket under c, for writes (the outbox's that
// never wait): reads must go through Read, which starts with what the Mux
// read ahead. errors.ErrUnsupported when there is none (TLS).
func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, fmt.Errorf("unisocket: %T has no raw connection: %w", c.Conn, errors.ErrUnsupported)
}

// route is the listener of one route: Accept returns the connections the
// Mux hands it. Safe for concurrent use.
type route struct {
	m     *Mux
	conns chan net.Conn
	done  chan struct{} // closed by Close
	once  sync.Once
}

func newRoute(m *Mux) *route {
	return &route{m: m, conns: make(chan net.Conn), done: make(chan struct{})}
}

// deliver hands c to the route's server, or closes it when the route or
// the Mux is closed.
func (r *route) deliver(c net.Conn) {
	select {
	case r.conns <- c:
	case <-r.done:
		c.Close()
	case <-r.m.closing:
		c.Close()
	}
}

func (r *route) Accept() (net.Conn, error) {
	select {
	case c := <-r.conns:
		return c, nil
	case <-r.done:
	case <-r.m.closing:
	}
	return nil, net.ErrClosed
}

// Close stops the route's Accept; the Mux goes on serving the others.
func (r *route) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}

// Addr is the address of the Mux's listener (nil before Serve).
func (r *route) Addr() net.Addr {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	if r.m.ln == nil {
		return nil
	}
	return r.m.ln.Addr()
}
