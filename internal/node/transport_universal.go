package node

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/mqtt"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/unisocket"
	"github.com/junction-wamp/junction/internal/web"
)

// First bytes of the universal transport's protocols.
const (
	firstByteRawSocket = 0x7F
	firstByteMQTT      = 0x10
)

// universalServer serves a "universal" transport: a unisocket.Mux on the
// listener (with the endpoint's TLS) hands RawSocket clients to a
// rawsocket.Server and every other client to a web.Server, whose handler
// picks a WebSocket service or the web paths by the request's first path
// segment.
type universalServer struct {
	mux   *unisocket.Mux
	raw   *rawsocket.Server // nil without "rawsocket"
	rawL  net.Listener
	web   *web.Server
	webL  net.Listener
	mqtt  *mqtt.Server // nil without "mqtt"
	mqttL net.Listener
}

// Serve serves l until it closes (shutdown); the RawSocket and HTTP
// servers end with it.
func (s universalServer) Serve(l net.Listener) error {
	var wg sync.WaitGroup
	var rawErr, webErr error
	if s.raw != nil {
		wg.Go(func() { rawErr = endOfRoute(s.raw.Serve(s.rawL)) })
	}
	var mqttErr error
	if s.mqtt != nil {
		wg.Go(func() { mqttErr = endOfRoute(s.mqtt.Serve(s.mqttL)) })
	}
	wg.Go(func() { webErr = endOfRoute(s.web.Serve(s.webL)) })
	err := s.mux.Serve(l) // closes the routes when it returns
	wg.Wait()
	return errors.Join(err, rawErr, webErr, mqttErr)
}

// endOfRoute is the error of a server whose route ended: nil when the
// route closed with the Mux.
func endOfRoute(err error) error {
	if errors.Is(err, net.ErrClosed) || errors.Is(err, rawsocket.ErrServerClosed) || errors.Is(err, mqtt.ErrServerClosed) {
		return nil
	}
	return err
}

// shutdown stops accepting and lets HTTP requests in flight finish
// (bounded by ctx); WAMP sessions keep running until the router closes
// them.
func (s universalServer) shutdown(ctx context.Context, l net.Listener) error {
	err := s.web.Shutdown(ctx)
	_ = s.mux.Close()
	if cerr := l.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) {
		err = errors.Join(err, cerr)
	}
	return err
}

func (s universalServer) close() error {
	if s.mqtt != nil {
		s.mqtt.Close()
	}
	if s.raw == nil {
		return nil
	}
	return s.raw.Close()
}

// universalTransport builds a "universal" transport.
func (b *builder) universalTransport(path string, ru *routerUnit, t *config.UniversalTransport) (*listenerUnit, error) {
	l := &listenerUnit{path: path, kind: "universal"}
	var errs config.Errors
	spec, err := b.listenSpecOf(t.Endpoint)
	if err != nil {
		errs = append(errs, fieldError(path+".endpoint", err))
	}
	l.spec, l.limits = spec, b.limitsOf(path, t.Endpoint)
	mo := unisocket.Options{Names: map[byte]string{firstByteRawSocket: "RawSocket", firstByteMQTT: "MQTT"},
		Logger: b.log.With("transport", path)}
	if t.Endpoint.TLS != nil {
		if mo.TLS, err = b.serverTLS(t.Endpoint.TLS).Load(); err != nil {
			errs = append(errs, fieldError(path+".endpoint.tls", err))
		}
	}
	var s universalServer
	if t.RawSocket != nil {
		s.raw, err = b.universalRawSocket(path+".rawsocket", ru, t.RawSocket)
		errs = appendError(errs, err)
	}
	s.web, err = b.universalWeb(path, ru, l, t)
	errs = appendError(errs, err)
	var mh *mqtt.Handler
	if t.MQTT != nil {
		var merrs config.Errors
		mh, merrs = b.mqttHandler(path+".mqtt", ru, *t.MQTT)
		errs = append(errs, merrs...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	// A client must send its first byte (after TLS) as fast as HTTP
	// headers: the shortest of the web and WebSocket header timeouts.
	mo.PeekTimeout = l.readHeaderTimeout(web.DefaultReadHeaderTimeout)
	s.mux = unisocket.New(mo)
	if s.raw != nil {
		s.rawL = s.mux.Route(firstByteRawSocket)
	}
	s.webL = s.mux.Fallback()
	if mh != nil {
		s.mqtt = mqtt.NewServer(mh)
		s.mqttL = s.mux.Route(firstByteMQTT)
		l.services = append(l.services, serviceLog{"mqtt service", []any{"realm", t.MQTT.Realm}})
	} else {
		s.mux.Refuse(firstByteMQTT)
	}
	l.srv = s
	logEndpoint(b.log, path, t.Endpoint)
	return l, nil
}

// universalRawSocket builds the RawSocket server of a universal
// transport's "rawsocket" (at path); the Mux does the TLS handshakes.
func (b *builder) universalRawSocket(path string, ru *routerUnit, t *config.RawSocketTransport) (*rawsocket.Server, error) {
	s, err := rawsocket.NewServer(rawsocket.Options{
		Attacher:       clientGate(ru, path, t.Auth, t.JoinTimeout),
		Serializers:    t.Serializers,
		MaxMessageSize: t.MaxMessageSize,
		Logger:         b.log.With("transport", path),
	})
	if err != nil {
		return nil, fieldError(path, err)
	}
	return s, nil
}

// universalWeb builds the web.Server of a universal transport: its
// "websocket" services by first path segment, and its "web" paths and
// options (or 404) for the rest. The Mux does the TLS handshakes.
func (b *builder) universalWeb(path string, ru *routerUnit, l *listenerUnit, t *config.UniversalTransport) (*web.Server, error) {
	var errs config.Errors
	h := firstSegment{ws: map[string]http.Handler{}, web: http.NotFoundHandler()}
	o := web.ServerOptions{Logger: b.log.With("transport", path), ReadHeaderTimeout: web.DefaultReadHeaderTimeout}
	for _, key := range slices.Sorted(maps.Keys(t.WebSocket)) {
		svc := t.WebSocket[key]
		sp := config.ChildPath(path+".websocket", key)
		ws, err := b.webSocketHandler(sp, ru, svc.Serializers, svc.Auth, svc.Options, svc.Cookie)
		if err != nil {
			errs = appendError(errs, err)
			continue
		}
		l.boundHandshake(svc.Options.OpenHandshakeTimeout)
		h.ws[strings.Trim(key, "/")] = ws
		l.services = append(l.services, serviceLog{"websocket service",
			[]any{"url", "/" + strings.Trim(key, "/"), "serializers", svc.Serializers}})
	}
	if t.Web != nil {
		wo, err := b.webServerOptions(path+".web", ru, l, t.Web)
		errs = appendError(errs, err)
		h.web, o = wo.Handler, wo
		o.Logger = b.log.With("transport", path)
	}
	if t.RawSocket != nil {
		l.services = append(l.services, serviceLog{"rawsocket service", []any{"serializers", t.RawSocket.Serializers}})
	}
	o.Handler = h
	o.ReadHeaderTimeout = l.readHeaderTimeout(o.ReadHeaderTimeout)
	o.Engine = httpEngine(o.Engine)
	s, err := web.NewServer(o)
	if err != nil {
		errs = append(errs, fieldError(path, err))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// firstSegment sends a request to the WebSocket service of the first
// segment of its URL path ("" for the root), whatever its headers, as
// Crossbar's universal transport does, and every other request to web. A
// request without an upgrade on a WebSocket path gets the WebSocket
// handler's 426.
type firstSegment struct {
	ws  map[string]http.Handler
	web http.Handler
}

func (h firstSegment) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ws, ok := h.ws[firstPathSegment(r.URL.Path)]; ok {
		ws.ServeHTTP(w, r)
		return
	}
	h.web.ServeHTTP(w, r)
}

// firstPathSegment is the first non-empty segment of an URL path, as
// Crossbar finds it ("//ws/x" -> "ws"); "" when there is none.
func firstPathSegment(p string) string {
	for seg := range strings.SplitSeq(p, "/") {
		if seg = strings.TrimSpace(seg); seg != "" {
			return seg
		}
	}
	return ""
}
