package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/wamp"
)

// Callee defaults.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultResponseLimit = 16 << 20 // bytes of a response body
)

// CalleeOptions configure a Callee. Procedure is required; the other zero
// values are the defaults.
type CalleeOptions struct {
	// Procedure is the URI the Callee registers.
	Procedure wamp.URI
	// BaseURL: every request goes below it (same scheme, host, port and
	// path prefix). "" allows any absolute http or https URL.
	BaseURL string
	// Invoke is the registration's invocation policy ("roundrobin",
	// ...); "" is the router's default, single. A Callee that several
	// nodes of a cluster run registers shared, so that each node's serves.
	Invoke string
	// Timeout bounds one call's HTTP exchange, redirects and body read
	// included; 0 means DefaultTimeout.
	Timeout time.Duration
	// ResponseLimit bounds the response body read; 0 means
	// DefaultResponseLimit. A larger body fails the call.
	ResponseLimit int64
	// HTTPClient makes the requests; nil means a client of our own on a
	// pooled keep-alive transport. It is copied, not modified: the copy
	// gets a CheckRedirect that keeps redirects below BaseURL.
	HTTPClient *http.Client
	// Logger; nil discards.
	Logger *slog.Logger
}

// Callee registers one procedure and serves each call with an HTTP request
// below its base URL. Calls are served concurrently. Safe for concurrent use.
type Callee struct {
	opts   CalleeOptions
	base   baseURL
	http   *http.Client
	log    *slog.Logger
	ctx    context.Context // canceled when Stop gives up waiting
	cancel context.CancelFunc
	calls  inflight // calls in flight
	// requests count the calls' HTTP requests by status (Stats).
	requests meter.Requests

	mu  sync.Mutex           // guards reg
	reg *client.Registration // nil before Start and after Stop
}

// NewCallee checks o and returns a Callee ready to Start.
func NewCallee(o CalleeOptions) (*Callee, error) {
	if !wamp.ValidURI(o.Procedure, false, wamp.MatchExact) {
		return nil, fmt.Errorf("rest: callee procedure: invalid URI %q", o.Procedure)
	}
	switch o.Invoke {
	case "", wamp.InvokeSingle, wamp.InvokeRoundRobin, wamp.InvokeRandom, wamp.InvokeFirst, wamp.InvokeLast:
	default:
		return nil, fmt.Errorf("rest: callee: invalid invocation policy %q", o.Invoke)
	}
	base, err := parseBaseURL(o.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("rest: callee: %w", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ResponseLimit <= 0 {
		o.ResponseLimit = DefaultResponseLimit
	}
	ce := &Callee{opts: o, base: base, log: loggerOr(o.Logger).With("procedure", o.Procedure)}
	ce.http = httpClient(o.HTTPClient, base.contains)
	ce.ctx, ce.cancel = context.WithCancel(context.Background())
	return ce, nil
}

// Start registers the procedure on c; c registers it again after every
// reconnect.
func (ce *Callee) Start(ctx context.Context, c *client.Client) error {
	var opts wamp.Dict
	if ce.opts.Invoke != "" {
		opts = wamp.Dict{wamp.OptInvoke: ce.opts.Invoke}
	}
	reg, err := c.Register(ctx, ce.opts.Procedure, ce.handle, opts)
	if err != nil {
		return fmt.Errorf("rest: callee: register %s: %w", ce.opts.Procedure, err)
	}
	ce.mu.Lock()
	ce.reg = reg
	ce.mu.Unlock()
	ce.log.Info("rest: callee registered", "baseurl", ce.opts.BaseURL, "invoke", ce.opts.Invoke)
	return nil
}

// Stop unregisters the procedure and waits for the calls in flight; when
// ctx ends first their requests are canceled and Stop returns ctx's error.
func (ce *Callee) Stop(ctx context.Context) error {
	ce.mu.Lock()
	reg := ce.reg
	ce.reg = nil
	ce.mu.Unlock()
	var err error
	if reg != nil {
		err = reg.Unregister(ctx)
	}
	if werr := ce.calls.wait(ctx, ce.cancel); werr != nil {
		err = errors.Join(err, werr)
	}
	ce.cancel()
	ce.http.CloseIdleConnections()
	if err != nil {
		return fmt.Errorf("rest: callee stop: %w", err)
	}
	return nil
}

// handle serves one invocation; it runs on the client's goroutine for it.
// ctx ends when the caller cancels (INTERRUPT) or the session ends.
func (ce *Callee) handle(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
	if !ce.calls.begin() {
		return nil, wamp.Errorf(wamp.ErrCanceled, "callee: stopping")
	}
	defer ce.calls.end()
	a, err := parseCallArgs(inv.Args, inv.Kwargs)
	if err != nil {
		return nil, err
	}
	target, err := ce.base.resolve(a.url)
	if err != nil {
		return nil, invalidArg("url %q refused: %v", a.url, err)
	}
	res, err := ce.do(ctx, a, target)
	if err != nil {
		ce.log.Debug("rest: callee call failed", "method", a.method, "url", target.Redacted(), "err", err)
		return nil, err
	}
	return &client.Result{Args: wamp.List{res}}, nil
}

// Stats returns the calls' HTTP requests by the status they got.
func (ce *Callee) Stats() meter.RequestStats { return ce.requests.Snapshot() }
