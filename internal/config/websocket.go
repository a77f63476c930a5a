package config

import "time"

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
}

// PathType returns "websocket".
func (*WebSocketService) PathType() string { return "websocket" }

// WebSocketOptions are the "options" of a WebSocket transport or path
// service. Durations are given in milliseconds; sizes in bytes.
type WebSocketOptions struct {
	// MaxMessageSize is "max_message_size": the largest message accepted
	// (default 0 meaning no limit beyond the transport's own).
	MaxMessageSize int
	// MaxFrameSize is "max_frame_size": the largest frame accepted (default
	// 0 meaning no limit).
	MaxFrameSize int
	// AutoFragmentSize is "auto_fragment_size": outgoing messages are split
	// into frames of at most this size (default 0: no splitting).
	AutoFragmentSize int
	// AutoPingInterval is "auto_ping_interval" (ms): send a ping after this
	// much silence (default 0: never).
	AutoPingInterval time.Duration
	// AutoPingTimeout is "auto_ping_timeout" (ms): close the connection
	// when a ping is not answered within this time (default 0: wait
	// forever).
	AutoPingTimeout time.Duration
	// AutoPingSize is "auto_ping_size": the ping payload length, 4..125
	// (default 4).
	AutoPingSize int
	// AllowedOrigins is "allowed_origins": the Origin values accepted, with
	// '*' wildcards (default ["*"]: any).
	AllowedOrigins []string
	// AllowNullOrigin is "allow_null_origin": accept "Origin: null"
	// (default true).
	AllowNullOrigin bool
	// OpenHandshakeTimeout is "open_handshake_timeout" (ms) (default 0:
	// none).
	OpenHandshakeTimeout time.Duration
	// CloseHandshakeTimeout is "close_handshake_timeout" (ms) (default 0:
	// none).
	CloseHandshakeTimeout time.Duration
	// EnableWebStatus is "enable_webstatus": a plain GET without Upgrade
	// gets a status page (default true; false answers 426).
	EnableWebStatus bool
	// FailByDrop is "fail_by_drop": on a protocol error, drop the TCP
	// connection without a closing handshake (default false).
	FailByDrop bool
	// RequireWebSocketSubprotocol is "require_websocket_subprotocol": refuse
	// clients that offer no WAMP subprotocol (default true; false assumes
	// JSON).
	RequireWebSocketSubprotocol bool
}

func defaultWebSocketOptions() WebSocketOptions {
	return WebSocketOptions{
		AutoPingSize:                4,
		AllowedOrigins:              []string{"*"},
		AllowNullOrigin:             true,
		EnableWebStatus:             true,
		RequireWebSocketSubprotocol: true,
	}
}

func (d *decoder) webSocketService(o *object) *WebSocketService {
	s := &WebSocketService{}
	s.Serializers = d.serializers(o)
	s.Auth = d.auth(o, "auth")
	s.Options = d.webSocketOptions(o)
	o.ignored("url", ": the service is at its path")
	o.ignored("debug", ": use --loglevel debug")
	o.unsupported("cookie", " (cookie tracking)")
	return s
}

// webSocketOptions decodes the "options" of o.
func (d *decoder) webSocketOptions(o *object) WebSocketOptions {
	opts := defaultWebSocketOptions()
	v, ok := o.get("options")
	if !ok {
		return opts
	}
	oo, ok := d.object(o.at("options"), v)
	if !ok {
		return opts
	}
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
	opts.CloseHandshakeTimeout = ms("close_handshake_timeout")
	opts.EnableWebStatus = oo.boolean("enable_webstatus", true)
	opts.FailByDrop = oo.boolean("fail_by_drop", false)
	opts.RequireWebSocketSubprotocol = oo.boolean("require_websocket_subprotocol", true)
	oo.ignored("compression", ": permessage-deflate is not offered")
	oo.done()
	return opts
}
