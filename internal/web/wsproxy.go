package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/wsupgrade"
)

// WebSocketProxyOptions configures a WebSocketProxy. Only URL is required.
type WebSocketProxyOptions struct {
	// URL is the backend's ws:// or wss:// URL: the handshake asks for its
	// path and names its host in the Host header.
	URL string
	// NetDial, if set, makes the backend connection instead of a TCP dial
	// to the URL's host (a Unix socket, for example).
	NetDial   func(ctx context.Context, network, addr string) (net.Conn, error)
	TLSConfig *tls.Config // for a wss:// backend; nil uses the defaults
	// Subprotocols, if set, are the only ones of the client's subprotocols
	// offered to the backend (in the client's order); by default all are.
	Subprotocols []string
	// DialTimeout bounds the backend's connection and handshake; 0 means
	// DefaultWebSocketProxyDialTimeout.
	DialTimeout time.Duration
	// AllowedOrigins are the Origin patterns accepted (see
	// wsupgrade.Origins); none accepts every origin.
	AllowedOrigins []string
	// MaxFrameSize, if set, bounds a frame's payload in either direction: a
	// bigger frame fails the relay with status 1009. Payloads are streamed,
	// never held whole, so by default there is no limit.
	MaxFrameSize int
	Logger       *slog.Logger // nil discards
}

// DefaultWebSocketProxyDialTimeout is WebSocketProxyOptions.DialTimeout's
// default.
const DefaultWebSocketProxyDialTimeout = 10 * time.Second

// unreachableLogEvery is the shortest interval between two "backend not
// reachable" warnings; the next one says how many were held back.
const unreachableLogEvery = 10 * time.Second

// WebSocketProxy is Crossbar's websocket-reverseproxy path service: it
// relays each WebSocket connection, frame by frame, to a connection of its
// own to a backend WebSocket server. A side that does not read stalls the
// other side's stream (TCP back-pressure); nothing is buffered beyond a
// chunk. It is safe for concurrent use.
type WebSocketProxy struct {
	opts    WebSocketProxyOptions
	origins wsupgrade.Origins
	log     *slog.Logger
	wg      sync.WaitGroup // the relays' goroutines, and Shutdown's stops
	// unreachable limits the "backend not reachable" warnings: clients
	// retry, and each retry would log one.
	unreachable lograte.Limit

	mu     sync.Mutex
	relays map[*relay]struct{} // live relays; under mu
	closed bool                // Shutdown was called; under mu
}

var _ Proxy = (*WebSocketProxy)(nil)

// NewWebSocketProxy checks opts and returns a WebSocketProxy.
func NewWebSocketProxy(opts WebSocketProxyOptions) (*WebSocketProxy, error) {
	u, err := url.ParseRequestURI(opts.URL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: websocket-reverseproxy backend URL: %w", ErrBadOption, err)
	case u.Scheme != "ws" && u.Scheme != "wss" || u.Host == "":
		return nil, fmt.Errorf("%w: websocket-reverseproxy backend URL %q is not ws://host/... or wss://host/...", ErrBadOption, opts.URL)
	case opts.MaxFrameSize < 0 || opts.DialTimeout < 0:
		return nil, fmt.Errorf("%w: websocket-reverseproxy: negative frame size or dial timeout", ErrBadOption)
	}
	opts.DialTimeout = orDefault(opts.DialTimeout, DefaultWebSocketProxyDialTimeout)
	p := &WebSocketProxy{opts: opts, log: opts.Logger, relays: map[*relay]struct{}{}}
	p.unreachable.Interval = unreachableLogEvery
	p.origins = wsupgrade.NewOrigins(opts.AllowedOrigins)
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	return p, nil
}

// ServeHTTP connects to the backend, upgrades the request with the
// backend's subprotocol and relays on goroutines of its own (see
// Shutdown).
func (p *WebSocketProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if status, msg := p.check(r); status != 0 {
		if status == http.StatusUpgradeRequired {
			w.Header().Set("Upgrade", "websocket")
		}
		http.Error(w, msg, status)
		return
	}
	backend, pending, proto, err := p.dial(r)
	if err != nil {
		if ok, held := p.unreachable.Allow(); ok {
			p.log.Warn("web: websocket-reverseproxy: backend not reachable", "backend", p.opts.URL, "remote", r.RemoteAddr, "err", err,
				"refused_since_last_log", held)
		}
		http.Error(w, "websocket: reverse proxy backend not reachable", http.StatusServiceUnavailable)
		return
	}
	client, early, err := acceptClient(w, r, proto)
	if err != nil {
		p.log.Debug("web: websocket-reverseproxy: upgrade failed", "remote", r.RemoteAddr, "err", err)
		backend.Close()
		return
	}
	rl := &relay{
		proxy:   p,
		client:  newSide("client", client, early, true),
		backend: newSide("backend", backend, pending, false),
		log:     p.log.With("remote", r.RemoteAddr),
	}
	rl.log.Debug("web: websocket-reverseproxy: relaying", "subprotocol", proto)
	if !p.start(rl) {
		rl.stop("reverse proxy closed")
	}
}

// check refuses, with an HTTP status and text, a request to upgrade before
// the backend is dialed.
func (p *WebSocketProxy) check(r *http.Request) (status int, msg string) {
	switch {
	case !wsupgrade.Requested(r.Header):
		return http.StatusUpgradeRequired, "websocket: this is a WebSocket reverse proxy; upgrade required"
	case r.Method != http.MethodGet || r.Header.Get("Sec-WebSocket-Version") != "13" || r.Header.Get("Sec-WebSocket-Key") == "":
		// Checked again by the upgrade, but before the backend is dialled.
		return http.StatusBadRequest, "websocket: bad upgrade request (want GET with Sec-WebSocket-Key and Sec-WebSocket-Version 13)"
	case !p.origins.Allow(r.Header.Get("Origin")):
		return http.StatusForbidden, "websocket: origin not allowed"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return http.StatusServiceUnavailable, "websocket: reverse proxy closed"
	}
	return 0, ""
}

// dial connects to the backend, offering the client's subprotocols and no
// extension. It returns the connection, the bytes the backend sent right
// after its handshake response (read along with it) and the subprotocol the
// backend chose.
func (p *WebSocketProxy) dial(r *http.Request) (conn net.Conn, pending []byte, proto string, err error) {
	ctx, cancel := context.WithTimeout(r.Context(), p.opts.DialTimeout)
	defer cancel()
	d := ws.Dialer{
		Protocols: offer(r.Header.Values("Sec-WebSocket-Protocol"), p.opts.Subprotocols),
		NetDial:   p.opts.NetDial,
		TLSConfig: p.opts.TLSConfig,
	}
	conn, br, hs, err := d.Dial(ctx, p.opts.URL)
	if err != nil {
		return nil, nil, "", err
	}
	if br != nil {
		pending = bytes.Clone(wsupgrade.Pending(br))
		ws.PutReader(br)
	}
	return conn, pending, hs.Protocol, nil
}

// acceptClient answers the client's handshake with subprotocol proto (none
// if ""). It returns the connection and the bytes the client sent right
// after its handshake (read along with it).
func acceptClient(w http.ResponseWriter, r *http.Request, proto string) (net.Conn, []byte, error) {
	up := ws.HTTPUpgrader{Protocol: func(s string) bool { return s == proto }}
	conn, rw, _, err := up.Upgrade(r, w)
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		return nil, nil, err
	}
	return conn, wsupgrade.Pending(rw.Reader), nil // the hijacked reader is ours: no copy
}

// offer returns the client's subprotocols, in order over all header lines,
// keeping only those in allowed unless it is empty.
func offer(lines, allowed []string) []string {
	var protocols []string
	for p := range wsupgrade.Tokens(lines) {
		if len(allowed) == 0 || slices.Contains(allowed, p) {
			protocols = append(protocols, p)
		}
	}
	return protocols
}

// start registers a relay and runs it, unless the proxy is closed.
func (p *WebSocketProxy) start(r *relay) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.relays[r] = struct{}{}
	p.wg.Go(r.run)
	return true
}

func (p *WebSocketProxy) remove(r *relay) {
	p.mu.Lock()
	delete(p.relays, r)
	p.mu.Unlock()
}

// closeAll ends every relay with a close frame 1001 (going away) to both
// of its sides, then their connections, and waits for the relays'
// goroutines. Later upgrade requests get 503.
func (p *WebSocketProxy) closeAll() {
	p.mu.Lock()
	p.closed = true
	for r := range p.relays {
		// One goroutine each: a side that does not read holds its close
		// frame for up to closeTimeout.
		p.wg.Go(func() { r.stop("reverse proxy closed") })
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Shutdown ends every relay with a close frame 1001 (going away) to both
// of its sides, then their connections, and waits for the relays'
// goroutines; later upgrade requests get 503. When ctx ends first, the
// relays still running lose their connections at once (no close frame)
// and Shutdown returns ctx's error once their goroutines are over.
func (p *WebSocketProxy) Shutdown(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		p.closeAll()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	relays := slices.Collect(maps.Keys(p.relays))
	p.mu.Unlock()
	for _, r := range relays {
		r.end("reverse proxy shut down")
	}
	<-done
	return ctx.Err()
}
