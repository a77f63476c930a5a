package node

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/connlimit"
)

// server serves the connections of one listener: a web.Server (web and
// websocket transports) or a RawSocket server.
type server interface {
	// Serve accepts on l until shutdown.
	Serve(l net.Listener) error
	// shutdown stops accepting; HTTP requests in flight finish (bounded by
	// ctx). WAMP sessions keep running: the router closes them next.
	shutdown(ctx context.Context, l net.Listener) error
	// close releases what is left, once the routers are closed.
	close() error
}

// serviceLog is one line of the start log: a path service or a detail of
// the transport.
type serviceLog struct {
	msg  string
	args []any
}

// listenerUnit is one listening transport. start, shutdown and close are
// called in this order by the Node, from one goroutine at a time.
type listenerUnit struct {
	path     string // "workers[0].transports[1]"
	kind     string // "web", "websocket", "rawsocket"
	spec     listenSpec
	srv      server
	services []serviceLog
	// limits caps the listener's connections (see limitsOf); Max 0 until
	// builder.capListeners gives it the default.
	limits connlimit.Options
	// handshake is the shortest open_handshake_timeout of the WebSocket
	// services served here; 0 for none.
	handshake time.Duration
	// proxies says a path service proxies its connections to an upstream
	// (reverseproxy, websocket-reverseproxy): each may hold a second
	// descriptor, which the default cap counts.
	proxies bool
	// onShutdown runs when a web listener's shutdown starts (long-poll
	// services answer their held receives).
	onShutdown []func()
	// engine and loops are a web server's engine and its number of event
	// loops (web.Server.Engine), for the "listening" line; "" for the
	// other transports.
	engine string
	loops  int
	// tree serves a web transport's path tree, which a reload replaces;
	// nil for the other transports.
	tree *swapHandler
	// keyFiles are the key files its path services read when built (a
	// bearer JWT's public_key and jwks_file), by name, with what was
	// read: a reload that finds one changed builds the paths anew.
	keyFiles map[string]string

	ln       net.Listener  // nil until started
	done     chan struct{} // closed when Serve returns
	stopping atomic.Bool   // shutdown or close began: Serve's end is expected
	mu       sync.Mutex    // guards err
	err      error         // Serve's error
}

// boundHandshake notes a WebSocket service's open_handshake_timeout d
// (0: none).
func (l *listenerUnit) boundHandshake(d time.Duration) {
	if d > 0 && (l.handshake == 0 || d < l.handshake) {
		l.handshake = d
	}
}

// readHeaderTimeout is d, shortened to the listener's WebSocket opening
// handshake timeout: a client must send its upgrade request's headers
// within it, as with Crossbar, which drops a connection whose handshake
// is not done in time. It bounds every request's headers on the listener.
func (l *listenerUnit) readHeaderTimeout(d time.Duration) time.Duration {
	if l.handshake > 0 && l.handshake < d {
		return l.handshake
	}
	return d
}

// start binds the listener and serves it on a new goroutine; log gets
// the listener's end if it comes before the node stops.
func (l *listenerUnit) start(log *slog.Logger) (Listener, error) {
	ln, err := listen(l.spec)
	if err != nil {
		return Listener{}, pathError(l.path, err)
	}
	l.ln = connlimit.New(ln, l.limits)
	l.done = make(chan struct{})
	go l.serve(log)
	return Listener{Transport: l.path, Type: l.kind, Network: l.spec.network, Address: ln.Addr().String()}, nil
}

// serve runs Serve. The servers retry failed accepts (EMFILE and the like),
// so Serve ends before the node stops only on an error they cannot pass:
// that is logged at once, at error level, since the transport takes no
// more connections; Stop returns the error too.
func (l *listenerUnit) serve(log *slog.Logger) {
	defer close(l.done)
	err := l.srv.Serve(l.ln)
	if !l.stopping.Load() {
		log.Error("listener stopped accepting connections while the node runs", "transport", l.path,
			"address", l.ln.Addr().String(), "err", err)
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
}

// limitsOf returns the connection caps of endpoint e (max_connections, 0
// for the default, and max_connections_per_ip) of the transport at path.
func (b *builder) limitsOf(path string, e config.ListenEndpoint) connlimit.Options {
	return connlimit.Options{Max: e.MaxConnections, MaxPerIP: e.MaxConnectionsPerIP, Logger: b.log.With("transport", path)}
}

// capListeners gives every listener without max_connections the default:
// its share of the process's descriptors, connlimit.DefaultMax of the
// node's listener count, in connections of two descriptors on a listener
// that proxies.
func (b *builder) capListeners() {
	for _, l := range b.node.listeners {
		if l.limits.Max == 0 {
			l.limits.Max = connlimit.DefaultMax(len(b.node.listeners), l.descriptorsPerConn())
		}
	}
}

// descriptorsPerConn is how many descriptors one of the listener's
// connections may hold: 2 when a path proxies it to an upstream.
func (l *listenerUnit) descriptorsPerConn() int {
	if l.proxies {
		return 2
	}
	return 1
}

// logServices logs the listener's path services.
func (l *listenerUnit) logServices(log *slog.Logger) {
	for _, s := range l.services {
		log.Info(s.msg, append([]any{"transport", l.path}, s.args...)...)
	}
}

// shutdown stops accepting; see server.shutdown.
func (l *listenerUnit) shutdown(ctx context.Context) error {
	if l.ln == nil {
		return nil
	}
	l.stopping.Store(true)
	if err := l.srv.shutdown(ctx, l.ln); err != nil {
		return pathError(l.path, err)
	}
	return nil
}

// close releases the listener's connections and waits for Serve, or for
// ctx to end.
func (l *listenerUnit) close(ctx context.Context) error {
	if l.ln == nil {
		return nil
	}
	l.stopping.Store(true)
	err := l.srv.close()
	select {
	case <-l.done:
	case <-ctx.Done():
		return pathError(l.path, ctx.Err())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err = errors.Join(err, l.err); err != nil {
		return pathError(l.path, err)
	}
	return nil
}
