// Package connlimit caps the connections a listener holds open: in total,
// and from one client IP address, so that one client, or a burst, cannot
// take every file descriptor of the process (the server then could accept
// nothing, and open no file or upstream connection either).
//
// A connection past a cap is accepted and closed at once: the client sees
// its connection closed (or reset) right away instead of waiting in the
// listen queue, the queue keeps draining, and every refusal is counted and
// logged (rate-limited). A connection counts from Accept until its Close,
// including after an HTTP server handed it over (a hijacked WebSocket).
package connlimit

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
)

// logInterval is the shortest time between two refusal warnings of one
// kind; the ones held back are counted in the next.
const logInterval = 5 * time.Second

// Options configures a Listener. The zero value caps nothing.
type Options struct {
	// Max is how many connections may be open at once; 0 means no cap.
	Max int
	// MaxPerIP is how many connections may be open at once from one client
	// IP address; 0 means no cap. IPv4-mapped IPv6 addresses count as their
	// IPv4 address; every other IPv6 address counts alone. Connections
	// without an IP address (Unix sockets) are never capped per IP.
	MaxPerIP int
	// Logger gets the refusals, at warn level, at most one line per kind
	// every 5 s; nil discards them.
	Logger *slog.Logger
}

// Stats are the counts of a Listener.
type Stats struct {
	Open         int    // connections open now
	Refused      uint64 // closed at once: Max connections were open
	RefusedPerIP uint64 // closed at once: MaxPerIP connections from their IP were open
}

// Listener is a net.Listener whose Accept returns only connections within
// its caps. Safe for concurrent use, as net.Listener requires.
type Listener struct {
	net.Listener
	opts      Options
	log       *slog.Logger
	full      lograte.Limit // "at Max" warnings
	fullPerIP lograte.Limit // "at MaxPerIP" warnings

	count        *Counter
	refused      atomic.Uint64
	refusedPerIP atomic.Uint64
}

// New wraps l. Closing the Listener closes l.
func New(l net.Listener, opts Options) *Listener {
	cl := &Listener{Listener: l, opts: opts, log: opts.Logger,
		full: lograte.Limit{Interval: logInterval}, fullPerIP: lograte.Limit{Interval: logInterval}}
	if cl.log == nil {
		cl.log = slog.New(slog.DiscardHandler)
	}
	cl.count = NewCounter(opts.Max, opts.MaxPerIP)
	return cl
}

// Accept waits for the next connection within the caps; those past a cap
// are closed on the way. Its errors are those of the wrapped listener,
// unchanged: net/http's Server retries the ones that are temporary
// net.Errors (EMFILE) and would stop on a wrapped one.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if admitted := l.admit(c); admitted != nil {
			return admitted, nil
		}
	}
}

// Stats returns the counts so far.
func (l *Listener) Stats() Stats {
	return Stats{Open: l.count.Open(), Refused: l.refused.Load(), RefusedPerIP: l.refusedPerIP.Load()}
}

// admit counts c in and returns it wrapped, or closes it and returns nil
// when a cap is reached.
func (l *Listener) admit(c net.Conn) net.Conn {
	ip, perIP := l.clientIP(c)
	refusal := l.count.Take(ip, perIP)
	if refusal == Admitted {
		return &conn{Conn: c, l: l, ip: ip, perIP: perIP}
	}
	c.Close()
	if refusal == AtMax {
		l.refused.Add(1)
		l.refusedFull(c.RemoteAddr())
	} else {
		l.refusedPerIP.Add(1)
		l.refusedOfIP(c.RemoteAddr())
	}
	return nil
}

// clientIP returns the IP address of c's client, and whether c counts per
// IP.
func (l *Listener) clientIP(c net.Conn) (netip.Addr, bool) {
	if !l.count.PerIP() {
		return netip.Addr{}, false
	}
	a, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return netip.Addr{}, false
	}
	ip, ok := netip.AddrFromSlice(a.IP)
	return ip.Unmap(), ok
}

func (l *Listener) refusedFull(remote net.Addr) {
	if ok, held := l.full.Allow(); ok {
		l.log.Warn("connection refused: the listener is at its connection cap",
			"max_connections", l.opts.Max, "remote", remote.String(), "refused_since_last_log", held)
	}
}

func (l *Listener) refusedOfIP(remote net.Addr) {
	if ok, held := l.fullPerIP.Allow(); ok {
		l.log.Warn("connection refused: its client IP is at its connection cap",
			"max_connections_per_ip", l.opts.MaxPerIP, "remote", remote.String(), "refused_since_last_log", held)
	}
}

// conn is an admitted connection: its first Close counts it out.
type conn struct {
	net.Conn
	l     *Listener
	ip    netip.Addr
	perIP bool
	once  sync.Once
}

// Close counts the connection out, then closes it: a client that has seen
// its connection closed finds the slot free.
func (c *conn) Close() error {
	c.release()
	return c.Conn.Close()
}

// release counts the connection out, the first time it is called.
func (c *conn) release() {
	c.once.Do(func() { c.l.count.Release(c.ip, c.perIP) })
}

// ErrNotDetachable is Detach's error for a connection that l did not
// accept.
var ErrNotDetachable = errors.New("connlimit: not a connection of this listener")

// Detach hands over a connection that l accepted, still counted in: it
// returns the connection l wrapped (for one, a *net.TCPConn whose
// descriptor an event loop takes over, closing the connection) and a
// function that counts it out. Release is to be called when the
// connection's descriptor is closed for good; it counts the connection
// out once, however often it is called, and not again should c's own
// Close be called too. Closing the returned connection does not count
// it out. Safe for concurrent use.
func (l *Listener) Detach(c net.Conn) (inner net.Conn, release func(), err error) {
	cc, ok := c.(*conn)
	if !ok || cc.l != l {
		return nil, nil, fmt.Errorf("%w: %T", ErrNotDetachable, c)
	}
	return cc.Conn, cc.release, nil
}

// The optional methods of *net.TCPConn and *net.UnixConn that the
// standard library looks for are passed through to the wrapped
// connection; a wrapper that hid them would change what net/http and
// httputil do with the connection.

// ReadFrom keeps the wrapped connection's ReadFrom (sendfile for a
// *net.TCPConn, which net/http uses to serve static files, and splice
// from another connection).
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// WriteTo keeps the wrapped connection's WriteTo (splice into another
// connection, which io.Copy uses when a hijacked connection is relayed to
// an upstream, as the reverse proxy does with a WebSocket upgrade).
func (c *conn) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := c.Conn.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{c.Conn})
}

// halfCloser is the half-close of *net.TCPConn and *net.UnixConn.
type halfCloser interface {
	CloseWrite() error
	CloseRead() error
}

// CloseWrite shuts down the writing side of the wrapped connection: a FIN
// that net/http sends before it closes a connection it answered with
// "Connection: close" (so that the client sees the answer end while the
// server still reads what the client sent), and that httputil sends when
// one side of an upgraded connection ends. A connection without it
// returns errors.ErrUnsupported.
func (c *conn) CloseWrite() error {
	if h, ok := c.Conn.(halfCloser); ok {
		return h.CloseWrite()
	}
	return fmt.Errorf("connlimit: %T cannot close its writing side: %w", c.Conn, errors.ErrUnsupported)
}

// CloseRead shuts down the reading side of the wrapped connection, as
// CloseWrite does the writing side.
func (c *conn) CloseRead() error {
	if h, ok := c.Conn.(halfCloser); ok {
		return h.CloseRead()
	}
	return fmt.Errorf("connlimit: %T cannot close its reading side: %w", c.Conn, errors.ErrUnsupported)
}

// SyscallConn gives the wrapped connection's raw socket (for the outbox's
// writes that never wait), or errors.ErrUnsupported when it has none.
func (c *conn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, fmt.Errorf("connlimit: %T has no raw connection: %w", c.Conn, errors.ErrUnsupported)
}

var (
	_ net.Listener  = (*Listener)(nil)
	_ syscall.Conn  = (*conn)(nil)
	_ io.ReaderFrom = (*conn)(nil)
	_ io.WriterTo   = (*conn)(nil)
	_ halfCloser    = (*conn)(nil)
	_ halfCloser    = (*net.TCPConn)(nil)
	_ halfCloser    = (*net.UnixConn)(nil)
)
