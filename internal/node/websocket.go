package node

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/internal/web"
)

// webSocketHandler builds WAMP over WebSocket for a "websocket" path
// service or transport: its own router.Gate with the authenticators of a
// and o's join_timeout, and the options mapped from o. The options the handler does not have
// were reported by package config when the file loaded (each at its path);
// allow_null_origin is applied here (see nullOrigin), and
// require_websocket_subprotocol false lets clients without a subprotocol
// speak JSON.
func (b *builder) webSocketHandler(path string, ru *routerUnit, serializers []string, a config.Auth,
	o config.WebSocketOptions, cookie *config.CookieTracking) (http.Handler, error) {
	assumeJSON := !o.RequireWebSocketSubprotocol
	if assumeJSON && len(serializers) > 0 && !slices.Contains(serializers, "json") {
		return nil, fieldError(path+".options.require_websocket_subprotocol",
			errors.New("false needs the json serializer: a client without a subprotocol speaks JSON"))
	}
	store, err := b.cookieStore(path+".cookie", ru, cookie)
	if err != nil {
		return nil, err
	}
	h, err := websocket.NewHandler(websocket.Options{
		Attacher:              cookieGate(ru, path, a, o.JoinTimeout, store),
		Cookies:               cookieTracker(store),
		KeepHeaders:           ru.dyn.keepHeaders(a),
		Subprotocols:          subprotocols(serializers),
		AssumeJSON:            assumeJSON,
		MaxMessageSize:        o.MaxMessageSize,
		PingInterval:          o.AutoPingInterval,
		PingTimeout:           o.AutoPingTimeout,
		AllowedOrigins:        allowedOrigins(o.AllowedOrigins, o.AllowNullOrigin),
		MaxFrameSize:          o.MaxFrameSize,
		FragmentSize:          o.AutoFragmentSize,
		PingSize:              o.AutoPingSize,
		FailByDrop:            o.FailByDrop,
		CloseHandshakeTimeout: o.CloseHandshakeTimeout,
		Deflate:               b.deflate(path, o.Compression),
		Logger:                b.log.With("path", path),
	})
	if err != nil {
		return nil, fieldError(path, err)
	}
	return nullOrigins(h, o.AllowNullOrigin), nil
}

// buildWebSocketProxy builds a "websocket-reverseproxy" service: a
// web.WebSocketProxy to the backend, whose relayed connections end (close
// 1001) when the node stops (see proxyUnit).
func buildWebSocketProxy(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.WebSocketProxyService)
	env.listener.boundHandshake(s.Options.OpenHandshakeTimeout)
	target, err := env.b.webSocketTarget(s.Backend, true)
	if err != nil {
		return nil, fieldError(path+".backend", err)
	}
	p, err := web.NewWebSocketProxy(web.WebSocketProxyOptions{
		URL:            target.url,
		NetDial:        target.netDial,
		TLSConfig:      target.tls,
		Subprotocols:   subprotocols(s.Backend.Serializers),
		DialTimeout:    s.Backend.Endpoint.Timeout,
		AllowedOrigins: allowedOrigins(s.Options.AllowedOrigins, s.Options.AllowNullOrigin),
		MaxFrameSize:   s.Options.MaxFrameSize,
		Logger:         env.b.log.With("url", url),
	})
	if err != nil {
		return nil, fieldError(path, err)
	}
	env.addProxy(path, p)
	return env.meterProxy(path, url, nullOrigins(p, s.Options.AllowNullOrigin)), nil
}

// deflate maps "compression"."deflate" (nil: none). Its memory_level, a
// zlib setting, is accepted without effect and logged at debug level.
func (b *builder) deflate(path string, c *config.DeflateOptions) *websocket.Deflate {
	if c == nil {
		return nil
	}
	if c.MemoryLevel != 0 {
		b.log.Debug("deflate memory_level has no effect: each message is compressed on its own",
			"path", path+".options.compression.deflate.memory_level", "memory_level", c.MemoryLevel)
	}
	return &websocket.Deflate{MaxWindowBits: c.MaxWindowBits, ClientMaxWindowBits: c.RequestMaxWindowBits}
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
// which the handler spells as an empty list. With allowNull, "Origin: null"
// is accepted too (Crossbar checks it apart from the list).
func allowedOrigins(origins []string, allowNull bool) []string {
	if slices.Contains(origins, "*") {
		return nil
	}
	if allowNull && !slices.Contains(origins, nullOrigin) {
		origins = append(slices.Clip(origins), nullOrigin)
	}
	return origins
}

// nullOrigin is the Origin header of sandboxed pages and local files.
const nullOrigin = "null"

// nullOrigins is next, or with allow false ("allow_null_origin": false)
// next behind refuseNullOrigin.
func nullOrigins(next http.Handler, allow bool) http.Handler {
	if allow {
		return next
	}
	return refuseNullOrigin(next)
}

// refuseNullOrigin answers a request with "Origin: null" 403, as the
// handler answers an origin that is not allowed ("allow_null_origin":
// false); other requests go to next.
func refuseNullOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Origin"), nullOrigin) {
			http.Error(w, "websocket: origin not allowed", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
