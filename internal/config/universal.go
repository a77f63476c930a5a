package config

// UniversalTransport is a transport of "type": "universal": one listening
// endpoint for RawSocket, WebSocket and HTTP clients. Each connection is
// told apart by the first byte its client sends: 0x7F is RawSocket, 0x10
// MQTT, anything else HTTP. An HTTP request goes to
// the WebSocket service named by the first segment of its URL path, and
// every other request to Web.
type UniversalTransport struct {
	// ID is "id" (default "").
	ID string
	// Endpoint is "endpoint" (required).
	Endpoint ListenEndpoint
	// RawSocket is "rawsocket": the serializers, "auth" and "options" of
	// a RawSocket transport, whose "endpoint" is the universal one (nil:
	// none, and a RawSocket client is closed).
	RawSocket *RawSocketTransport
	// WebSocket is "websocket": a WebSocket service (the keys of a
	// "websocket" transport but "endpoint") by the first segment of the
	// request's URL path, which needs no "Upgrade" header to get there.
	// The key "/" is the root ("/" or "", no segment), a Junction
	// difference: Crossbar accepts it but never matches it (default
	// none).
	WebSocket map[string]*WebSocketService
	// Web is "web": the "paths" and "options" of a web transport, which
	// serve every other HTTP request (nil: none, and such a request gets
	// 404).
	Web *WebTransport
	// MQTT is "mqtt": the "options" of an MQTT transport (nil: none, and
	// an MQTT client is closed).
	MQTT *MQTTOptions
}

func (t *UniversalTransport) TransportID() string { return t.ID }
func (*UniversalTransport) isTransport()          {}

var _ Transport = (*UniversalTransport)(nil)

func (d *decoder) universalTransport(o *object) *UniversalTransport {
	t := &UniversalTransport{ID: d.id(o)}
	t.Endpoint = d.listenEndpointAt(o)
	if so, ok := o.child("rawsocket"); ok {
		subType(so, "rawsocket")
		t.RawSocket = d.rawSocketBody(so)
		so.done()
	}
	if o.has("websocket") {
		t.WebSocket = d.universalWebSockets(o)
	} else {
		o.get("websocket")
	}
	if so, ok := o.child("web"); ok {
		subType(so, "web")
		t.Web = d.webBody(so)
		so.done()
	}
	if so, ok := o.child("mqtt"); ok {
		subType(so, "mqtt")
		if oo, ok := so.reqChild("options"); ok {
			m := d.mqttOptions(oo)
			t.MQTT = &m
			oo.done()
		}
		so.done()
	}
	return t
}

// universalWebSockets decodes "websocket": a WebSocket service by path
// segment.
func (d *decoder) universalWebSockets(o *object) map[string]*WebSocketService {
	ws := map[string]*WebSocketService{}
	o.each("websocket", func(p, key string, v any) {
		if !d.pathKey(p, key) {
			return
		}
		so, ok := d.object(p, v)
		if !ok {
			return
		}
		subType(so, "websocket")
		ws[key] = d.webSocketService(so)
		so.ignored("endpoint", ": the universal transport's endpoint serves it")
		so.done()
	})
	return ws
}

// subType accepts the "type" of a universal transport's part: absent, or
// the type the part is.
func subType(o *object, want string) {
	if v, ok := o.get("type"); ok && v != want {
		o.d.errorf(o.at("type"), "must be %q (or absent), not %s", want, quoteKind(v))
	}
}

// quoteKind is a JSON value v for a message: a string quoted, anything
// else by its kind.
func quoteKind(v any) string {
	if s, ok := v.(string); ok {
		return `"` + s + `"`
	}
	return kind(v)
}
