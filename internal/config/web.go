package config

import (
	"runtime"
	"time"
)

// WebTransport is a transport of "type": "web": an HTTP server whose URL
// paths are served by path services (see PathService).
type WebTransport struct {
	// ID is "id" (default "").
	ID string
	// Endpoint is "endpoint" (required).
	Endpoint ListenEndpoint
	// Paths is "paths" (required): the services by URL path segment; "/"
	// is the root. See PathService.
	Paths Paths
	// Options is "options".
	Options WebOptions
}

// WebOptions is a web transport's "options".
type WebOptions struct {
	// AccessLog is "access_log": log every request (default false).
	AccessLog bool
	// DisplayTracebacks is "display_tracebacks": in Crossbar, show Python
	// tracebacks in error pages (default false). Junction's error pages
	// never show internal details: false is what it does; true is ignored
	// with a warning.
	DisplayTracebacks bool
	// HSTS is "hsts": send Strict-Transport-Security on TLS (default
	// false).
	HSTS bool
	// HSTSMaxAge is "hsts_max_age" (seconds, >= 0): the HSTS max-age,
	// sent as given; 0 sends "max-age=0", which tells browsers to forget
	// the policy (default 31536000, one year).
	HSTSMaxAge time.Duration
	// ClientTimeout is "client_timeout" (seconds, 1..86400, or null): close
	// an HTTP connection idle this long between requests; a client also
	// has at most this long (and never more than 10 seconds) to send a
	// request's headers. Null or absent means DefaultClientTimeout.
	// WebSocket connections are not affected.
	ClientTimeout time.Duration
	// BodyTimeout is "body_timeout" (seconds, 1..86400; a Junction
	// extension): a request body that sends nothing for this long fails
	// (408 from the bridge services) and its connection is closed; a body
	// that keeps arriving is never cut. Absent means DefaultBodyTimeout.
	// WebSocket connections are not affected.
	BodyTimeout time.Duration
	// BodyBufferLimit is "body_buffer_limit" (bytes, >= 0; a Junction
	// extension): the most request-body bytes the transport's caller,
	// publisher and webhook services hold at once, all requests together;
	// a request whose body does not fit now gets 503 with Retry-After.
	// Absent means DefaultBodyBufferLimit; the file's 0 means no bound
	// (with a warning) and is NoBodyBufferLimit here. Each service's
	// post_body_limit must be within it. 0 in a hand-built Config means the
	// default.
	BodyBufferLimit int64
	// HTTPEngine is "http_engine" (a Junction extension): the HTTP/1.1
	// server below the transport's services, HTTPEngineJunction
	// (Junction's own, less work per request), HTTPEngineStdlib (Go's
	// net/http) or HTTPEngineLoop (Linux only: event loops that serve
	// plain proxied GET and HEAD requests themselves, and Junction's own
	// engine for everything else). All serve every path service alike.
	// Absent is "": the default, Junction's own.
	HTTPEngine string
}

// The engines of "http_engine".
const (
	HTTPEngineStdlib   = "stdlib"
	HTTPEngineJunction = "junction"
	HTTPEngineLoop     = "loop"
)

// DefaultClientTimeout is the "client_timeout" of a web transport without
// one: how long an idle keep-alive HTTP connection stays open.
const DefaultClientTimeout = 120 * time.Second

// DefaultBodyTimeout is the "body_timeout" of a web transport without one:
// how long a request body may stall.
const DefaultBodyTimeout = 30 * time.Second

// Body buffer bounds of a web transport.
const (
	// DefaultBodyBufferLimit is the "body_buffer_limit" of a web
	// transport without one: two webhook bodies at their default limit,
	// and room besides.
	DefaultBodyBufferLimit = 64 << 20
	// NoBodyBufferLimit as BodyBufferLimit means no bound
	// ("body_buffer_limit": 0 in the file).
	NoBodyBufferLimit = -1
)

func (t *WebTransport) TransportID() string { return t.ID }
func (*WebTransport) isTransport()          {}

var _ Transport = (*WebTransport)(nil)

func (d *decoder) webTransport(o *object) *WebTransport {
	t := d.webBody(o)
	t.ID = d.id(o)
	t.Endpoint = d.listenEndpointAt(o)
	return t
}

// webBody decodes what a web transport has besides its "id" and
// "endpoint": "paths" and "options" (a universal transport's "web" has
// only these).
func (d *decoder) webBody(o *object) *WebTransport {
	t := &WebTransport{Options: WebOptions{HSTSMaxAge: 31536000 * time.Second,
		ClientTimeout: DefaultClientTimeout, BodyTimeout: DefaultBodyTimeout, BodyBufferLimit: DefaultBodyBufferLimit}}
	if !o.has("paths") {
		o.get("paths")
		o.required("paths")
	} else {
		t.Paths = d.paths(o)
	}
	if v, ok := o.get("options"); ok {
		d.webOptions(o.at("options"), v, &t.Options)
	}
	return t
}

func (d *decoder) webOptions(path string, v any, opts *WebOptions) {
	o, ok := d.object(path, v)
	if !ok {
		return
	}
	opts.AccessLog = o.boolean("access_log", false)
	opts.DisplayTracebacks = o.boolean("display_tracebacks", false)
	o.ignoredIf(opts.DisplayTracebacks, "display_tracebacks", ": error pages never show tracebacks or other internal details")
	opts.HSTS = o.boolean("hsts", false)
	opts.HSTSMaxAge = time.Duration(o.integer("hsts_max_age", 31536000, 0, maxInt32)) * time.Second
	opts.ClientTimeout = time.Duration(o.integer("client_timeout", int64(DefaultClientTimeout/time.Second), 1, 86400)) * time.Second
	opts.BodyTimeout = time.Duration(o.integer("body_timeout", int64(DefaultBodyTimeout/time.Second), 1, 86400)) * time.Second
	opts.BodyBufferLimit = o.zeroIsNone("body_buffer_limit", DefaultBodyBufferLimit, NoBodyBufferLimit,
		"unbounded: concurrent request bodies can make the node buffer any amount")
	opts.HTTPEngine = o.enum("http_engine", "", "HTTP engine", HTTPEngineStdlib, HTTPEngineJunction, HTTPEngineLoop)
	if opts.HTTPEngine == HTTPEngineLoop && runtime.GOOS != "linux" {
		d.errorf(o.at("http_engine"), "%q runs on Linux only", HTTPEngineLoop)
	}
	o.done()
}
