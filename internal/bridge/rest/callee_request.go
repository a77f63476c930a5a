package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/wamp"
)

// Causes of a call's context ending, told apart in callError.
var (
	errCallTimeout = errors.New("rest: call timed out")
	errStopping    = errors.New("rest: callee stopping")
)

// do makes the call's HTTP request and returns the call's result:
// {"code", "content", "headers"}, in that order. ctx is the invocation's
// context.
func (ce *Callee) do(ctx context.Context, a *callArgs, target *url.URL) (wamp.Object, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(ce.ctx, func() { cancel(errStopping) })
	defer stop()
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, ce.opts.Timeout, errCallTimeout)
	defer cancelTimeout()

	req, err := newCallRequest(ctx, a, target)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	start := time.Now()
	resp, err := ce.http.Do(req)
	if err != nil {
		ce.requests.Observe(meter.NoResponse, time.Since(start))
		return nil, ce.callError(ctx, a, target, err)
	}
	defer resp.Body.Close()
	body, err := readLimited(resp.Body, ce.opts.ResponseLimit)
	ce.requests.Observe(resp.StatusCode, time.Since(start))
	if err != nil {
		return nil, ce.callError(ctx, a, target, err)
	}
	return wamp.Object{
		{Key: "code", Value: int64(resp.StatusCode)},
		{Key: "content", Value: decodeContent(body, resp.Header.Get("Content-Type"))},
		{Key: "headers", Value: headerObject(resp.Header)},
	}, nil
}

// newCallRequest builds the request: params are appended to the url's
// query, the body is sent as given (no Content-Type is added).
func newCallRequest(ctx context.Context, a *callArgs, target *url.URL) (*http.Request, error) {
	u := *target
	if a.query != "" {
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += a.query
	}
	var body io.Reader
	if a.body != "" {
		body = strings.NewReader(a.body)
	}
	req, err := http.NewRequestWithContext(ctx, a.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range a.headers {
		req.Header[k] = vs
	}
	return req, nil
}

// errTooLarge is wrapped when a response body passes the limit.
var errTooLarge = errors.New("rest: response body too large")

func readLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", errTooLarge, limit)
	}
	return b, nil
}

// callError maps a failed exchange to the call's WAMP error (see the
// package doc's table).
func (ce *Callee) callError(ctx context.Context, a *callArgs, target *url.URL, err error) *wamp.RequestError {
	what := a.method + " " + target.Redacted()
	switch cause := context.Cause(ctx); {
	case errors.Is(err, errRedirect):
		return invalidArg("%s: %v", what, transportText(err))
	case errors.Is(cause, errCallTimeout):
		return wamp.Errorf(wamp.ErrTimeout, "callee: %s: no complete response within %s", what, ce.opts.Timeout)
	case errors.Is(cause, errStopping):
		return wamp.Errorf(wamp.ErrCanceled, "callee: %s: canceled, the callee is stopping", what)
	case ctx.Err() != nil:
		return wamp.Errorf(wamp.ErrCanceled, "callee: %s: call canceled", what)
	}
	return wamp.Errorf(wamp.ErrRuntimeError, "callee: %s: %v", what, transportText(err))
}

// transportText is err without the *url.Error prefix that repeats the
// method and URL.
func transportText(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// headerObject turns response headers into {Name: [values]}, names
// sorted (net/http does not keep the order they came in), values made
// valid UTF-8 for the WAMP codecs.
func headerObject(h http.Header) wamp.Object {
	o := make(wamp.Object, 0, len(h))
	for _, k := range slices.Sorted(maps.Keys(h)) {
		vs := h[k]
		l := make(wamp.List, len(vs))
		for i, v := range vs {
			l[i] = strings.ToValidUTF8(v, "\uFFFD")
		}
		o = append(o, wamp.Field{Key: strings.ToValidUTF8(k, "\uFFFD"), Value: l})
	}
	return o
}
