package config

import (
	"slices"
	"time"
)

// Transport is an item of a router's "transports": a *WebTransport, a
// *WebSocketTransport, a *RawSocketTransport, a *UniversalTransport or a
// *FlashPolicyTransport.
type Transport interface {
	// TransportID is the transport's "id" ("" when not given).
	TransportID() string
	isTransport()
}

// listenEndpointOf returns the "endpoint" of t (zero for nil).
func listenEndpointOf(t Transport) ListenEndpoint {
	switch t := t.(type) {
	case *WebTransport:
		return t.Endpoint
	case *WebSocketTransport:
		return t.Endpoint
	case *RawSocketTransport:
		return t.Endpoint
	case *MQTTTransport:
		return t.Endpoint
	case *UniversalTransport:
		return t.Endpoint
	case *FlashPolicyTransport:
		return t.Endpoint
	}
	return ListenEndpoint{}
}

// Serializers are the WAMP serializer names, in Crossbar's order of
// preference.
var Serializers = []string{"cbor", "msgpack", "ubjson", "json"}

// WebSocketTransport is a transport of "type": "websocket": WAMP over
// WebSocket on its own endpoint, at any URL path.
type WebSocketTransport struct {
	// ID is "id" (default "").
	ID string
	// Endpoint is "endpoint" (required).
	Endpoint ListenEndpoint
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

// RawSocketTransport is a transport of "type": "rawsocket": WAMP over
// RawSocket framing.
type RawSocketTransport struct {
	// ID is "id" (default "").
	ID string
	// Endpoint is "endpoint" (required).
	Endpoint ListenEndpoint
	// Serializers is "serializers": any of "cbor", "msgpack", "ubjson",
	// "json" (default all of them).
	Serializers []string
	// Auth is "auth" (default anonymous with role "anonymous").
	Auth Auth
	// MaxMessageSize is "options.max_message_size": the largest message
	// accepted, in bytes, 512..16777216 (default 1048576).
	MaxMessageSize int
	// JoinTimeout is "options.join_timeout" (ms), a Junction extension: a
	// client must send HELLO within it after the RawSocket handshake, and
	// answer each CHALLENGE within it (default DefaultJoinTimeout). 0
	// means the default; negative, no deadline, which "join_timeout": 0
	// gives (with a warning).
	JoinTimeout time.Duration
}

func (t *WebSocketTransport) TransportID() string { return t.ID }
func (t *RawSocketTransport) TransportID() string { return t.ID }
func (*WebSocketTransport) isTransport()          {}
func (*RawSocketTransport) isTransport()          {}

var (
	_ Transport = (*WebSocketTransport)(nil)
	_ Transport = (*RawSocketTransport)(nil)
)

// transport decodes an item of "transports", by its "type".
func (d *decoder) transport(path string, v any) Transport {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	var t Transport
	switch typ := o.reqStr("type"); typ {
	case "web":
		t = d.webTransport(o)
	case "websocket":
		t = d.webSocketTransport(o)
	case "rawsocket":
		t = d.rawSocketTransport(o)
	case "mqtt":
		t = d.mqttTransport(o)
	case "universal":
		t = d.universalTransport(o)
	case "flashpolicy":
		t = d.flashPolicyTransport(o)
	case "":
		o.skip()
	case "websocket.testee", "stream.testee":
		d.errorf(o.at("type"), "not supported: transport type %q (%s)", typ, unsupportedTransports[typ])
		o.skip()
	default:
		d.errorf(o.at("type"), "unknown transport type %q (want web, websocket, rawsocket, universal, flashpolicy)", typ)
		o.skip()
	}
	o.done()
	return t
}

// listenEndpointAt decodes the required "endpoint".
func (d *decoder) listenEndpointAt(o *object) ListenEndpoint {
	v, ok := o.get("endpoint")
	if !ok {
		o.required("endpoint")
		return ListenEndpoint{}
	}
	return d.listenEndpoint(o.at("endpoint"), v)
}

func (d *decoder) webSocketTransport(o *object) *WebSocketTransport {
	t := &WebSocketTransport{ID: d.id(o)}
	t.Endpoint = d.listenEndpointAt(o)
	t.Serializers = d.serializers(o)
	t.Auth = d.auth(o, "auth")
	t.Options = d.webSocketOptions(o, false)
	o.ignored("url", ": the transport serves every URL path")
	o.ignored("debug", ": use --loglevel debug")
	t.Cookie = d.cookieTracking(o)
	d.cookieAuthAlone(o, t.Auth, t.Cookie)
	return t
}

func (d *decoder) rawSocketTransport(o *object) *RawSocketTransport {
	t := d.rawSocketBody(o)
	t.ID = d.id(o)
	t.Endpoint = d.listenEndpointAt(o)
	return t
}

// rawSocketBody decodes what a RawSocket transport has besides its "id"
// and "endpoint" (a universal transport's "rawsocket" has only this).
func (d *decoder) rawSocketBody(o *object) *RawSocketTransport {
	t := &RawSocketTransport{MaxMessageSize: 1 << 20, JoinTimeout: DefaultJoinTimeout}
	t.Serializers = d.serializers(o)
	t.Auth = d.auth(o, "auth")
	d.cookieAuthAlone(o, t.Auth, nil)
	if v, ok := o.get("options"); ok {
		if oo, ok := d.object(o.at("options"), v); ok {
			t.MaxMessageSize = int(oo.integer("max_message_size", 1<<20, 512, 1<<24))
			t.JoinTimeout = joinTimeout(oo)
			warnNoJoinTimeout(oo, t.JoinTimeout)
			oo.done()
		}
	}
	o.ignored("debug", ": use --loglevel debug")
	return t
}

// serializers decodes "serializers" (default all).
func (d *decoder) serializers(o *object) []string {
	if !o.has("serializers") {
		o.get("serializers")
		return slices.Clone(Serializers)
	}
	var out []string
	n := len(d.errs)
	o.list("serializers", func(p string, v any) {
		s, ok := d.str(p, v)
		switch {
		case !ok:
		case !slices.Contains(Serializers, s):
			d.errorf(p, "unknown serializer %q (want json, msgpack, cbor, ubjson)", s)
		case slices.Contains(out, s):
			d.errorf(p, "duplicate serializer %q", s)
		default:
			out = append(out, s)
		}
	})
	if len(out) == 0 && len(d.errs) == n {
		d.errorf(o.at("serializers"), "must name at least one serializer")
	}
	return out
}
