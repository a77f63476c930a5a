// Package rawsocket is the WAMP RawSocket transport over TCP and Unix
// sockets: a Server that performs the 4-octet handshake and attaches each
// connection as a wamp.Peer, and Dial for clients. Frames are a type octet
// and a 3-octet big-endian length; pings are answered with pongs echoing the
// payload.
package rawsocket

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/transport/idlepoll"
	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/internal/transport/tlsconn"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Attacher runs a WAMP session on a connected peer. Attach blocks until the
// session is over; it closes the peer before returning.
type Attacher interface{ Attach(p wamp.Peer) }

// Defaults for a zero Options.
const (
	DefaultMaxMessageSize   = 1 << 20
	DefaultHandshakeTimeout = 10 * time.Second
)

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("rawsocket: server closed")

// Serve pauses after a failed Accept, from minAcceptDelay doubling up to
// maxAcceptDelay (as net/http's Server does), and logs the failures at
// most once per acceptLogInterval.
const (
	minAcceptDelay    = 5 * time.Millisecond
	maxAcceptDelay    = time.Second
	acceptLogInterval = 5 * time.Second
)

// Options configures a Server. Only Attacher is required.
type Options struct {
	Attacher Attacher
	// Serializers allowed, by codec name ("json", "msgpack", "cbor",
	// "ubjson"); empty allows all.
	Serializers []string
	// MaxMessageSize is the longest message accepted, rounded up to a power
	// of two in [512 B, 16 MiB] as the handshake announces it; a longer frame
	// closes the connection. Default 1 MiB.
	MaxMessageSize int
	// HandshakeTimeout closes a connection whose handshake has not arrived
	// in time. Default 10 s.
	HandshakeTimeout time.Duration
	// PingInterval, if set, pings a peer idle that long; a peer silent for
	// PingTimeout (default PingInterval) after the ping is closed.
	PingInterval time.Duration
	PingTimeout  time.Duration
	Outbox       outbox.Options
	Logger       *slog.Logger // nil discards
}

// Server accepts RawSocket connections on any number of listeners.
type Server struct {
	opts Options
	log  *slog.Logger

	acceptLog lograte.Limit // "accept failed" warnings

	mu        sync.Mutex // guards the fields below
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
	closed    bool
	closing   chan struct{} // closed by Close, ending Serve's pauses

	wg sync.WaitGroup // connection goroutines
}

// NewServer checks opts and returns a Server.
func NewServer(opts Options) (*Server, error) {
	if opts.Attacher == nil {
		return nil, errors.New("rawsocket: Options.Attacher is nil")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, log: opts.Logger, acceptLog: lograte.Limit{Interval: acceptLogInterval},
		listeners: map[net.Listener]struct{}{}, conns: map[net.Conn]struct{}{}, closing: make(chan struct{})}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// withDefaults checks the serializers and fills in the defaults.
func (opts Options) withDefaults() (Options, error) {
	for _, name := range opts.Serializers {
		if !slices.ContainsFunc(codec.Subprotocols(), func(p string) bool { return p == "wamp.2."+name }) {
			return opts, fmt.Errorf("rawsocket: unknown serializer %q", name)
		}
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = DefaultMaxMessageSize
	}
	opts.MaxMessageSize = roundLen(min(opts.MaxMessageSize, maxFrameLen+1))
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = DefaultHandshakeTimeout
	}
	return opts, nil
}

// Accept performs the server's side of the handshake on conn, a
// connection that came some other way than a listener (one end of a
// socket pair the node made), and returns its peer. opts is as for
// NewServer; its Attacher is not used: the caller runs the session. The
// caller owns conn: on an error, it is not closed.
func Accept(conn net.Conn, opts Options) (wamp.Peer, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts}
	cfg, err := s.handshake(conn)
	if err != nil {
		return nil, err
	}
	return newPeer(conn, cfg), nil
}

// Serve accepts connections on l until Close, running each on its own
// goroutine, which becomes the session's reader. It returns
// ErrServerClosed after Close, or an error wrapping net.ErrClosed when l
// was closed otherwise. Any other accept error (EMFILE when the process
// is out of descriptors, ECONNABORTED, a timeout) is retried after a pause
// (see minAcceptDelay) and logged at warn level, rate-limited, so that the
// server serves again once the cause has passed.
func (s *Server) Serve(l net.Listener) error {
	if !s.trackListener(l) {
		return ErrServerClosed
	}
	var delay time.Duration // the last pause; 0 after a successful Accept
	failures := 0           // since the last successful Accept
	for {
		conn, err := l.Accept()
		if err != nil {
			if delay, err = s.acceptFailed(err, delay); err != nil {
				return err
			}
			failures++
			continue
		}
		if failures > 0 {
			s.log.Info("rawsocket: accepting again", "failures", failures)
		}
		delay, failures = 0, 0
		if idlepoll.Parkable(conn) {
			conn = idlepoll.Wrap(conn) // its session can park when idle
		}
		if !s.trackConn(conn) {
			conn.Close()
			return ErrServerClosed
		}
		go s.serveConn(conn)
	}
}

// acceptFailed handles Accept's error err, the last pause being delay: it
// returns the error that ends Serve, or pauses for the next delay and
// returns it.
func (s *Server) acceptFailed(err error, delay time.Duration) (time.Duration, error) {
	if s.isClosed() {
		return 0, ErrServerClosed
	}
	if errors.Is(err, net.ErrClosed) {
		return 0, fmt.Errorf("rawsocket: accept: %w", err)
	}
	delay = min(max(2*delay, minAcceptDelay), maxAcceptDelay)
	if ok, held := s.acceptLog.Allow(); ok {
		s.log.Warn("rawsocket: accept failed, retrying", "err", err, "retry_in", delay, "failures_since_last_log", held)
	}
	select {
	case <-time.After(delay):
		return delay, nil
	case <-s.closing:
		return 0, ErrServerClosed
	}
}

// Close closes every listener and connection and waits for the sessions to
// end.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Server) trackListener(l net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.listeners[l] = struct{}{}
	return true
}

// trackConn registers conn and its goroutine, unless the server is closed.
func (s *Server) trackConn(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) untrackConn(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.wg.Done()
}

// serveConn runs one connection: handshake, then the session. A session
// that parks (see wamp.Parker) ends on another goroutine, with Ended.
func (s *Server) serveConn(conn net.Conn) {
	cfg, err := s.handshake(conn)
	if err != nil {
		s.log.Debug("rawsocket: handshake failed", "remote", conn.RemoteAddr().String(), "err", err)
		conn.Close()
		s.untrackConn(conn)
		return
	}
	p := newPeer(conn, cfg)
	after := func() {
		p.Close()
		s.untrackConn(conn)
	}
	if pc, ok := conn.(*idlepoll.Conn); ok {
		p.enablePark(pc, after)
	}
	s.opts.Attacher.Attach(p)
	if !p.detached.Load() {
		after()
	}
}

// handshake reads the client's handshake within HandshakeTimeout and
// answers it, accepting or refusing.
func (s *Server) handshake(conn net.Conn) (peerConfig, error) {
	conn.SetDeadline(time.Now().Add(s.opts.HandshakeTimeout))
	defer conn.SetDeadline(time.Time{})
	var b [4]byte
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return peerConfig{}, fmt.Errorf("rawsocket: handshake: %w", err)
	}
	c, clientMax, err := serverHello(b, s.allowed)
	var refusal *HandshakeError
	if errors.As(err, &refusal) {
		answer := refusalBytes(refusal.Code)
		conn.Write(answer[:])
	}
	if err != nil {
		return peerConfig{}, err
	}
	answer := helloBytes(c.RawSocketID(), s.opts.MaxMessageSize)
	if _, err := conn.Write(answer[:]); err != nil {
		return peerConfig{}, fmt.Errorf("rawsocket: handshake: %w", err)
	}
	return s.peerConfig(conn, c, clientMax), nil
}

func (s *Server) allowed(c codec.Codec) bool {
	return len(s.opts.Serializers) == 0 || slices.Contains(s.opts.Serializers, c.Name())
}

func (s *Server) peerConfig(conn net.Conn, c codec.Codec, clientMax int) peerConfig {
	return peerConfig{
		codec:     c,
		remote:    remoteOf(conn),
		sendLimit: min(clientMax, maxFrameLen), recvLimit: min(s.opts.MaxMessageSize, maxFrameLen),
		pingInterval: s.opts.PingInterval, pingTimeout: s.opts.PingTimeout, outbox: s.opts.Outbox,
	}
}

// remoteOf describes conn's other side; over TLS (the handshake is done once the
// RawSocket handshake was read; conn may wrap the TLS connection, as the
// universal transport's do), with the client's certificate if any.
func remoteOf(conn net.Conn) remote {
	r := remote{addr: remoteAddr(conn)}
	r.tls, r.cert = tlsconn.ClientCert(conn)
	return r
}

// remoteAddr is host:port for TCP and the socket path for Unix sockets,
// whose remote address is usually unnamed.
func remoteAddr(conn net.Conn) string {
	if a, ok := conn.LocalAddr().(*net.UnixAddr); ok {
		return a.Name
	}
	return conn.RemoteAddr().String()
}
