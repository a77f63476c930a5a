package bridge

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// responseHeaders are the headers a response result may not set: the
// server frames the body itself.
var responseHeaders = map[string]bool{"Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Upgrade": true, "Trailer": true, "Te": true}

// response is a result in the Callee's convention.
type response struct {
	code    int
	headers http.Header
	content []byte
	json    bool // content is JSON (not a string): Content-Type defaults to JSON
}

// writeResponse answers a result as an HTTP response (ResultResponse):
// its one arg, or its kwargs, is {"code", "headers", "content"}; code
// defaults to the route's status, content is written as it is when a
// string (text/plain unless headers say) and as JSON otherwise. A result
// of another shape is answered 502.
func (a *API) writeResponse(w http.ResponseWriter, res *client.Result, status int) error {
	resp, err := parseResponse(res, status)
	if err != nil {
		return err
	}
	h := w.Header()
	for k, vs := range resp.headers {
		h[k] = vs
	}
	if _, ok := resp.headers["Access-Control-Expose-Headers"]; ok && a.p.identity != nil {
		expose(h, exposeAuth) // merged with the result's list
	}
	if h.Get("Content-Type") == "" && len(resp.content) > 0 {
		if resp.json {
			h["Content-Type"] = jsonType
		} else {
			h.Set("Content-Type", "text/plain; charset=utf-8")
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(resp.content)))
	w.WriteHeader(resp.code)
	w.Write(resp.content)
	return nil
}

// parseResponse reads a response result.
func parseResponse(res *client.Result, status int) (*response, error) {
	var v any
	switch {
	case len(res.Args) == 1 && len(res.Kwargs) == 0:
		v = res.Args[0]
	case len(res.Args) == 0 && len(res.Kwargs) > 0:
		v = res.Kwargs
	default:
		return nil, notResponse("it must be one object, as the one arg or the kwargs")
	}
	if !isObject(v) {
		return nil, notResponse("not an object")
	}
	out := &response{code: status, headers: http.Header{}}
	if c, ok := member(v, "code"); ok && c != nil {
		n, isInt := wamp.AsInt(c)
		if !isInt || n < 200 || n > 599 {
			return nil, notResponse(fmt.Sprintf("code %v is not a status (200..599)", c))
		}
		out.code = int(n)
	}
	if err := out.readHeaders(v); err != nil {
		return nil, err
	}
	return out, out.readContent(v)
}

func isObject(v any) bool {
	switch v.(type) {
	case wamp.Object, wamp.Dict:
		return true
	}
	return false
}

// readHeaders reads "headers": {Name: value or [values]}.
func (out *response) readHeaders(v any) error {
	hv, ok := member(v, "headers")
	if !ok || hv == nil {
		return nil
	}
	if !isObject(hv) {
		return notResponse("headers must be an object")
	}
	var err error
	each(hv, func(k string, x any) {
		name := http.CanonicalHeaderKey(k)
		if responseHeaders[name] || err != nil {
			return
		}
		switch x := x.(type) {
		case string:
			out.headers.Add(name, x)
		case wamp.List:
			for _, e := range x {
				s, isString := e.(string)
				if !isString {
					err = notResponse("header " + name + ": values must be strings")
					return
				}
				out.headers.Add(name, s)
			}
		default:
			err = notResponse("header " + name + ": a string or a list of strings")
		}
	})
	return err
}

// readContent reads "content": a string as it is, anything else as JSON.
func (out *response) readContent(v any) error {
	c, ok := member(v, "content")
	if !ok || c == nil {
		return nil
	}
	if s, isString := c.(string); isString {
		out.content = []byte(s)
		return nil
	}
	b, err := codec.AppendPlainJSON(nil, c)
	if err != nil {
		return notResponse("content is not JSON")
	}
	out.content, out.json = b, true
	return nil
}

// each calls fn with each member of an object (wamp.Object or wamp.Dict).
func each(v any, fn func(k string, x any)) {
	switch o := v.(type) {
	case wamp.Object:
		for _, f := range o {
			fn(f.Key, f.Value)
		}
	case wamp.Dict:
		for k, x := range o {
			fn(k, x)
		}
	}
}

// notResponse is the refusal of a result that is not a response: the
// callee's fault, 502.
func notResponse(why string) error {
	return refuse(http.StatusBadGateway, textNotResponse, why)
}
