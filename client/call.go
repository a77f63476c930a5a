package client

import (
	"context"
	"fmt"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// Result is a call's result (or one progressive result), and what an
// InvocationHandler returns (Args and Kwargs are sent, or Passthru).
type Result struct {
	Args     wamp.List   // positional results; nil for none
	Kwargs   wamp.Object // keyword results, in received order; nil for none
	Details  wamp.Dict   // RESULT.Details as received
	Progress bool        // a progressive result; more follow
	// Passthru is a result in payload passthru mode (payload
	// transparency, Crossbar's form): opaque bytes in place of Args and
	// Kwargs, which are then nil, described by the enc_algo, enc_key and
	// enc_serializer of Details. Received from a callee that yields so;
	// returned by an InvocationHandler (or given to SendProgress), it is
	// sent so, with those three keys of Details as the YIELD's options
	// (enc_algo is required: the router refuses the result without it).
	Passthru []byte
}

// resultOf returns the Result of a RESULT: its values, or its passthru
// payload.
func resultOf(m *wamp.Result) (*Result, error) {
	p := wamp.PayloadOf(m)
	if b := p.Passthru(); b != nil {
		return &Result{Details: m.Details, Passthru: b}, nil
	}
	args, kwargs, err := p.Values()
	if err != nil {
		return nil, err
	}
	return &Result{Args: args, Kwargs: kwargs, Details: m.Details}, nil
}

// yieldOf returns the YIELD of res answering invocation req, with
// options opts (nil: none) and, for a passthru result, its payload
// options.
func yieldOf(req wamp.ID, res *Result, opts wamp.Dict) *wamp.Yield {
	y := &wamp.Yield{Request: req, Options: opts, Args: res.Args, Kwargs: res.Kwargs}
	if res.Passthru == nil {
		return y
	}
	y.Args, y.Kwargs, y.Raw = nil, nil, wamp.NewPassthru(res.Passthru)
	for _, k := range [...]string{wamp.OptEncAlgo, wamp.OptEncKey, wamp.OptEncSerializer} {
		if v, ok := res.Details[k]; ok {
			if y.Options == nil {
				y.Options = wamp.Dict{}
			}
			y.Options[k] = v
		}
	}
	return y
}

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	progress   func(*Result)
	options    wamp.Dict
	timeout    time.Duration
	wait       time.Duration // WithWaitLimit; 0: none
	cancelMode string
}

// WithProgress asks for progressive results (receive_progress) and calls f
// with each, in order, on the calling goroutine, before Call returns the
// final result. Results wait in an unbounded queue while f runs.
func WithProgress(f func(*Result)) CallOption {
	return func(o *callOptions) { o.progress = f }
}

// WithOptions adds raw CALL options (disclose_me, ...). The dict is not
// modified when no other option is set.
func WithOptions(opts wamp.Dict) CallOption {
	return func(o *callOptions) { o.options = opts }
}

// WithTimeout sends d as the CALL timeout option: the router cancels the
// call after d and answers wamp.error.timeout.
func WithTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.timeout = d }
}

// WithWaitLimit makes Call stop waiting after d as if its context had
// ended then with context.DeadlineExceeded: it cancels the call in its
// cancel mode and returns an error wrapping context.DeadlineExceeded.
// Nothing is sent to the router (unlike WithTimeout), and no context is
// derived for the call: a caller whose context is long-lived and already
// cancelable (an HTTP request's) bounds each call for the price of one
// timer.
func WithWaitLimit(d time.Duration) CallOption {
	return func(o *callOptions) { o.wait = d }
}

// WithCancelMode sets the CANCEL mode used when the call's context ends:
// wamp.CancelKill (the default), wamp.CancelKillNoWait or wamp.CancelSkip.
func WithCancelMode(mode string) CallOption {
	return func(o *callOptions) { o.cancelMode = mode }
}

// Call calls procedure with positional args and keyword kwargs (either
// may be nil; wamp.ObjectOf makes kwargs of a map) and waits for its
// result, for the identity of ctx if it has one (WithIdentity). A router
// or callee ERROR
// is returned as a *wamp.RequestError (not wrapped). When ctx ends first,
// Call sends CANCEL and returns an error wrapping ctx.Err(): at once for the
// killnowait and skip modes, after the router's answer for kill (a RESULT
// that wins the race is returned as a success), or after Config.CancelWait
// if the router does not answer.
func (s *Session) Call(ctx context.Context, procedure wamp.URI, args wamp.List, kwargs wamp.Object,
	opts ...CallOption) (*Result, error) {
	r, err := s.newCallRequest(opts)
	if err != nil {
		return nil, fmt.Errorf("client: call %s: %w", procedure, err)
	}
	o := &r.opts
	m := &wamp.Call{Request: r.id, Options: s.callOptions(ctx, o, nil), Procedure: procedure, Args: args, Kwargs: kwargs}
	return s.sendCall(ctx, r, m)
}

// CallPassthru calls procedure with payload in payload passthru mode
// (payload transparency), as autobahn and Crossbar.io send it: opaque
// bytes that the router forwards untouched, described by passthru, which
// must hold wamp.OptEncAlgo ("mqtt", "cryptobox", "xbr" or a custom
// "x_..." name) and may hold wamp.OptEncKey and wamp.OptEncSerializer;
// they go out with the CALL's other options. The callee gets the bytes as
// Invocation.Passthru. Otherwise as Call; a passthru result comes back as
// Result.Passthru.
func (s *Session) CallPassthru(ctx context.Context, procedure wamp.URI, payload []byte, passthru wamp.Dict,
	opts ...CallOption) (*Result, error) {
	r, err := s.newCallRequest(opts)
	if err != nil {
		return nil, fmt.Errorf("client: call %s: %w", procedure, err)
	}
	options := s.callOptions(ctx, &r.opts, passthru)
	m := &wamp.Call{Request: r.id, Options: options, Procedure: procedure, Raw: wamp.NewPassthru(payload)}
	return s.sendCall(ctx, r, m)
}

// sendCall sends m, the CALL of request r, and waits for its result.
func (s *Session) sendCall(ctx context.Context, r *request, m *wamp.Call) (*Result, error) {
	procedure, o := m.Procedure, &r.opts
	if err := s.peer.Send(acting(ctx, m)); err != nil {
		s.forget(r)
		return nil, fmt.Errorf("client: call %s: %w", procedure, err)
	}
	return s.awaitCall(ctx, r, procedure, o)
}

// callOptions builds the CALL options, with extra's (a passthru call's)
// among them; nil when there are none.
func (s *Session) callOptions(ctx context.Context, o *callOptions, extra wamp.Dict) wamp.Dict {
	timeout := o.timeout
	if timeout == 0 && s.cfg.CallTimeout > 0 && o.wait <= 0 {
		if _, ok := ctx.Deadline(); !ok {
			timeout = s.cfg.CallTimeout
		}
	}
	if o.progress == nil && timeout <= 0 && extra == nil {
		return o.options
	}
	d := make(wamp.Dict, len(o.options)+len(extra)+2)
	for k, v := range o.options {
		d[k] = v
	}
	for k, v := range extra {
		d[k] = v
	}
	if o.progress != nil {
		d[wamp.OptReceiveProgress] = true
	}
	if timeout > 0 {
		d[wamp.OptTimeout] = max(timeout.Milliseconds(), 1)
	}
	return d
}

// awaitCall waits for the final reply, running progress callbacks meanwhile.
func (s *Session) awaitCall(ctx context.Context, r *request, procedure wamp.URI, o *callOptions) (*Result, error) {
	var progress <-chan struct{}
	if r.progress != nil {
		progress = r.progress.ready
	}
	var expired <-chan time.Time
	if o.wait > 0 {
		t := s.timer(o.wait)
		defer s.stopTimer(t)
		expired = t.C
	}
	for {
		select {
		case m := <-r.reply: // nil when the session ended first (end)
			s.runProgress(r, o)
			if m == nil {
				return nil, fmt.Errorf("client: call %s: %w", procedure, s.endErr())
			}
			s.recycle(r)
			return callReply(m)
		case <-progress:
			s.runProgress(r, o)
		case <-ctx.Done():
			return s.cancelCall(ctx.Err(), r, procedure, o)
		case <-expired:
			return s.cancelCall(context.DeadlineExceeded, r, procedure, o)
		}
	}
}

// timer returns a timer that fires after d, one of s.timers if it
// keeps one.
func (s *Session) timer(d time.Duration) *time.Timer {
	if t, ok := s.timers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

// stopTimer stops t and keeps it for reuse, its channel empty: a value
// it sent unread is drained (a program built for Go before 1.23 keeps
// the asynchronous timer channels, which Stop does not empty).
func (s *Session) stopTimer(t *time.Timer) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	s.timers.Put(t)
}

func (s *Session) runProgress(r *request, o *callOptions) {
	if r.progress == nil {
		return
	}
	for _, m := range r.progress.take() {
		res, err := resultOf(m)
		if err != nil {
			s.log.Warn("client: progressive result dropped", "err", err)
			continue
		}
		res.Progress = true
		o.progress(res)
	}
}

// callReply turns the final reply into Call's return values.
func callReply(m wamp.Message) (*Result, error) {
	switch m := m.(type) {
	case *wamp.Result:
		res, err := resultOf(m)
		if err != nil {
			return nil, fmt.Errorf("client: result: %w", err)
		}
		return res, nil
	case *wamp.Error:
		return nil, requestError(m)
	}
	return nil, unexpected(m)
}

// cancelCall sends CANCEL after the call's context ended (with why) and
// waits for the router's answer in kill mode.
func (s *Session) cancelCall(why error, r *request, procedure wamp.URI, o *callOptions) (*Result, error) {
	mode := o.cancelMode
	if mode == "" {
		mode = wamp.CancelKill
	}
	cause := fmt.Errorf("client: call %s: %w", procedure, why)
	err := s.peer.Send(&wamp.Cancel{Request: r.id, Options: wamp.Dict{wamp.OptMode: mode}})
	if err != nil || mode != wamp.CancelKill {
		s.forget(r)
		return nil, cause
	}
	t := time.NewTimer(s.cfg.cancelWait())
	defer t.Stop()
	var m wamp.Message
	select {
	case m = <-r.reply:
		if m == nil { // the session ended first
			return nil, cause
		}
	case <-t.C:
		s.forget(r)
		return nil, cause
	case <-s.done:
		if m, err = s.replyOrEnd(r); err != nil {
			return nil, cause
		}
	}
	res, err := callReply(m)
	if err != nil {
		return nil, fmt.Errorf("%w (router: %w)", cause, err)
	}
	return res, nil
}

// handleResult delivers a RESULT; it runs on the reader.
func (s *Session) handleResult(m *wamp.Result) *wamp.RequestError {
	if p, _ := m.Details[wamp.OptProgress].(bool); !p {
		s.reply(m.Request, m)
		return nil
	}
	s.mu.Lock()
	r := s.pending[m.Request]
	s.mu.Unlock()
	if r == nil || r.progress == nil {
		s.log.Debug("client: progressive result to no progressive call", "request", m.Request)
		return nil
	}
	r.progress.push(m)
	return nil
}
