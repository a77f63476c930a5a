package bridge

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Caller answers a POSTed {"procedure", "args", "kwargs", "options"} with
// the result of the WAMP call.
type Caller struct {
	p       *pipeline
	s       Session
	timeout time.Duration       // 0: none
	mode    string              // the CANCEL mode
	opts    []client.CallOption // the options of a call with the configured timeout; read only
	// heartbeat is how long a streamed call may stay silent before a
	// comment is written; 0: never.
	heartbeat time.Duration
	streams   *streamLimit // the streamed calls open
}

var _ http.Handler = (*Caller)(nil)

// NewCaller returns the Caller service over s.
func NewCaller(s Session, o CallerOptions) (*Caller, error) {
	if s == nil {
		return nil, errors.New("bridge: session: required")
	}
	if err := o.Signing.validate(); err != nil {
		return nil, err
	}
	mode, err := o.cancelMode()
	if err != nil {
		return nil, err
	}
	if err := o.StreamLimits.validate(); err != nil {
		return nil, err
	}
	p := newPipeline(&o.Common, true, "caller")
	if err := p.setAccess(&o.Access); err != nil {
		return nil, err
	}
	sg := newSigner(o.Signing, p.log, nil)
	p.verify = func(r *http.Request, body []byte) error {
		return sg.check(r.Context(), parseQuery(r.URL.RawQuery), body)
	}
	c := &Caller{p: p, s: s, timeout: o.callTimeout(), mode: mode, heartbeat: heartbeatOf(o.Heartbeat),
		streams: newStreamLimit(o.StreamLimits, p.log)}
	c.opts = callOptions(c.mode, c.timeout, false)
	p.handle(c.call)
	return c, nil
}

// ServeHTTP runs the pipeline, then the call.
func (c *Caller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.p.serve(w, r)
}

// call performs the call and writes its result. The call runs in the
// request's context, so that it is canceled when the client goes away,
// and the timeout bounds the wait (client.WithWaitLimit: no context is
// derived per call). A client that accepts text/event-stream gets the
// progressive results as they come (stream).
func (c *Caller) call(w http.ResponseWriter, r *http.Request, req *request) error {
	cr, err := parseCall(req.obj)
	if err != nil {
		return err
	}
	if !available(c.s) {
		return ErrUnavailable
	}
	timeout := c.effectiveTimeout(cr.timeout)
	opts := c.opts
	if timeout != c.timeout || cr.discloseMe {
		opts = callOptions(c.mode, timeout, cr.discloseMe)
	}
	if acceptsEventStream(r.Header) {
		return c.stream(w, r, req, &cr, timeout, opts)
	}
	res, err := c.s.Call(req.context(r), cr.procedure, cr.args, cr.kwargs, opts...)
	if err != nil {
		return wampError(r, timeout, err)
	}
	if c.p.debug { // the attributes cost an allocation
		c.p.accepted(r, "procedure", cr.procedure)
	}
	req.result = resultOf(res)
	c.p.writeJSON(w, http.StatusOK, &req.result)
	return nil
}

// callOptions are the options of a call: CANCEL in mode when the client
// goes away or after timeout (when > 0), and disclose_me.
func callOptions(mode string, timeout time.Duration, discloseMe bool) []client.CallOption {
	opts := []client.CallOption{client.WithCancelMode(mode)}
	if timeout > 0 {
		opts = append(opts, client.WithWaitLimit(timeout))
	}
	if discloseMe {
		opts = append(opts, client.WithOptions(wamp.Dict{wamp.OptDiscloseMe: true}))
	}
	return opts
}

// effectiveTimeout is the configured timeout, shortened by the request's.
func (c *Caller) effectiveTimeout(requested time.Duration) time.Duration {
	if requested > 0 && (c.timeout == 0 || requested < c.timeout) {
		return requested
	}
	return c.timeout
}

// wampError classifies an error of the session: a WAMP ERROR from the router
// or a callee is returned as it is; then the HTTP client gone, the timeout
// (the call's wait limit); anything else means the session failed under
// the request (503).
func wampError(r *http.Request, timeout time.Duration, err error) error {
	if _, ok := err.(*wamp.RequestError); ok {
		return err
	}
	if r.Context().Err() != nil {
		return errors.Join(errClientGone, err)
	}
	if timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
		return &timeoutError{after: timeout, cause: err}
	}
	return errors.Join(ErrUnavailable, err)
}

// resultBody is a call's result in Crossbar's shapes.
type resultBody struct {
	Args   wamp.List   `json:"args,omitempty"`
	Kwargs wamp.Object `json:"kwargs,omitempty"`
}

// resultOf shapes a result as Crossbar does: {"args":[x,...]} without
// kwargs, {"args":[null]} for an empty result, {"kwargs":{...}} without
// args, and both when both are there.
func resultOf(res *client.Result) resultBody {
	if len(res.Kwargs) > 0 {
		return resultBody{Args: res.Args, Kwargs: res.Kwargs}
	}
	if len(res.Args) == 0 {
		return resultBody{Args: wamp.List{nil}}
	}
	return resultBody{Args: res.Args}
}

// appendJSON writes the result; an empty member is left out (omitempty).
func (rb *resultBody) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	var err error
	if len(rb.Args) > 0 {
		if b, err = codec.AppendPlainJSONList(append(b, `"args":`...), rb.Args); err != nil {
			return b, err
		}
	}
	if len(rb.Kwargs) > 0 {
		if len(rb.Args) > 0 {
			b = append(b, ',')
		}
		if b, err = codec.AppendPlainJSONObject(append(b, `"kwargs":`...), rb.Kwargs); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
