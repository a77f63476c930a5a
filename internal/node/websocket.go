package node

import (
	"net/http"
	"slices"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// webSocketHandler builds WAMP over WebSocket for a "websocket" path
// service or transport: its own router.Gate with the authenticators of a,
// and the options mapped from o.
//
// Options the handler does not have are not applied, and logged at warn
// level when set (see notApplied); auto_ping_size is not applied either
// (the handler sends its own ping payload).
func (b *builder) webSocketHandler(path string, ru *routerUnit, serializers []string, a config.Auth,
	o config.WebSocketOptions) (http.Handler, error) {
	h, err := websocket.NewHandler(websocket.Options{
		Attacher:       ru.router.Gate(authenticators(a)...),
		Subprotocols:   subprotocols(serializers),
		MaxMessageSize: o.MaxMessageSize,
		PingInterval:   o.AutoPingInterval,
		PingTimeout:    o.AutoPingTimeout,
		AllowedOrigins: allowedOrigins(o.AllowedOrigins),
		Logger:         b.log.With("path", path),
	})
	if err != nil {
		return nil, pathError(path, err)
	}
	if na := notApplied(o); len(na) > 0 {
		b.log.Warn("websocket options not supported yet, ignored", "path", path+".options", "keys", na)
	}
	return h, nil
}

// notApplied lists the keys of o, set to other than their defaults, that
// the handler does not implement.
func notApplied(o config.WebSocketOptions) []string {
	var keys []string
	add := func(set bool, key string) {
		if set {
			keys = append(keys, key)
		}
	}
	add(o.MaxFrameSize != 0, "max_frame_size")
	add(o.AutoFragmentSize != 0, "auto_fragment_size")
	add(!o.AllowNullOrigin, "allow_null_origin")
	add(o.OpenHandshakeTimeout != 0, "open_handshake_timeout")
	add(o.CloseHandshakeTimeout != 0, "close_handshake_timeout")
	add(!o.EnableWebStatus, "enable_webstatus")
	add(o.FailByDrop, "fail_by_drop")
	add(!o.RequireWebSocketSubprotocol, "require_websocket_subprotocol")
	return keys
}

// subprotocols returns the WebSocket subprotocols of serializer names, each
// plain and batched ("json" -> "wamp.2.json", "wamp.2.json.batched").
func subprotocols(serializers []string) []string {
	out := make([]string, 0, 2*len(serializers))
	for _, s := range serializers {
		out = append(out, "wamp.2."+s)
	}
	for _, s := range serializers {
		out = append(out, "wamp.2."+s+".batched")
	}
	return out
}

// allowedOrigins maps "allowed_origins": a "*" entry means any origin,
// which the handler spells as an empty list.
func allowedOrigins(origins []string) []string {
	if slices.Contains(origins, "*") {
		return nil
	}
	return origins
}
