package config

import (
	"slices"
	"strings"
)

// WAPService is a path service of "type": "wap" (WAMP Application
// Pages): routes that call a WAMP procedure with the URL's variables and
// render a Jinja2 template with its result, served from a Python process
// of the node's (as WSGIService is) whose calls the node makes on a
// session joined to Realm as AuthRole. Templates are loaded at start: a
// directory or template that does not load fails it.
type WAPService struct {
	// Templates is "templates" (required): where the templates are.
	Templates WAPTemplates
	// Sandbox is "sandbox" (default true): render in Jinja2's sandboxed
	// environment. Autoescaping is on either way.
	Sandbox bool
	// Routes is "routes" (required, may be empty).
	Routes []WAPRoute
	// Realm is "wamp.realm" (required): the realm of the calls' session;
	// it must be a realm of the router.
	Realm string
	// AuthRole is "wamp.authrole" (default "anonymous"): the role the
	// calls are made as; a role of Realm, or "trusted".
	AuthRole string
}

// WAPTemplates is where a WAPService's templates are: Dir, or
// Resource of the Python package Package.
type WAPTemplates struct {
	// Dir is "templates" as a string: a directory, relative to the node
	// directory.
	Dir string
	// Package and Resource are "templates" as {"package", "resource"}: the
	// directory Resource inside the Python package Package.
	Package, Resource string
}

// WAPRoute is one of "routes".
type WAPRoute struct {
	// Path is "path" (required): a werkzeug rule under the service's
	// path, such as "/product/<int:id>/<report>".
	Path string
	// Method is "method" (default "GET"), upper case.
	Method string
	// Call is "call": the procedure called with the rule's variables as
	// keyword arguments; "" (absent or null) renders with no data.
	Call string
	// Render is "render" (required): the template's name.
	Render string
}

// Defaults of a WAPService.
const DefaultWAPAuthRole = "anonymous"

// wapMethods are the methods a route may have.
var wapMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// PathType returns "wap".
func (*WAPService) PathType() string { return "wap" }

func (d *decoder) wapService(o *object) *WAPService {
	d.id(o)
	s := &WAPService{Sandbox: o.boolean("sandbox", true), AuthRole: DefaultWAPAuthRole, Routes: []WAPRoute{}}
	d.wapTemplates(o, &s.Templates)
	if !o.list("routes", func(p string, v any) {
		if r, ok := d.wapRoute(p, v); ok {
			s.Routes = append(s.Routes, r)
		}
	}) {
		o.required("routes")
	}
	if w, ok := o.reqChild("wamp"); ok {
		s.Realm = w.reqStr("realm")
		d.realmRef(w, s.Realm)
		s.AuthRole = w.str("authrole", DefaultWAPAuthRole)
		w.done()
	}
	return s
}

// wapTemplates decodes "templates": a directory or {"package", "resource"}.
func (d *decoder) wapTemplates(o *object, t *WAPTemplates) {
	v, ok := o.get("templates")
	switch {
	case !ok:
		o.required("templates")
	case isString(v):
		t.Dir = o.str("templates", "")
		if t.Dir == "" {
			d.errorf(o.at("templates"), "must not be empty")
		}
	default:
		to, ok := d.object(o.at("templates"), v)
		if !ok {
			return
		}
		t.Package = to.reqValidStr("package", pythonModuleName, "invalid Python module name %q (want package.module)")
		t.Resource = to.reqStr("resource")
		to.done()
	}
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// wapRoute decodes one route.
func (d *decoder) wapRoute(path string, v any) (WAPRoute, bool) {
	o, ok := d.object(path, v)
	if !ok {
		return WAPRoute{}, false
	}
	r := WAPRoute{
		Path:   o.reqValidStr("path", func(s string) bool { return s != "" }, "invalid route %q (want a path such as \"/item/<int:id>\")"),
		Method: strings.ToUpper(o.validStr("method", "GET", wapMethod, "invalid HTTP method %q (want one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS)")),
		Call:   o.validStr("call", "", func(s string) bool { return s == "" || looseURI(s) }, "invalid procedure URI %q"),
		Render: o.reqValidStr("render", func(s string) bool { return s != "" }, "invalid template name %q"),
	}
	o.done()
	return r, true
}

// wapMethod reports whether s names an HTTP method a route may have.
func wapMethod(s string) bool { return slices.Contains(wapMethods, strings.ToUpper(s)) }

// checkRefs reports a realm the router does not define, or a role that
// realm does not define (the calls' session would be refused at join).
func (s *WAPService) checkRefs(d *decoder, sp string, realms map[string]*Realm) {
	checkRealmRole(d, realms, s.Realm, s.AuthRole, sp+".wamp.realm", sp+".wamp.authrole")
}
