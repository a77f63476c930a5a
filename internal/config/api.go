package config

import (
	"errors"
	"time"

	"github.com/junction-wamp/junction/internal/apiroute"
	"github.com/junction-wamp/junction/wamp"
)

// APIService is a path service of "type": "api" (a Junction extension):
// REST routes, each an HTTP method and path template mapped to a WAMP
// call, and GET openapi.json below the path, their OpenAPI document.
type APIService struct {
	BridgeService
	// Access is "options.auth" and "options.error_status" as a caller's;
	// WAMP errors are always answered with the status table's status
	// (error_status true is implied; its map form adds rows).
	Access
	// CallTimeout and CancelMode are a caller's "options.call_timeout"
	// and "options.cancel_mode".
	CallTimeout time.Duration
	CancelMode  string
	// Title and Version are "options.openapi.title" and
	// "options.openapi.version": the OpenAPI document's info (defaults
	// "API" and "1.0.0").
	Title, Version string
	// Routes is "routes" (required, at least one).
	Routes []APIRoute
}

// APIRoute is one of an api service's "routes".
type APIRoute struct {
	// Method is "method" (required): one of apiroute.Methods.
	Method string
	// Path is "path" (required): "/users/{id}", below the service's path.
	Path string
	// Procedure is "procedure" (required): the URI called.
	Procedure string
	// Args and Kwargs are "args" and "kwargs": JSON whose strings may be
	// placeholders ("{id}", "{query.NAME}", "{body}", "{body.NAME}"),
	// as the decoder reads JSON (numbers are json.Number).
	Args   []any
	Kwargs map[string]any
	// Status is "status": the status of a success (200..299, default
	// 200).
	Status int
	// Result is "result": "json" (the default) or "response".
	Result string
	// Summary is "summary"; BodySchema and ResultSchema are
	// "body_schema" and "result_schema": JSON Schemas for the OpenAPI
	// document (nil: any JSON).
	Summary                  string
	BodySchema, ResultSchema map[string]any
}

// APIResults are the values of a route's "result".
var APIResults = []string{"json", "response"}

// PathType returns "api".
func (*APIService) PathType() string { return "api" }

func (d *decoder) apiService(o *object) *APIService {
	s := &APIService{CallTimeout: DefaultCallTimeout, CancelMode: "killnowait"}
	if oo := d.bridgeService(o, &s.BridgeService, DefaultPostBodyLimit, false); oo != nil {
		d.apiOptions(oo, s)
	}
	v, ok := o.get("routes")
	rs, isList := v.([]any)
	switch {
	case !ok:
		d.errorf(o.at("routes"), "required")
	case !isList:
		d.errorf(o.at("routes"), "must be an array, not %s", kind(v))
	case len(rs) == 0:
		d.errorf(o.at("routes"), "must hold at least one route")
	}
	reported := len(d.errs)
	d.list(o.at("routes"), rs, func(p string, v any) { s.Routes = append(s.Routes, d.apiRoute(p, v)) })
	d.compileRoutes(o.at("routes"), s.Routes, reported)
	return s
}

// apiOptions decodes the options an api service has besides the common
// ones.
func (d *decoder) apiOptions(oo *object, s *APIService) {
	d.access(oo, &s.Access)
	if oo.has("error_status") && !s.ErrorStatus.On {
		d.warnf(oo.at("error_status"), "an api service always answers WAMP errors with HTTP statuses: false is ignored")
	}
	if ms := oo.integer("call_timeout", DefaultCallTimeout.Milliseconds(), 0, maxInt32); ms > 0 {
		s.CallTimeout = time.Duration(ms) * time.Millisecond
	} else {
		s.CallTimeout = -1
	}
	s.CancelMode = oo.enum("cancel_mode", s.CancelMode, "cancel mode", CancelModes...)
	if info, ok := oo.child("openapi"); ok {
		s.Title = info.str("title", "")
		s.Version = info.str("version", "")
		info.done()
	}
	oo.done()
}

// apiRoute decodes one route; its templates are checked by
// compileRoutes.
func (d *decoder) apiRoute(p string, v any) APIRoute {
	var r APIRoute
	o, ok := d.object(p, v)
	if !ok {
		return r
	}
	r.Method = o.reqStr("method")
	r.Path = o.reqStr("path")
	r.Procedure = o.reqValidStr("procedure", func(u string) bool { return wamp.ValidURI(wamp.URI(u), false, wamp.MatchExact) },
		"invalid procedure URI %q")
	if v, ok := o.get("args"); ok {
		if a, isList := v.([]any); isList {
			r.Args = a
		} else {
			d.errorf(o.at("args"), "must be an array, not %s", kind(v))
		}
	}
	if v, ok := o.get("kwargs"); ok {
		if m, isMap := v.(map[string]any); isMap {
			r.Kwargs = m
		} else {
			d.errorf(o.at("kwargs"), "must be an object, not %s", kind(v))
		}
	}
	r.Status = int(o.integer("status", 200, 200, 299))
	r.Result = o.enum("result", "json", "result form", APIResults...)
	r.Summary = o.str("summary", "")
	r.BodySchema = d.schema(o, "body_schema")
	r.ResultSchema = d.schema(o, "result_schema")
	o.done()
	return r
}

// schema returns the JSON Schema object at key k, nil when absent.
func (d *decoder) schema(o *object, k string) map[string]any {
	v, ok := o.get(k)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		d.errorf(o.at(k), "must be a JSON Schema object, not %s", kind(v))
	}
	return m
}

// compileRoutes reports the problems of the routes' methods, paths and
// templates, and duplicate routes, each at its path below p ("routes"),
// but at a path where the decoding of the routes (the errors from index
// from on) has reported one already (a method or path required).
func (d *decoder) compileRoutes(p string, routes []APIRoute, from int) {
	specs := make([]apiroute.Spec, len(routes))
	for i, r := range routes {
		specs[i] = apiroute.Spec{Method: r.Method, Path: r.Path, Args: r.Args, Kwargs: r.Kwargs}
	}
	_, err := apiroute.Compile(specs)
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	seen := map[string]bool{}
	for _, fe := range d.errs[from:] {
		seen[fe.Path] = true
	}
	for _, e := range errs {
		re, ok := errors.AsType[*apiroute.Error](e)
		switch {
		case !ok:
			d.errorf(p, "%v", e)
		case !seen[p+re.At]:
			d.errorf(p+re.At, "%s", re.Msg)
		}
	}
}
