package bridge

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/apiroute"
	"github.com/junction-wamp/junction/wamp"
)

// Result forms of an API route.
const (
	// ResultJSON answers the result as the JSON body: the one arg of a
	// result with one arg and no kwargs, null for an empty result, the
	// Caller's {"args", "kwargs"} otherwise.
	ResultJSON = "json"
	// ResultResponse answers the result as an HTTP response: the one arg
	// (or the kwargs) is {"code", "headers", "content"}, as the Callee
	// returns.
	ResultResponse = "response"
)

// APIRoute is one route of an API: requests of Method to Path call
// Procedure with Args and Kwargs, whose strings may hold placeholders
// (package apiroute: "{name}" of the path, "{query.NAME}", "{body}",
// "{body.NAME}").
type APIRoute struct {
	Method    string
	Path      string
	Procedure wamp.URI
	// Args and Kwargs are JSON values as encoding/json decodes them.
	Args   []any
	Kwargs map[string]any
	// Status is the status of a success; 0 means 200. With ResultJSON,
	// 204 answers no body.
	Status int
	// Result is ResultJSON (also "") or ResultResponse.
	Result string
	// Summary, BodySchema and ResultSchema describe the route in the
	// OpenAPI document: a line of text, and the JSON Schemas of the
	// request body and of the result (nil: any JSON value).
	Summary      string
	BodySchema   map[string]any
	ResultSchema map[string]any
}

// APIOptions configure NewAPI.
type APIOptions struct {
	Common
	// Access: Identity as a Caller's. WAMP errors are always answered
	// with the status table's status (ErrorStatus.On is implied);
	// ErrorStatus.Statuses adds or overrides rows.
	Access
	// Routes are the API's routes; at least one.
	Routes []APIRoute
	// CallTimeout and CancelMode are a Caller's.
	CallTimeout time.Duration
	CancelMode  string
	// Base is the URL path the service is mounted at ("/api"), the
	// server of the OpenAPI document; "" is "/".
	Base string
	// Title and Version are the OpenAPI document's info; "" means "API"
	// and "1.0.0".
	Title, Version string
	// Security describes Identity's credentials in the OpenAPI document:
	// each a SecurityBearer, SecurityBasic, or SecurityHeader followed by
	// a header's name; a request needs one of them (or none, with
	// SecurityOptional). Empty: the document declares none.
	Security         []string
	SecurityOptional bool
}

// The credentials of APIOptions.Security.
const (
	SecurityBearer = "bearer"  // Authorization: Bearer (a JWT or an API key)
	SecurityBasic  = "basic"   // HTTP Basic
	SecurityHeader = "header:" // an API key in the header named after the colon
)

// API serves REST routes, each mapped to a WAMP call, and
// GET /openapi.json, the OpenAPI 3.1 document of the routes.
type API struct {
	p       *pipeline
	s       Session
	table   *apiroute.Table
	routes  []apiCall // by the route's index in APIOptions.Routes
	timeout time.Duration
	opts    []client.CallOption // read only
	doc     []byte              // the OpenAPI document
}

// apiCall is what a route calls and how it answers.
type apiCall struct {
	procedure wamp.URI
	status    int
	response  bool // ResultResponse
	body      bool // the route reads the request's body
}

var _ http.Handler = (*API)(nil)

// NewAPI returns the API service over s. A problem of a route is an
// error at its place ("routes[1].args[0]: ...").
func NewAPI(s Session, o APIOptions) (*API, error) {
	if s == nil {
		return nil, errors.New("bridge: session: required")
	}
	mode, err := cancelModeOf(o.CancelMode)
	if err != nil {
		return nil, err
	}
	a := &API{s: s, timeout: callTimeoutOf(o.CallTimeout)}
	if err := a.compile(o.Routes); err != nil {
		return nil, err
	}
	a.p = newPipeline(&o.Common, false, "api")
	access := o.Access
	access.ErrorStatus.On = true
	if err := a.p.setAccess(&access); err != nil {
		return nil, err
	}
	a.opts = callOptions(mode, a.timeout, false)
	if a.doc, err = openAPIDocument(&o, a.table); err != nil {
		return nil, err
	}
	a.p.act = http.HandlerFunc(a.serve)
	return a, nil
}

// compile compiles the routes.
func (a *API) compile(routes []APIRoute) error {
	if len(routes) == 0 {
		return errors.New("bridge: routes: at least one route is required")
	}
	specs := make([]apiroute.Spec, len(routes))
	var errs []error
	for i, r := range routes {
		specs[i] = apiroute.Spec{Method: r.Method, Path: r.Path, Args: r.Args, Kwargs: r.Kwargs}
		c, err := r.call()
		if err != nil {
			errs = append(errs, fmt.Errorf("bridge: routes[%d].%w", i, err))
		}
		a.routes = append(a.routes, c)
	}
	t, err := apiroute.Compile(specs)
	if err != nil {
		errs = append(errs, fmt.Errorf("bridge: routes%w", err))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	a.table = t
	for _, rt := range t.Routes() {
		a.routes[rt.Index].body = rt.UsesBody()
	}
	return nil
}

// call checks what a route calls and how it answers.
func (r *APIRoute) call() (apiCall, error) {
	c := apiCall{procedure: r.Procedure, status: r.Status}
	if c.status == 0 {
		c.status = http.StatusOK
	}
	switch {
	case !wamp.ValidURI(r.Procedure, false, wamp.MatchExact):
		return c, fmt.Errorf("procedure: %q is not a valid URI", r.Procedure)
	case c.status < 200 || c.status > 299:
		return c, fmt.Errorf("status: %d is not a success status (200..299)", r.Status)
	}
	switch r.Result {
	case "", ResultJSON:
	case ResultResponse:
		c.response = true
	default:
		return c, fmt.Errorf("result: must be %q or %q, not %q", ResultJSON, ResultResponse, r.Result)
	}
	return c, nil
}

// ServeHTTP serves one request, counted by its status.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.p.serve(w, r)
}

// serve answers a request, or its error.
func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	a.p.cors(w, r)
	if err := a.handle(w, r); err != nil {
		a.p.respond(w, r, err)
	}
}

// handle checks the client, finds the route (or the OpenAPI document),
// the credentials, reads the body when the route uses it, and calls.
func (a *API) handle(w http.ResponseWriter, r *http.Request) error {
	if err := a.p.checkPeer(r); err != nil {
		return err
	}
	segs, ok := apiroute.Split(r.URL.EscapedPath())
	if !ok {
		return badRequest(textNoRoute, echo(r.Method), echo(r.URL.EscapedPath()))
	}
	if isDoc(segs) && (r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions) {
		return a.serveDoc(w, r)
	}
	if r.Method == http.MethodOptions {
		return a.preflight(w, r, segs)
	}
	rt, values, allow := a.table.Lookup(r.Method, segs)
	if rt == nil {
		return noRoute(w, r, allow)
	}
	as, err := a.p.identify(r)
	if err != nil {
		return unread(w, r, err)
	}
	return a.call(w, r, &apiRequest{route: rt, values: values, query: parseQuery(r.URL.RawQuery), as: as})
}

// isDoc reports whether a request path is the OpenAPI document's.
func isDoc(segs []string) bool {
	return len(segs) == 1 && "/"+segs[0] == apiroute.DocPath
}

// preflight answers OPTIONS with the methods of the path's routes.
func (a *API) preflight(w http.ResponseWriter, r *http.Request, segs []string) error {
	_, _, allow := a.table.Lookup("", segs)
	if len(allow) == 0 {
		return refuse(http.StatusNotFound, textNoRoute, echo(r.Method), echo(r.URL.EscapedPath()))
	}
	preflight(w, strings.Join(append(allow, http.MethodOptions), ","))
	return nil
}

// noRoute is the refusal of a request that no route takes: 405 with the
// path's methods in Allow, or 404. HEAD is no route's method: net/http's
// ServeMux answers HEAD with its GET handler, but a route's GET calls a
// procedure, which may have side effects and costs a call whose result
// a HEAD would throw away (and link checkers and monitors send HEAD), so
// HEAD gets 405 with the route's methods in Allow.
func noRoute(w http.ResponseWriter, r *http.Request, allow []string) error {
	if len(allow) == 0 {
		return unread(w, r, refuse(http.StatusNotFound, textNoRoute, echo(r.Method), echo(r.URL.EscapedPath())))
	}
	methods := strings.Join(append(allow, http.MethodOptions), ",")
	w.Header().Set("Allow", methods)
	return unread(w, r, refuse(http.StatusMethodNotAllowed, textRouteMethod, echo(r.Method), methods))
}

// serveDoc answers the OpenAPI document (HEAD: its head alone;
// OPTIONS: its preflight). It needs no credentials: it describes the
// routes, each of which checks them.
func (a *API) serveDoc(w http.ResponseWriter, r *http.Request) error {
	const methods = "GET,HEAD,OPTIONS"
	if r.Method == http.MethodOptions {
		preflight(w, methods)
		return nil
	}
	h := w.Header()
	h["Content-Type"] = jsonType
	h.Set("Content-Length", strconv.Itoa(len(a.doc)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(a.doc)
	}
	return nil
}
