package mqtt

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/internal/transport/tlsconn"
	"github.com/junction-wamp/junction/wamp"
)

// Attacher runs a WAMP session on a connected peer. Attach blocks until the
// session is over; it closes the peer before returning.
type Attacher interface{ Attach(p wamp.Peer) }

// Defaults for a zero Options.
const (
	DefaultMaxMessageSize = 1 << 20
	DefaultConnectTimeout = 10 * time.Second
	// eventQueue bounds the events of a connection waiting for a dynamic
	// encoder; past it the connection is closed as a slow consumer.
	eventQueue = 1024
)

// Options configures a Handler. Attacher and Realm are required.
type Options struct {
	Attacher Attacher
	// Realm is the realm every connection's session joins.
	Realm string
	// PayloadMapping maps WAMP URI prefixes ("" for every URI) to payload
	// translations; the longest prefix of a topic applies. A topic no
	// prefix matches is refused (see Conn).
	PayloadMapping map[string]Mapping
	// Call calls the encoders and decoders of dynamic mappings; required
	// when there is one.
	Call CallFunc
	// MaxMessageSize bounds a packet's remaining length, in bytes; a longer
	// packet closes the connection. Default 1 MiB.
	MaxMessageSize int
	// ConnectTimeout closes a connection whose CONNECT has not arrived,
	// or whose session the router has not accepted, in time. Default 10 s.
	ConnectTimeout time.Duration
	Outbox         outbox.Options
	Logger         *slog.Logger // nil discards
}

// Handler serves MQTT connections, each as a WAMP session. Safe for
// concurrent use.
type Handler struct {
	opts    Options
	mapper  *mapper
	log     *slog.Logger
	dropLog lograte.Limit // "event not delivered" warnings
}

// NewHandler checks opts and returns a Handler.
func NewHandler(opts Options) (*Handler, error) {
	if opts.Attacher == nil || opts.Realm == "" {
		return nil, errors.New("mqtt: Options.Attacher and Options.Realm are required")
	}
	m, err := newMapper(opts.PayloadMapping, opts.Call)
	if err != nil {
		return nil, err
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = DefaultMaxMessageSize
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	h := &Handler{opts: opts, mapper: m, log: opts.Logger, dropLog: lograte.Limit{Interval: 5 * time.Second}}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h, nil
}

// ServeConn serves conn, an accepted connection (from a listener, or from
// a transport that read none of it, or put back what it read, such as a
// universal transport seeing the first octet 0x10), until its session
// ends, and closes it.
func (h *Handler) ServeConn(conn net.Conn) {
	if err := h.tlsHandshake(conn); err != nil {
		h.log.Debug("mqtt: TLS handshake failed", "remote", conn.RemoteAddr().String(), "err", err)
		conn.Close()
		return
	}
	c := newConn(h, conn)
	if h.mapper.needsCalls() {
		c.events = make(chan *wamp.Event, eventQueue)
		c.stopped.Add(1)
		go c.encodeLoop()
	}
	c.stopped.Add(1)
	go c.readLoop()
	h.opts.Attacher.Attach(c)
	c.Close()
	c.stopped.Wait()
}

// tlsHandshake completes conn's TLS handshake, when conn is or wraps a TLS
// connection, within the connect timeout: the session's PeerInfo says
// whether the client gave a certificate (for tls authentication) before
// the router sees it.
func (h *Handler) tlsHandshake(conn net.Conn) error {
	tc := tlsconn.Unwrap(conn)
	if tc == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.ConnectTimeout)
	defer cancel()
	return tc.HandshakeContext(ctx)
}
