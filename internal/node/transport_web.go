package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/web"
)

// webServer adapts a web.Server to server.
type webServer struct {
	*web.Server
	log *slog.Logger
}

// Serve serves l, logging its accept errors (see acceptLog).
func (s webServer) Serve(l net.Listener) error {
	return s.Server.Serve(&acceptLog{Listener: l, log: s.log, limit: lograte.Limit{Interval: acceptLogInterval}})
}

// acceptLogInterval is the shortest time between two accept warnings of
// one web listener.
const acceptLogInterval = 5 * time.Second

// acceptLog logs the accept errors of a web listener at warn level, at most
// one line per acceptLogInterval with the count held back. net/http's
// Server retries them (EMFILE from a burst past the descriptor limit
// among them), pausing 5 ms doubling to 1 s, but logs each at debug level
// only. The error goes on unchanged: the Server retries only a net.Error
// that says it is temporary, and stops on any other (the node then logs
// the listener's end).
type acceptLog struct {
	net.Listener
	log   *slog.Logger
	limit lograte.Limit
}

func (l *acceptLog) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		if ok, held := l.limit.Allow(); ok {
			l.log.Warn("web: accept failed", "err", err, "failures_since_last_log", held)
		}
	}
	return c, err
}

// Detach passes the connlimit listener's Detach on, for the loop engine
// (see web.Detacher).
func (l *acceptLog) Detach(c net.Conn) (net.Conn, func(), error) {
	d, ok := l.Listener.(web.Detacher)
	if !ok {
		return nil, nil, fmt.Errorf("node: %T cannot detach connections: %w", l.Listener, errors.ErrUnsupported)
	}
	return d.Detach(c)
}

var _ web.Detacher = (*acceptLog)(nil)

func (s webServer) shutdown(ctx context.Context, l net.Listener) error {
	err := s.Shutdown(ctx)
	_ = l.Close() // in case Serve had not started yet
	return err
}

func (webServer) close() error { return nil }

// webTransport builds a "web" transport: its path tree served by a
// web.Server.
func (b *builder) webTransport(path string, ru *routerUnit, t *config.WebTransport) (*listenerUnit, error) {
	l := &listenerUnit{path: path, kind: "web"}
	o, treeErr := b.webServerOptions(path, ru, l, t)
	l.tree = newSwapHandler(o.Handler)
	o.Handler = l.tree
	l, err := b.httpListener(path, l, t.Endpoint, o)
	if err := joinErrors(treeErr, err); err != nil {
		return nil, err
	}
	return l, nil
}

// webServerOptions builds the path tree of t (its paths at path+".paths")
// for listener l, and the web.ServerOptions of t's options serving it.
// The options are returned even with an error (see tree).
func (b *builder) webServerOptions(path string, ru *routerUnit, l *listenerUnit, t *config.WebTransport) (web.ServerOptions, error) {
	// One body buffer for the transport's bridge services; "body_buffer_limit"
	// maps one to one (config.NoBodyBufferLimit is negative, no bound).
	env := &pathEnv{b: b, types: pathTypes, router: ru, listener: l, bodies: bridge.NewBodyBuffer(t.Options.BodyBufferLimit), top: t.Paths}
	tree, err := b.tree(env, path+".paths", "", t.Paths)
	o := web.ServerOptions{
		Handler:       tree, // webTransport serves it through a swapHandler
		HSTS:          t.Options.HSTS,
		HSTSMaxAge:    int(t.Options.HSTSMaxAge.Seconds()),
		HSTSMaxAgeSet: true,
		AccessLog:     t.Options.AccessLog,
		Logger:        b.log.With("transport", l.path),
		BodyTimeout:   t.Options.BodyTimeout, // 0 from a hand-built config: web's default, the same
		Engine:        t.Options.HTTPEngine,  // "" from a hand-built config: h1, the same
	}
	o.IdleTimeout, o.ReadHeaderTimeout = clientTimeouts(t.Options.ClientTimeout)
	return o, err
}

// testHTTPEngine, when set (by the node's tests, from the environment
// variable JUNCTION_TEST_HTTP_ENGINE), is the HTTP engine of every web
// server whose config names none: the node's whole suite can run on
// either engine.
var testHTTPEngine string

// httpEngine is the engine a web server runs on: the configured one, or
// testHTTPEngine.
func httpEngine(configured string) string {
	if configured == "" {
		return testHTTPEngine
	}
	return configured
}

// clientTimeouts maps "client_timeout" (config.DefaultClientTimeout when
// not given; 0 from a hand-built config means the same): connections idle
// that long between requests are closed, and request headers must arrive
// within it, never more than web.DefaultReadHeaderTimeout.
func clientTimeouts(d time.Duration) (idle, readHeader time.Duration) {
	if d <= 0 {
		d = config.DefaultClientTimeout
	}
	return d, min(d, web.DefaultReadHeaderTimeout)
}

// webSocketTransport builds a "websocket" transport: a web.Server whose
// only handler is WAMP over WebSocket, at every URL path.
func (b *builder) webSocketTransport(path string, ru *routerUnit, t *config.WebSocketTransport) (*listenerUnit, error) {
	h, hErr := b.webSocketHandler(path, ru, t.Serializers, t.Auth, t.Options, t.Cookie)
	if hErr != nil {
		h = http.NotFoundHandler() // to check the endpoint too
	}
	l := &listenerUnit{path: path, kind: "websocket"}
	l.services = append(l.services, serviceLog{"websocket service", []any{"url", "/*", "serializers", t.Serializers}})
	l.boundHandshake(t.Options.OpenHandshakeTimeout)
	o := web.ServerOptions{Handler: h, Logger: b.log.With("transport", path), ReadHeaderTimeout: web.DefaultReadHeaderTimeout}
	l, err := b.httpListener(path, l, t.Endpoint, o)
	if err := joinErrors(hErr, err); err != nil {
		return nil, err
	}
	return l, nil
}

// httpListener completes l with the endpoint and a web.Server with o and
// the endpoint's TLS. Its error may be a config.Errors: the endpoint and
// the server (its TLS files) are both checked.
func (b *builder) httpListener(path string, l *listenerUnit, e config.ListenEndpoint, o web.ServerOptions) (*listenerUnit, error) {
	var errs config.Errors
	spec, err := b.listenSpecOf(e)
	if err != nil {
		errs = append(errs, fieldError(path+".endpoint", err))
	}
	l.spec = spec
	l.limits = b.limitsOf(path, e)
	if e.TLS != nil {
		o.TLS = b.serverTLS(e.TLS)
	}
	o.ReadHeaderTimeout = l.readHeaderTimeout(o.ReadHeaderTimeout)
	configured := o.Engine
	o.Engine = httpEngine(o.Engine)
	logEndpoint(b.log, path, e)
	s, err := web.NewServer(o)
	switch {
	case errors.Is(err, web.ErrTLS):
		errs = append(errs, fieldError(path+".endpoint.tls", err))
	case err != nil:
		errs = append(errs, fieldError(path, err))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for _, f := range l.onShutdown {
		s.OnShutdown(f)
	}
	l.srv = webServer{Server: s, log: o.Logger}
	l.engine, l.loops = s.Engine()
	if configured == web.EngineLoop && l.engine != web.EngineLoop {
		b.log.Warn("http_engine loop has nothing to serve on this transport (TLS, access_log, or no path it routes): Junction's own engine serves it",
			"transport", path)
	}
	return l, nil
}
