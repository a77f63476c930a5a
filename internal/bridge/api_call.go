package bridge

import (
	"bytes"
	"net/http"
	"unicode/utf8"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/apiroute"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// apiRequest is a request as its route's templates see it
// (apiroute.Request).
type apiRequest struct {
	route   *apiroute.Route
	values  []string // the path parameters', in the order of route.Path.Params()
	query   query
	body    any
	hasBody bool
	as      *wamp.Identity // who the request comes from; nil: the session itself
}

var _ apiroute.Request = (*apiRequest)(nil)

func (q *apiRequest) Path(name string) (string, bool) {
	for i, n := range q.route.Path.Params() {
		if n == name {
			return q.values[i], true
		}
	}
	return "", false
}

func (q *apiRequest) Query(name string) (string, bool) {
	v, ok := q.query[name]
	return v, ok
}

func (q *apiRequest) Body() (any, bool) { return q.body, q.hasBody }

// Field returns a member of the body, through objects.
func (q *apiRequest) Field(path []string) (any, bool) {
	v, ok := q.body, q.hasBody
	for _, k := range path {
		if v, ok = member(v, k); !ok {
			return nil, false
		}
	}
	return v, ok
}

// member returns the member k of v when v is an object (a decoded body's
// wamp.Object, or a callee's wamp.Dict).
func member(v any, k string) (any, bool) {
	switch o := v.(type) {
	case wamp.Object:
		return o.Get(k)
	case wamp.Dict:
		x, ok := o[k]
		return x, ok
	}
	return nil, false
}

// call reads the body when the route uses it, fills the route's args and
// kwargs and calls its procedure for the request's identity.
func (a *API) call(w http.ResponseWriter, r *http.Request, req *apiRequest) error {
	c := &a.routes[req.route.Index]
	if c.body {
		held, err := a.readBody(w, r, req)
		defer a.p.buf.release(held)
		if err != nil {
			return err
		}
	}
	if !available(a.s) {
		return ErrUnavailable
	}
	args, kwargs := fill(req)
	ctx := r.Context()
	if req.as != nil {
		ctx = client.WithIdentity(ctx, req.as)
	}
	res, err := a.s.Call(ctx, c.procedure, args, kwargs, a.opts...)
	if err != nil {
		return wampError(r, a.timeout, err)
	}
	a.p.accepted(r, "procedure", c.procedure)
	if c.response {
		return a.writeResponse(w, res, c.status)
	}
	a.writeResult(w, res, c.status)
	return nil
}

// readBody reads and decodes the request's JSON body (any JSON value; an
// empty body is none), within the body limit and the transport's body
// buffer. It returns the bytes held in the buffer, to release when the
// request is answered.
func (a *API) readBody(w http.ResponseWriter, r *http.Request, req *apiRequest) (int64, error) {
	if err := checkContentType(r.Header); err != nil {
		return 0, unread(w, r, err)
	}
	body, held, err := readBody(w, r, a.p.limit, a.p.buf)
	if err != nil {
		return held, unread(w, r, err)
	}
	if !utf8.Valid(body) {
		return held, badRequest(textNotUTF8)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return held, nil
	}
	v, err := codec.DecodePlainJSON(body)
	if err != nil {
		return held, &Error{Status: http.StatusBadRequest, Text: textInvalidJSON, Cause: err}
	}
	if err := a.p.buf.hold(&held, int64(wamp.ListSize(wamp.List{v})), textTooLongDecoded); err != nil {
		return held, err
	}
	req.body, req.hasBody = v, true
	return held, nil
}

// fill makes the call's args and kwargs from the route's templates. A
// kwarg whose placeholder the request lacks is left out.
func fill(req *apiRequest) (wamp.List, wamp.Object) {
	var args wamp.List
	for _, t := range req.route.Args {
		v, _ := t.Fill(req)
		args = append(args, v)
	}
	var kwargs wamp.Object
	for _, k := range req.route.KwargNames {
		if v, ok := req.route.Kwargs[k].Fill(req); ok {
			kwargs = append(kwargs, wamp.Field{Key: k, Value: v})
		}
	}
	return args, kwargs
}

// writeResult answers a result as the JSON body (ResultJSON).
func (a *API) writeResult(w http.ResponseWriter, res *client.Result, status int) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	switch {
	case len(res.Kwargs) > 0 || len(res.Args) > 1:
		rb := resultOf(res)
		a.p.writeJSON(w, status, &rb)
	case len(res.Args) == 1:
		a.p.writeJSON(w, status, plainJSON{res.Args[0]})
	default:
		a.p.writeJSON(w, status, plainJSON{nil})
	}
}

// plainJSON is any JSON value as an answer.
type plainJSON struct{ v any }

func (p plainJSON) appendJSON(b []byte) ([]byte, error) { return codec.AppendPlainJSON(b, p.v) }
