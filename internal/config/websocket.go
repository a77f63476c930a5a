package config

import (
	"slices"
	"time"
)

// DefaultCloseHandshakeTimeout is "close_handshake_timeout" when not
// given: Crossbar's (Autobahn's default). Closing TCP right after the
// close frame can reset the connection before the client has read the
// frame, and the client then sees 1006 instead of the close code.
const DefaultCloseHandshakeTimeout = time.Second

// DefaultJoinTimeout is "join_timeout" when not given (a Junction
// extension, for WebSocket and RawSocket transports).
const DefaultJoinTimeout = 10 * time.Second

// NoJoinTimeout is a JoinTimeout of no deadline ("join_timeout": 0):
// any negative value is, since 0 means DefaultJoinTimeout.
const NoJoinTimeout time.Duration = -1

// WebSocketService is a path service of "type": "websocket": WAMP over
// WebSocket at this path (and the paths below it).
type WebSocketService struct {
	// Serializers is "serializers": any of "cbor", "msgpack", "ubjson",
	// "json" (default all of them, in that order of preference).
	Serializers []string
	// Auth is "auth" (default anonymous with role "anonymous").
	Auth Auth
	// Options is "options".
	Options WebSocketOptions
	// Cookie is "cookie": cookie tracking, nil without.
	Cookie *CookieTracking
}

// PathType returns "websocket".
func (*WebSocketService) PathType() string { return "websocket" }

// WebSocketOptions are the "options" of a WebSocket transport or path
// service, or of a container component's WebSocket transport. Durations
// are given in milliseconds; sizes in bytes. An option Junction does not
// apply is ignored with a warning at its path when it asks for something
// other than what Junction does (see each field); a component's connection
// uses only MaxMessageSize, AutoPingInterval and AutoPingTimeout, and
// every other key given there is ignored with a warning.
type WebSocketOptions struct {
	// MaxMessageSize is "max_message_size": the largest message accepted
	// (default 0 meaning the transport's own limit, 1 MiB).
	MaxMessageSize int
	// MaxFrameSize is "max_frame_size": the largest frame payload accepted;
	// a bigger frame fails the connection with 1009 (default 0: no limit
	// but MaxMessageSize's).
	MaxFrameSize int
	// AutoFragmentSize is "auto_fragment_size": outgoing messages are split
	// into frames of at most this many payload bytes (default 0: one frame
	// per message).
	AutoFragmentSize int
	// AutoPingInterval is "auto_ping_interval" (ms): send a ping after this
	// much silence from the peer (default 0: never).
	AutoPingInterval time.Duration
	// AutoPingTimeout is "auto_ping_timeout" (ms): close the connection
	// when the peer stays silent this long after a ping (default 0 meaning
	// the same as AutoPingInterval). Crossbar's 0 means "never time out":
	// an explicit 0 with an AutoPingInterval gives a warning.
	AutoPingTimeout time.Duration
	// AutoPingSize is "auto_ping_size": the length of a ping's random
	// payload, 4..125 (default 4).
	AutoPingSize int
	// AllowedOrigins is "allowed_origins": the Origin values accepted, with
	// '*' wildcards (default ["*"]: any).
	AllowedOrigins []string
	// AllowNullOrigin is "allow_null_origin": accept "Origin: null", which
	// browsers send from sandboxed pages and local files (default true).
	AllowNullOrigin bool
	// OpenHandshakeTimeout is "open_handshake_timeout" (ms): a client must
	// send its upgrade request's headers within it (default 0: the
	// transport's own limit on request headers, at most 10 s). The node
	// applies the shortest one of a transport's WebSocket services to the
	// headers of every request on that transport.
	OpenHandshakeTimeout time.Duration
	// CloseHandshakeTimeout is "close_handshake_timeout" (ms): after
	// sending its close frame, the server waits this long for the client's
	// before it closes TCP (default DefaultCloseHandshakeTimeout; 0: TCP
	// is closed right after the close frame).
	CloseHandshakeTimeout time.Duration
	// EnableWebStatus is "enable_webstatus" (default true). Junction never
	// serves Crossbar's status page: a plain GET without Upgrade always
	// gets 426, which is what false asks for; true given explicitly warns.
	EnableWebStatus bool
	// FailByDrop is "fail_by_drop": a client that breaks the protocol (bad
	// framing, invalid UTF-8, a frame or message too big) loses the TCP
	// connection without a close frame (default false: a close frame with
	// the status goes first).
	FailByDrop bool
	// RequireWebSocketSubprotocol is "require_websocket_subprotocol"
	// (default true): a client offering no WAMP subprotocol is refused
	// with 400. With false it speaks JSON (the json serializer must be
	// allowed).
	RequireWebSocketSubprotocol bool
	// Compression is "compression": with "deflate", permessage-deflate
	// for clients that offer it; nil without.
	Compression *DeflateOptions
	// JoinTimeout is "join_timeout" (ms), a Junction extension: a client
	// must send HELLO within it after the WebSocket handshake, and answer
	// each CHALLENGE within it, or it gets ABORT and is closed (default
	// DefaultJoinTimeout). Here, as in every options struct, 0 means the
	// default; negative means no deadline, which "join_timeout": 0 gives
	// (with a warning).
	JoinTimeout time.Duration
}

// DeflateOptions are "compression"."deflate". Junction compresses every
// message on its own and asks clients to do the same (no context
// takeover either way), so a connection keeps no compression state between
// messages: "no_context_takeover" and "request_no_context_takeover" are
// read (booleans) but act as true, and "memory_level" (1..9, zlib's) has no
// effect on Go's compressor; the node logs it at debug level.
type DeflateOptions struct {
	// MaxWindowBits is "max_window_bits", 8..15 (default 15): below 15, a
	// message longer than 2^MaxWindowBits bytes is sent uncompressed.
	MaxWindowBits int
	// RequestMaxWindowBits is "request_max_window_bits", 0 or 8..15
	// (default 0: none): answered as client_max_window_bits to a client
	// that offers it (8 as 9, which zlib-based clients need).
	RequestMaxWindowBits int
	// MemoryLevel is "memory_level", 1..9 (0: not given).
	MemoryLevel int
}

func defaultWebSocketOptions() WebSocketOptions {
	return WebSocketOptions{
		AutoPingSize:                4,
		CloseHandshakeTimeout:       DefaultCloseHandshakeTimeout,
		AllowedOrigins:              []string{"*"},
		AllowNullOrigin:             true,
		EnableWebStatus:             true,
		RequireWebSocketSubprotocol: true,
		JoinTimeout:                 DefaultJoinTimeout,
	}
}

func (d *decoder) webSocketService(o *object) *WebSocketService {
	s := &WebSocketService{}
	s.Serializers = d.serializers(o)
	s.Auth = d.auth(o, "auth")
	s.Options = d.webSocketOptions(o, false)
	o.ignored("url", ": the service is at its path")
	o.ignored("debug", ": use --loglevel debug")
	s.Cookie = d.cookieTracking(o)
	d.cookieAuthAlone(o, s.Auth, s.Cookie)
	return s
}

// webSocketOptions decodes the "options" of o: a server's (a transport or
// path service), or with client true a component's connection.
func (d *decoder) webSocketOptions(o *object, client bool) WebSocketOptions {
	opts := defaultWebSocketOptions()
	oo, ok := o.child("options")
	if !ok {
		return opts
	}
	d.webSocketOptionValues(oo, &opts)
	if client {
		warnUnusedOptions(oo, clientOptions, "ignored: a component's connection uses only max_message_size, auto_ping_interval and auto_ping_timeout")
	} else {
		warnServerOptions(oo, opts)
	}
	warnPingTimeout(oo, opts)
	if client {
		oo.ignored("compression", ": a component's connection does not compress")
	} else {
		opts.Compression = d.compression(oo)
	}
	oo.done()
	return opts
}

// webSocketOptionValues decodes every WebSocket option of oo into opts.
func (d *decoder) webSocketOptionValues(oo *object, opts *WebSocketOptions) {
	size := func(k string, def int) int { return int(oo.integer(k, int64(def), 0, maxInt32)) }
	ms := func(k string) time.Duration { return time.Duration(oo.integer(k, 0, 0, maxInt32)) * time.Millisecond }
	opts.MaxMessageSize = size("max_message_size", 0)
	opts.MaxFrameSize = size("max_frame_size", 0)
	opts.AutoFragmentSize = size("auto_fragment_size", 0)
	opts.AutoPingInterval = ms("auto_ping_interval")
	opts.AutoPingTimeout = ms("auto_ping_timeout")
	opts.AutoPingSize = int(oo.integer("auto_ping_size", 4, 4, 125))
	if oo.has("allowed_origins") {
		opts.AllowedOrigins = oo.strList("allowed_origins")
	}
	opts.AllowNullOrigin = oo.boolean("allow_null_origin", true)
	opts.OpenHandshakeTimeout = ms("open_handshake_timeout")
	opts.CloseHandshakeTimeout = time.Duration(oo.integer("close_handshake_timeout", DefaultCloseHandshakeTimeout.Milliseconds(), 0, maxInt32)) * time.Millisecond
	opts.EnableWebStatus = oo.boolean("enable_webstatus", true)
	opts.FailByDrop = oo.boolean("fail_by_drop", false)
	opts.RequireWebSocketSubprotocol = oo.boolean("require_websocket_subprotocol", true)
	opts.JoinTimeout = joinTimeout(oo)
}

// joinTimeout decodes "join_timeout" (ms) of oo. Its 0 means no deadline,
// as Crossbar's timeouts do, which is NoJoinTimeout in the options (their
// 0 is the default).
func joinTimeout(oo *object) time.Duration {
	ms := oo.integer("join_timeout", DefaultJoinTimeout.Milliseconds(), 0, maxInt32)
	if ms == 0 {
		return NoJoinTimeout
	}
	return time.Duration(ms) * time.Millisecond
}

// warnNoJoinTimeout warns about a server's "join_timeout": 0.
func warnNoJoinTimeout(oo *object, d time.Duration) {
	if d < 0 {
		oo.d.warnf(oo.at("join_timeout"), "0: no deadline to join; clients may hold connections forever without joining")
	}
}

// compression decodes the "compression" object of oo: only "deflate".
func (d *decoder) compression(oo *object) *DeflateOptions {
	co, ok := oo.child("compression")
	if !ok {
		return nil
	}
	defer co.done()
	do, ok := co.child("deflate")
	if !ok {
		return nil
	}
	defer do.done()
	bits := func(k string, def, lo int64) int {
		n := do.integer(k, def, lo, 15)
		if n != 0 && n < 8 {
			d.errorf(do.at(k), "must be 0 or in 8..15, not %d", n)
		}
		return int(n)
	}
	opts := &DeflateOptions{MaxWindowBits: bits("max_window_bits", 15, 8), RequestMaxWindowBits: bits("request_max_window_bits", 0, 0)}
	do.boolean("no_context_takeover", false)
	do.boolean("request_no_context_takeover", false)
	opts.MemoryLevel = int(do.integer("memory_level", 0, 1, 9))
	return opts
}

// warnServerOptions warns about each option of a server that asks for
// something Junction does not do.
func warnServerOptions(oo *object, opts WebSocketOptions) {
	warnNoJoinTimeout(oo, opts.JoinTimeout)
	oo.ignoredIf(opts.EnableWebStatus, "enable_webstatus", ": there is no status page; a plain GET gets 426 Upgrade Required")
}

// warnPingTimeout warns about an explicit auto_ping_timeout 0, which
// Crossbar reads as "never time out".
func warnPingTimeout(oo *object, opts WebSocketOptions) {
	if opts.AutoPingInterval > 0 && opts.AutoPingTimeout == 0 && oo.has("auto_ping_timeout") {
		oo.d.warnf(oo.at("auto_ping_timeout"), "0 means the same as auto_ping_interval (%d ms) here, not \"never time out\"", opts.AutoPingInterval.Milliseconds())
	}
}

// clientOptions are the WebSocket options a component's connection uses.
var clientOptions = []string{"max_message_size", "auto_ping_interval", "auto_ping_timeout", "compression"}

// warnUnusedOptions warns, with msg, about each option given in oo that
// is not in used.
func warnUnusedOptions(oo *object, used []string, msg string) {
	for _, k := range sortedKeysOf(oo.m) {
		if oo.has(k) && slices.Contains(oo.known, k) && !slices.Contains(used, k) {
			oo.d.warnf(oo.at(k), "%s", msg)
		}
	}
}
