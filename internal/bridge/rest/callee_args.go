package rest

import (
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/junction-wamp/junction/wamp"
)

// callArgs are the arguments of one Callee call.
type callArgs struct {
	method  string
	url     string
	body    string
	headers http.Header
	query   string // params, encoded in their order
}

// argNames are the call's parameters in their positional order (Crossbar's
// method, url, body, headers, params).
var argNames = [...]string{"method", "url", "body", "headers", "params"}

// parseCallArgs reads a call's arguments, by position or keyword.
func parseCallArgs(args wamp.List, kwargs wamp.Object) (*callArgs, error) {
	vals, err := mergeArgs(args, kwargs)
	if err != nil {
		return nil, err
	}
	a := &callArgs{}
	if err := a.readStrings(vals); err != nil {
		return nil, err
	}
	if a.headers, err = parseHeaders(vals["headers"]); err != nil {
		return nil, err
	}
	if a.query, err = parseParams(vals["params"]); err != nil {
		return nil, err
	}
	return a, nil
}

// mergeArgs puts positional and keyword arguments in one map, refusing
// unknown keywords, too many positions and a value given both ways.
func mergeArgs(args wamp.List, kwargs wamp.Object) (map[string]any, error) {
	if len(args) > len(argNames) {
		return nil, invalidArg("at most %d positional arguments (method, url, body, headers, params), got %d", len(argNames), len(args))
	}
	vals := make(map[string]any, len(args)+len(kwargs))
	for i, v := range args {
		vals[argNames[i]] = v
	}
	for _, f := range kwargs {
		k := f.Key
		if !isArgName(k) {
			return nil, invalidArg("unknown argument %q (known: method, url, body, headers, params)", k)
		}
		if _, dup := vals[k]; dup {
			return nil, invalidArg("argument %q given by position and by keyword", k)
		}
		vals[k] = f.Value
	}
	return vals, nil
}

func isArgName(k string) bool {
	for _, n := range argNames {
		if n == k {
			return true
		}
	}
	return false
}

// readStrings reads method (required, upper-cased), url and body. A null
// url or body is the same as none.
func (a *callArgs) readStrings(vals map[string]any) error {
	m, ok := vals["method"].(string)
	if !ok {
		return invalidArg("argument method is required and must be a string")
	}
	if a.method = strings.ToUpper(m); !validMethod(a.method) {
		return invalidArg("argument method %q is not an HTTP method", m)
	}
	var err error
	if a.url, err = optString(vals, "url"); err != nil {
		return err
	}
	a.body, err = optString(vals, "body")
	return err
}

func optString(vals map[string]any, key string) (string, error) {
	switch v := vals[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	return "", invalidArg("argument %s must be a string", key)
}

// parseHeaders reads {name: [values]} or {name: value}.
func parseHeaders(v any) (http.Header, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := wamp.AsDict(v)
	if !ok {
		return nil, invalidArg("argument headers must be a dictionary of name to list of strings")
	}
	h := make(http.Header, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if !validMethod(name) { // a header name is a token too
			return nil, invalidArg("header name %q is invalid", name)
		}
		if http.CanonicalHeaderKey(name) == "Host" {
			return nil, invalidArg("header Host cannot be set: the target comes from baseurl and url")
		}
		vs, err := headerValues(name, m[name])
		if err != nil {
			return nil, err
		}
		h[http.CanonicalHeaderKey(name)] = append(h[http.CanonicalHeaderKey(name)], vs...)
	}
	return h, nil
}

func headerValues(name string, v any) ([]string, error) {
	list, ok := v.([]any)
	if s, isStr := v.(string); isStr {
		list, ok = []any{s}, true
	}
	if !ok {
		return nil, invalidArg("header %s must be a string or a list of strings", name)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok || !validHeaderValue(s) {
			return nil, invalidArg("header %s: values must be strings without control characters", name)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseParams reads {name: value or [values]}, values strings or numbers,
// and encodes them as a query string with the names in the order received
// (sorted for a dictionary built in Go, which has none), as Crossbar's
// Python client sends them.
func parseParams(v any) (string, error) {
	if v == nil {
		return "", nil
	}
	o, ok := fieldsOf(v)
	if !ok {
		return "", invalidArg("argument params must be a dictionary")
	}
	var q strings.Builder
	for _, f := range o {
		list, isList := f.Value.([]any)
		if !isList {
			list = []any{f.Value}
		}
		for _, x := range list {
			s, ok := paramString(x)
			if !ok {
				return "", invalidArg("param %s: values must be strings or numbers", f.Key)
			}
			if q.Len() > 0 {
				q.WriteByte('&')
			}
			q.WriteString(url.QueryEscape(f.Key))
			q.WriteByte('=')
			q.WriteString(url.QueryEscape(s))
		}
	}
	return q.String(), nil
}

// fieldsOf reads a dictionary value in its order: an Object as it is (a
// decoded payload's), a Dict with its keys sorted.
func fieldsOf(v any) (wamp.Object, bool) {
	switch d := v.(type) {
	case wamp.Object:
		return d, true
	case wamp.Dict:
		return wamp.ObjectOf(d), true
	}
	return nil, false
}

// paramString formats a param value: a string, or a number as Python's str
// would write it for integers.
func paramString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	if n, ok := wamp.AsInt(v); ok {
		return strconv.FormatInt(n, 10), true
	}
	return "", false
}

// invalidArg is a wamp.error.invalid_argument with a message.
func invalidArg(format string, a ...any) *wamp.RequestError {
	return wamp.Errorf(wamp.ErrInvalidArgument, "callee: "+format, a...)
}
