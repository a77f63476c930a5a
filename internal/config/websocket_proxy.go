package config

// WebSocketProxyService is a path service of "type":
// "websocket-reverseproxy": each WebSocket connection at the path is
// relayed, frame by frame, to a backend WebSocket server (often another
// WAMP router), which chooses among the client's subprotocols.
type WebSocketProxyService struct {
	// Options is "options", of the incoming connections: only
	// AllowedOrigins, AllowNullOrigin, OpenHandshakeTimeout and
	// MaxFrameSize apply; every other option is ignored with a warning.
	Options WebSocketOptions
	// Backend is "backend" (required): "type" "websocket", "endpoint" and
	// "url" (required) as a container component's transport has them.
	// Its "serializers", when given, limit the subprotocols passed on to
	// the backend to those of WAMP with these serializers (default: all
	// the client offers). Its "options" are ignored with a warning: the
	// proxy relays frames as they come.
	Backend *ComponentTransport
}

// PathType returns "websocket-reverseproxy".
func (*WebSocketProxyService) PathType() string { return "websocket-reverseproxy" }

// proxyOptions are the incoming-connection options a WebSocket reverse
// proxy applies.
var proxyOptions = []string{"allowed_origins", "allow_null_origin", "open_handshake_timeout", "max_frame_size"}

func (d *decoder) webSocketProxyService(o *object) *WebSocketProxyService {
	d.id(o)
	s := &WebSocketProxyService{Options: defaultWebSocketOptions(), Backend: d.proxyBackendAt(o)}
	d.relayOptions(o, &s.Options, proxyOptions, "ignored: a WebSocket reverse proxy relays frames as they come; of the options it uses only allowed_origins, allow_null_origin, open_handshake_timeout and max_frame_size")
	o.ignored("url", ": the service is at its path")
	return s
}

// proxyBackendAt decodes the "backend" of a WebSocket reverse proxy.
func (d *decoder) proxyBackendAt(o *object) *ComponentTransport {
	bo, ok := o.reqChild("backend")
	if !ok {
		return nil
	}
	defer bo.done()
	t := &ComponentTransport{Options: defaultWebSocketOptions()}
	switch t.Type = bo.reqStr("type"); t.Type {
	case "websocket":
		d.webSocketTarget(bo, t)
		if bo.has("serializers") {
			t.Serializers = d.serializers(bo)
		} else {
			bo.get("serializers")
		}
		d.relayOptions(bo, &t.Options, nil, "ignored: a WebSocket reverse proxy relays frames as they come, with no options of its own towards the backend")
	case "":
		bo.skip()
	default:
		d.errorf(bo.at("type"), "unknown backend type %q (want websocket)", t.Type)
		bo.skip()
	}
	return t
}

// relayOptions decodes the "options" of o into opts, with a warning, msg,
// at each option given that is not in used ("compression" included).
func (d *decoder) relayOptions(o *object, opts *WebSocketOptions, used []string, msg string) {
	oo, ok := o.child("options")
	if !ok {
		return
	}
	d.webSocketOptionValues(oo, opts)
	oo.get("compression")
	warnUnusedOptions(oo, used, msg)
	oo.done()
}
