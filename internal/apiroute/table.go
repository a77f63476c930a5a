package apiroute

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Methods are the methods a route may have.
var Methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// DocPath is the path of the OpenAPI document below the service: no
// GET route may have it.
const DocPath = "/openapi.json"

// Spec is a route as configured.
type Spec struct {
	Method string
	Path   string
	Args   []any          // JSON values, as encoding/json decodes them
	Kwargs map[string]any // idem
}

// Route is a compiled route. Immutable.
type Route struct {
	// Index is the route's place in the specs Compile was given.
	Index  int
	Method string
	Path   *Path
	Args   []*Value
	Kwargs map[string]*Value
	// KwargNames are the keys of Kwargs, sorted.
	KwargNames []string
}

// Table is the routes of a service, most specific first. Immutable; safe
// for concurrent use.
type Table struct {
	routes []*Route
}

// Compile compiles specs. Every problem is an *Error whose At is the
// spec's place, "[i].path", "[i].args[j]", "[i].kwargs.NAME", ...,
// joined: a bad method or path, a bad template, a placeholder "{name}"
// that is not a parameter of the route's path, a body in a GET route, a
// GET route at DocPath, two routes of the same method and path shape,
// and two of the same shape whose parameters have other names.
func Compile(specs []Spec) (*Table, error) {
	var errs []error
	t := &Table{}
	seen := map[string]int{}     // method + shape: the first route's index
	named := map[string]*Route{} // shape: the first route with it
	for i, s := range specs {
		at := "[" + strconv.Itoa(i) + "]"
		r, rerrs := compile(i, s)
		for _, err := range rerrs {
			errs = append(errs, nest(at, err))
		}
		if r == nil {
			continue
		}
		key := r.Method + " " + r.Path.Shape()
		if j, dup := seen[key]; dup {
			errs = append(errs, &Error{At: at, Msg: fmt.Sprintf("%s %s: the same method and path shape as routes[%d]", r.Method, r.Path, j)})
			continue
		}
		seen[key] = i
		if first, ok := named[r.Path.Shape()]; !ok {
			named[r.Path.Shape()] = r
		} else if first.Path.OpenAPI() != r.Path.OpenAPI() {
			errs = append(errs, &Error{At: at + ".path", Msg: fmt.Sprintf("%s has the shape of routes[%d]'s %s: name the parameters the same (OpenAPI holds them as one path)",
				r.Path, first.Index, first.Path)})
			continue
		}
		t.routes = append(t.routes, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortStableFunc(t.routes, func(a, b *Route) int { return a.Path.Compare(b.Path) })
	return t, nil
}

// compile compiles one spec; the route is nil when its method or path
// is bad.
func compile(i int, s Spec) (*Route, []error) {
	var errs []error
	if !slices.Contains(Methods, s.Method) {
		errs = append(errs, &Error{At: ".method", Msg: fmt.Sprintf("%q is not one of %s", s.Method, strings.Join(Methods, ", "))})
	}
	p, err := ParsePath(s.Path)
	if err != nil {
		return nil, append(errs, &Error{At: ".path", Msg: err.Error()})
	}
	if s.Method == "GET" && p.Shape() == DocPath {
		errs = append(errs, &Error{At: ".path", Msg: "GET " + DocPath + " is the service's OpenAPI document"})
	}
	r := &Route{Index: i, Method: s.Method, Path: p, Kwargs: map[string]*Value{}}
	for j, a := range s.Args {
		v, err := r.value("["+strconv.Itoa(j)+"]", a)
		errs = appendErr(errs, ".args", err)
		r.Args = append(r.Args, v)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Kwargs)) {
		v, err := r.value("."+k, s.Kwargs[k])
		errs = appendErr(errs, ".kwargs", err)
		r.Kwargs[k] = v
		r.KwargNames = append(r.KwargNames, k)
	}
	return r, errs
}

func appendErr(errs []error, at string, err error) []error {
	if err == nil {
		return errs
	}
	return append(errs, nest(at, err))
}

// value compiles one arg or kwarg (at its place) and checks its
// placeholders against the route.
func (r *Route) value(at string, raw any) (*Value, error) {
	v, err := ParseValue(raw)
	if err != nil {
		return nil, nest(at, err)
	}
	v.walk(at, func(at string, ref *Ref) {
		switch {
		case err != nil:
		case ref.Kind == PathParam && !r.Path.Has(ref.Name):
			err = &Error{At: at, Msg: fmt.Sprintf("%s is not a parameter of the path %q (known: %s)", ref, r.Path, r.known())}
		case (ref.Kind == Body || ref.Kind == BodyField) && r.Method == "GET":
			err = &Error{At: at, Msg: fmt.Sprintf("%s: a GET request has no body", ref)}
		}
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// known lists the route's path parameters for an error.
func (r *Route) known() string {
	if len(r.Path.Params()) == 0 {
		return "none"
	}
	var names []string
	for _, n := range r.Path.Params() {
		names = append(names, "{"+n+"}")
	}
	return strings.Join(names, ", ")
}

// Refs returns every placeholder of the route's args and kwargs.
func (r *Route) Refs() []Ref {
	var out []Ref
	for _, v := range r.Args {
		out = append(out, v.Refs()...)
	}
	for _, k := range r.KwargNames {
		out = append(out, r.Kwargs[k].Refs()...)
	}
	return out
}

// UsesBody reports whether the route reads the request's body.
func (r *Route) UsesBody() bool {
	return slices.ContainsFunc(r.Refs(), func(ref Ref) bool { return ref.Kind == Body || ref.Kind == BodyField })
}

// Routes returns the routes, most specific first.
func (t *Table) Routes() []*Route { return t.routes }

// Lookup finds the route of a request: the most specific route whose
// path matches segs (Split) and whose method is method, with its path
// parameters' values. Without one, allow lists the methods of the routes
// whose path matches (sorted; none: no route has the path).
func (t *Table) Lookup(method string, segs []string) (r *Route, values []string, allow []string) {
	for _, rt := range t.routes {
		vals, ok := rt.Path.Match(segs)
		if !ok {
			continue
		}
		if rt.Method == method && r == nil {
			r, values = rt, vals
		}
		if !slices.Contains(allow, rt.Method) {
			allow = append(allow, rt.Method)
		}
	}
	if r != nil {
		return r, values, nil
	}
	slices.Sort(allow)
	return nil, nil, allow
}
