// Package websocket is the WAMP-over-WebSocket transport: an http.Handler
// that upgrades connections and attaches each one as a wamp.Peer to the
// router, and Dial for clients. It is built on gobwas/ws's frame-level API so
// that buffers stay small (an idle connection holds only what net/http hands
// over on hijack) and outgoing frames are written in batches.
package websocket

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/transport/idlepoll"
	"github.com/junction-wamp/junction/internal/transport/idlereader"
	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/internal/wsupgrade"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Attacher runs a WAMP session on a connected peer. Attach blocks until the
// session is over; it closes the peer before returning, and no Recv may
// still run then (the handler reads the peer's answer to our close frame
// after Attach returns).
type Attacher interface{ Attach(p wamp.Peer) }

// DefaultMaxMessageSize bounds an incoming message when Options leaves it 0.
const DefaultMaxMessageSize = 1 << 20

// Options configures a Handler. Only Attacher is required.
type Options struct {
	Attacher Attacher
	// Subprotocols are the WAMP subprotocols allowed ("wamp.2.json",
	// "wamp.2.msgpack.batched", ...); empty allows all that package codec
	// supports.
	Subprotocols []string
	// AssumeJSON accepts a client that offers none of the allowed
	// subprotocols (or none at all): its session speaks wamp.2.json and the
	// handshake names no subprotocol, as Crossbar does with
	// require_websocket_subprotocol false. It needs wamp.2.json among the
	// allowed subprotocols. The default refuses such a client with 400.
	AssumeJSON bool
	// MaxMessageSize bounds an incoming message (all its fragments); a bigger
	// one closes the connection with status 1009. Default 1 MiB.
	MaxMessageSize int
	// PingInterval, if set, sends a ping to a peer idle that long; a peer
	// that sends nothing within PingTimeout (default PingInterval) after the
	// ping is closed.
	PingInterval time.Duration
	PingTimeout  time.Duration
	// AllowedOrigins lists the Origin headers accepted from browsers,
	// patterns such as "https://*.example.com"; empty accepts any. Requests
	// without an Origin header (non-browser clients) are always accepted.
	AllowedOrigins []string
	// MaxFrameSize, if set, bounds an incoming frame's payload; a bigger
	// frame fails the connection with status 1009 (Crossbar's
	// max_frame_size).
	MaxFrameSize int
	// FragmentSize, if set, splits each outgoing message into frames of at
	// most this many payload bytes (auto_fragment_size).
	FragmentSize int
	// PingSize is the length of the random payload of keepalive pings,
	// 0..125 (auto_ping_size); default 0, an empty payload.
	PingSize int
	// FailByDrop fails the connection of a client that breaks the protocol
	// (bad framing, invalid UTF-8, a frame or message too big) by closing
	// TCP without a close frame (fail_by_drop). By default a close frame
	// with the reason's status goes first.
	FailByDrop bool
	// CloseHandshakeTimeout, if set, is how long a connection waits for the
	// client's close frame after sending its own before it closes TCP
	// (close_handshake_timeout). By default TCP is closed right after our
	// close frame.
	CloseHandshakeTimeout time.Duration
	// Deflate, if set, accepts permessage-deflate from clients that offer
	// it (compression); see Deflate.
	Deflate *Deflate
	// KeepHeaders keeps each client's upgrade request headers in its
	// peer's wamp.PeerInfo.HTTPHeaders, for whoever needs them (a dynamic
	// authenticator or authorizer); by default they are not kept, so that
	// an idle session holds no copy of them.
	KeepHeaders bool
	// Cookies, if set, tracks clients by cookie: the upgrade response sets
	// the cookie Track gives (when it gives a header value) and the peer's
	// wamp.PeerInfo.CBTID is its value.
	Cookies CookieTracker
	Outbox  outbox.Options
	Logger  *slog.Logger // nil discards
}

// Handler upgrades HTTP requests to WebSocket WAMP sessions.
type Handler struct {
	opts      Options
	peerOpts  *peerOptions // shared by the handler's connections
	protocols []string     // allowed subprotocols
	origins   wsupgrade.Origins
	log       *slog.Logger
}

var _ http.Handler = (*Handler)(nil)

// NewHandler checks opts and returns a Handler.
func NewHandler(opts Options) (*Handler, error) {
	if opts.Attacher == nil {
		return nil, errors.New("websocket: Options.Attacher is nil")
	}
	h := &Handler{opts: opts, protocols: opts.Subprotocols, log: opts.Logger}
	h.peerOpts = (&peerOptions{
		maxSize: opts.MaxMessageSize, pingInterval: opts.PingInterval, pingTimeout: opts.PingTimeout,
		outbox: opts.Outbox, maxFrame: opts.MaxFrameSize, fragment: opts.FragmentSize, pingSize: opts.PingSize,
		failByDrop: opts.FailByDrop, closeWait: opts.CloseHandshakeTimeout,
	}).withDefaults()
	if len(h.protocols) == 0 {
		h.protocols = codec.Subprotocols()
	}
	for _, p := range h.protocols {
		if _, _, ok := codec.Lookup(p); !ok {
			return nil, fmt.Errorf("websocket: unknown subprotocol %q", p)
		}
	}
	if opts.PingSize < 0 || opts.PingSize > maxControlPayload {
		return nil, fmt.Errorf("websocket: ping size %d is not within 0..%d", opts.PingSize, maxControlPayload)
	}
	if opts.MaxFrameSize < 0 || opts.FragmentSize < 0 || opts.CloseHandshakeTimeout < 0 {
		return nil, errors.New("websocket: negative frame size, fragment size or close handshake timeout")
	}
	if opts.Deflate != nil {
		if err := opts.Deflate.check(); err != nil {
			return nil, err
		}
	}
	if json := codec.JSON.Subprotocol(); opts.AssumeJSON && !slices.Contains(h.protocols, json) {
		return nil, errors.New("websocket: assuming JSON for clients without a subprotocol needs " + json + " among the subprotocols")
	}
	h.origins = wsupgrade.NewOrigins(opts.AllowedOrigins)
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h, nil
}

// CookieTracker knows clients again by a cookie (auth.CookieStore).
type CookieTracker interface {
	// Track returns the client's tracking cookie given its upgrade
	// request's headers, and the Set-Cookie value to send when it is a
	// new one ("" to send none). Called concurrently.
	Track(h http.Header) (cbtid, setCookie string)
}

// ServeHTTP upgrades the request and runs the session on a goroutine of
// its own, which becomes the session's reader; ServeHTTP returns at once so
// that net/http frees the request, its buffers and its goroutine's stack
// (an idle session then holds no buffer and a small stack).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	proto, status, msg := h.check(r)
	if status != 0 {
		if h.log.Enabled(r.Context(), slog.LevelDebug) {
			h.log.Debug("websocket: upgrade refused", "remote", r.RemoteAddr, "status", status, "reason", msg)
		}
		if status == http.StatusUpgradeRequired {
			w.Header().Set("Upgrade", "websocket")
		}
		http.Error(w, msg, status)
		return
	}
	up := ws.HTTPUpgrader{}
	var cbtid string
	if h.opts.Cookies != nil {
		var set string
		if cbtid, set = h.opts.Cookies.Track(r.Header); set != "" {
			up.Header = http.Header{"Set-Cookie": {set}}
		}
	}
	if proto != "" {
		up.Protocol = func(p string) bool { return p == proto }
	}
	var deflateBits int
	if h.opts.Deflate != nil {
		up.Negotiate = h.opts.Deflate.negotiator(&deflateBits)
	}
	conn, rw, _, err := up.Upgrade(r, w)
	if err != nil {
		h.log.Debug("websocket: upgrade failed", "remote", r.RemoteAddr, "err", err)
		if conn != nil {
			conn.Close()
		}
		return
	}
	if deflateBits != 0 {
		h.log.Debug("websocket: permessage-deflate", "remote", r.RemoteAddr, "window_bits", deflateBits)
	}
	c, batched := codec.JSON, false // no subprotocol: see Options.AssumeJSON
	if proto != "" {
		c, batched, _ = codec.Lookup(proto)
	}
	rem := remote{addr: r.RemoteAddr, tls: r.TLS != nil, cbtid: cbtid}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		rem.cert = r.TLS.PeerCertificates[0]
	}
	if h.opts.KeepHeaders {
		rem.headers = headerMap(r.Header)
	}
	var pc *idlepoll.Conn
	if idlepoll.Parkable(conn) {
		pc = idlepoll.Wrap(conn)
		conn = pc
	}
	p := newPeer(conn, idlereader.New(conn, wsupgrade.Pending(rw.Reader)), nil, peerConfig{
		codec: c, batched: batched, remote: rem, deflateBits: deflateBits, peerOptions: h.peerOpts,
	})
	after := func() {
		p.Close()
		p.awaitClose()
	}
	if pc != nil {
		p.enablePark(pc, after)
	}
	go func() {
		h.opts.Attacher.Attach(p)
		if !p.detached.Load() {
			after()
		} // else the session parked: Ended calls after
	}()
}

// check validates an upgrade request before the connection is hijacked. It
// returns the chosen subprotocol ("" for none, with AssumeJSON), or an HTTP
// status and text for a refusal.
func (h *Handler) check(r *http.Request) (proto string, status int, msg string) {
	if !wsupgrade.Requested(r.Header) {
		return "", http.StatusUpgradeRequired, "websocket: this is a WAMP WebSocket endpoint; upgrade required"
	}
	if !h.origins.Allow(r.Header.Get("Origin")) {
		return "", http.StatusForbidden, "websocket: origin not allowed"
	}
	proto, ok := selectProtocol(r.Header.Values("Sec-WebSocket-Protocol"), h.protocols)
	if !ok && h.opts.AssumeJSON {
		return "", 0, ""
	}
	if !ok {
		return "", http.StatusBadRequest, "websocket: no supported WAMP subprotocol offered; supported: " + strings.Join(h.protocols, ", ")
	}
	return proto, 0, ""
}

// selectProtocol returns the first of the client's subprotocols (in the
// order offered, over all header lines) that is allowed.
func selectProtocol(offered []string, allowed []string) (string, bool) {
	for p := range wsupgrade.Tokens(offered) {
		if slices.Contains(allowed, p) {
			return p, true
		}
	}
	return "", false
}

// headerMap is h as autobahn gives a WebSocket's request headers: names
// in lower case, the values of a repeated header joined with ", ".
func headerMap(h http.Header) map[string]string {
	m := make(map[string]string, len(h))
	for k, vs := range h {
		m[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return m
}
