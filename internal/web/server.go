package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/junction-wamp/junction/internal/web/h1"
)

// Default timeouts of Server (see also DefaultBodyTimeout). There is no
// whole-request read timeout and no write timeout: they would cut large
// proxied uploads and downloads, and streamed answers; WebSocket
// connections live as long as their session.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
)

// DefaultHSTSMaxAge is Crossbar's hsts_max_age default (one year), in
// seconds.
const DefaultHSTSMaxAge = 31536000

// ServerOptions configures a Server. The zero value plus a Handler is a
// plain-HTTP server with the default timeouts and no access log.
type ServerOptions struct {
	// Handler serves every request, typically a *Tree. Required.
	Handler http.Handler
	// TLS, when non-nil, makes Serve speak HTTPS.
	TLS *TLSOptions
	// HSTS adds "Strict-Transport-Security: max-age=HSTSMaxAge" to every
	// response sent over TLS (never over plain HTTP, where browsers ignore
	// it). HSTSMaxAge 0 means DefaultHSTSMaxAge, unless HSTSMaxAgeSet;
	// negative is an error.
	HSTS       bool
	HSTSMaxAge int
	// HSTSMaxAgeSet sends HSTSMaxAge as given, 0 included: "max-age=0"
	// tells browsers to forget the policy.
	HSTSMaxAgeSet bool
	// AccessLog logs one info line per request (method, path, status,
	// bytes, duration, remote) to Logger.
	AccessLog bool
	// Logger receives the access log and server errors; nil discards them.
	Logger *slog.Logger
	// ReadHeaderTimeout and IdleTimeout; 0 means the defaults above.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// Engine is the HTTP/1.1 server below the handlers: "" or
	// EngineJunction for the h1 engine (the default: less work per
	// request; see package h1), EngineStdlib for net/http's http.Server,
	// EngineLoop (Linux only) for event loops that serve the plain
	// proxied GET and HEAD requests themselves and hand every other
	// request to the h1 engine. All serve the same handlers with the same
	// timeouts, TLS and shutdown.
	//
	// With EngineLoop, a request is served in a loop when the Handler is
	// a ProxyRouter that routes its path to a ReverseProxy of its own TCP
	// connections (alone or in MeteredProxy) and its head is of the
	// plainest kind (see parseLoopRequest); its connection goes to h1 for
	// good otherwise. With TLS or the access log, h1 serves everything.
	Engine string
	// Loops is the number of event loops of EngineLoop; 0 means
	// DefaultLoops.
	Loops int
	// BodyTimeout is the idle-read timeout of every request body: a body
	// that sends nothing for this long fails with ErrBodyTimeout, and the
	// connection is closed after the answer; one that keeps arriving is
	// never cut. 0 means DefaultBodyTimeout; negative is an error.
	BodyTimeout time.Duration
}

// The engines of ServerOptions.Engine.
const (
	EngineStdlib   = "stdlib"
	EngineJunction = "junction"
	EngineLoop     = "loop"
)

// Server is one web-transport listener: an HTTP server (net/http's or the
// h1 engine) with timeouts, TLS, HSTS and an access log. Serve and
// Shutdown may be called from different goroutines; like http.Server, a
// Server serves once and is not reused after Shutdown.
type Server struct {
	srv engine
	tls *tls.Config // nil for plain HTTP
}

// engine is what Server needs of an HTTP server: *http.Server and
// *h1.Server both have it.
type engine interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
	Close() error
	RegisterOnShutdown(func())
}

var (
	_ engine = (*http.Server)(nil)
	_ engine = (*h1.Server)(nil)
)

// NewServer checks opts, loads the TLS files if any, and returns a Server
// ready to Serve.
func NewServer(opts ServerOptions) (*Server, error) {
	if opts.Handler == nil {
		return nil, fmt.Errorf("%w: server: nil handler", ErrBadOption)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.BodyTimeout < 0 {
		return nil, fmt.Errorf("%w: body timeout %v: must be >= 0", ErrBadOption, opts.BodyTimeout)
	}
	h, err := wrapHandler(opts, log)
	if err != nil {
		return nil, err
	}
	bodyIdle := orDefault(opts.BodyTimeout, DefaultBodyTimeout)
	s := &Server{}
	switch opts.Engine {
	case EngineStdlib:
		bt := &bodyTimeout{timeout: bodyIdle}
		s.srv = &http.Server{
			Handler:           tlsState(bt.wrap(h)), // bt outermost but tlsState: its ResponseWriter is the server's
			ReadHeaderTimeout: orDefault(opts.ReadHeaderTimeout, DefaultReadHeaderTimeout),
			IdleTimeout:       orDefault(opts.IdleTimeout, DefaultIdleTimeout),
			ConnContext:       connContext,
			ConnState:         bt.connState,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		}
	case "", EngineJunction, EngineLoop:
		hs := &h1.Server{
			Handler:           tlsState(h), // the engine bounds the bodies itself
			ReadHeaderTimeout: orDefault(opts.ReadHeaderTimeout, DefaultReadHeaderTimeout),
			IdleTimeout:       orDefault(opts.IdleTimeout, DefaultIdleTimeout),
			BodyTimeout:       bodyIdle,
			ConnContext:       connContext,
			Logger:            log,
		}
		s.srv = hs
		if opts.Engine == EngineLoop {
			if s.srv, err = loopEngineOf(hs, opts); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%w: engine %q: must be %q, %q or %q", ErrBadOption, opts.Engine, EngineStdlib, EngineJunction, EngineLoop)
	}
	if opts.TLS != nil {
		if s.tls, err = opts.TLS.Load(); err != nil {
			return nil, err
		}
		s.tls.NextProtos = []string{"http/1.1"}
		if hs, ok := s.srv.(*http.Server); ok {
			hs.TLSConfig = s.tls
		}
	}
	return s, nil
}

// wrapHandler adds the HSTS and access-log middlewares that opts ask for.
func wrapHandler(opts ServerOptions, log *slog.Logger) (http.Handler, error) {
	h := opts.Handler
	if opts.HSTS {
		if opts.HSTSMaxAge < 0 {
			return nil, fmt.Errorf("%w: hsts_max_age %d: must be >= 0", ErrBadOption, opts.HSTSMaxAge)
		}
		maxAge := opts.HSTSMaxAge
		if !opts.HSTSMaxAgeSet {
			maxAge = orDefault(maxAge, DefaultHSTSMaxAge)
		}
		h = hsts(h, maxAge)
	}
	if opts.AccessLog {
		h = accessLog(h, log)
	}
	return h, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Engine returns the engine that serves: EngineStdlib, EngineJunction or
// EngineLoop, with its number of loops (0 for the others). A Server asked
// for EngineLoop whose loops would serve nothing (TLS, the access log, a
// handler that routes no proxy) says EngineJunction.
func (s *Server) Engine() (name string, loops int) {
	switch e := s.srv.(type) {
	case *http.Server:
		return EngineStdlib, 0
	case *h1.Server:
		return EngineJunction, 0
	default:
		return EngineLoop, engineLoops(e)
	}
}

// Serve accepts connections on l until Shutdown; it returns nil after a
// Shutdown and the accept error otherwise. With TLS, l carries plain TCP
// and Serve does the handshakes.
func (s *Server) Serve(l net.Listener) error {
	var err error
	if s.tls != nil {
		err = s.srv.Serve(tls.NewListener(l, s.tls))
	} else {
		err = s.srv.Serve(l)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting, closes idle connections, and waits for
// in-flight requests to finish or ctx to end (then it returns ctx's error
// and the remaining connections are closed). Hijacked connections
// (WebSockets) are not waited for: their owners close them, typically from
// an OnShutdown function.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	return err
}

// OnShutdown registers f to run, in its own goroutine, when Shutdown
// starts. Call it before Serve.
func (s *Server) OnShutdown(f func()) { s.srv.RegisterOnShutdown(f) }
