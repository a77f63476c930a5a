package bridge

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// apiRoutes are the routes of the API tests: com.example.echo answers its
// args and kwargs as they came.
var apiRoutes = []APIRoute{
	{Method: "GET", Path: "/users/{id}", Procedure: "com.example.echo", Args: []any{"{id}"},
		Kwargs: map[string]any{"fields": "{query.fields}"}},
	{Method: "GET", Path: "/users/me", Procedure: "com.example.echo", Args: []any{"me"}},
	{Method: "GET", Path: "/one/{id}", Procedure: "com.example.echo", Args: []any{"user-{id}"}},
	{Method: "POST", Path: "/users", Procedure: "com.example.echo", Args: []any{"{body}"}, Status: 201},
	{Method: "PUT", Path: "/users/{id}", Procedure: "com.example.echo", Args: []any{"{id}", "{body.name}"}},
	{Method: "DELETE", Path: "/users/{id}", Procedure: "com.example.echo", Status: 204},
	{Method: "GET", Path: "/fail", Procedure: "com.example.fail"},
	{Method: "GET", Path: "/missing", Procedure: "com.example.missing"},
	{Method: "GET", Path: "/forbidden", Procedure: "org.other.thing"},
	{Method: "GET", Path: "/page/{id}", Procedure: "com.example.page", Args: []any{"{id}"}, Result: ResultResponse},
	{Method: "GET", Path: "/slow", Procedure: "com.example.slow"},
}

// apiEnv is an env with the API tests' procedures registered.
func apiEnv(t *testing.T, actsFor bool) *env {
	e := newEnvOf(t, actsFor)
	e.register("com.example.echo", echoArgs)
	e.register("com.example.fail", func(context.Context, *client.Invocation) (*client.Result, error) {
		return nil, &wamp.RequestError{URI: "com.example.error.not_found", Args: wamp.List{"no such user"}}
	})
	e.register("com.example.page", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		switch inv.Args[0] {
		case "html":
			return &client.Result{Args: wamp.List{wamp.Dict{"code": 201, "headers": wamp.Dict{"Content-Type": "text/html",
				"X-Many": wamp.List{"a", "b"}, "Content-Length": "99"}, "content": "<p>hi</p>"}}}, nil
		case "json":
			return &client.Result{Kwargs: wamp.Object{{Key: "content", Value: wamp.Dict{"a": 1}}}}, nil
		case "badcode":
			return &client.Result{Args: wamp.List{wamp.Dict{"code": 99}}}, nil
		}
		return &client.Result{Args: wamp.List{"not a response"}}, nil
	})
	e.register("com.example.slow", func(ctx context.Context, _ *client.Invocation) (*client.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return e
}

func newAPI(t *testing.T, s Session, o APIOptions) *API {
	t.Helper()
	if o.Routes == nil {
		o.Routes = apiRoutes
	}
	a, err := NewAPI(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// serveAPI runs one request through h.
func serveAPI(h http.Handler, method, target, body string, header http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestAPIRoutes(t *testing.T) {
	e := apiEnv(t, false)
	a := newAPI(t, e.bridge, APIOptions{CallTimeout: 200 * time.Millisecond})
	for _, tt := range []struct {
		name, method, target, body string
		status                     int
		want                       string
		header, value              string // a header of the answer and its value
	}{
		{"path and query", "GET", "/users/42?fields=name&fields=x", "", 200, `{"args":["42"],"kwargs":{"fields":"name"}}`, "", ""},
		{"absent query kwarg left out", "GET", "/users/42", "", 200, `"42"`, "", ""},
		{"escaped segment", "GET", "/users/a%2Fb", "", 200, `"a/b"`, "", ""},
		{"literal before parameter", "GET", "/users/me", "", 200, `"me"`, "", ""},
		{"text template", "GET", "/one/7", "", 200, `"user-7"`, "", ""},
		{"whole body", "POST", "/users", `{"name":"alice","n":1}`, 201, `{"name":"alice","n":1}`, "", ""},
		{"no body", "POST", "/users", ``, 201, `null`, "", ""},
		{"body member", "PUT", "/users/3", `{"name":"bob"}`, 200, `{"args":["3","bob"]}`, "", ""},
		{"absent body member is null", "PUT", "/users/3", `{}`, 200, `{"args":["3",null]}`, "", ""},
		{"body not JSON", "POST", "/users", `{`, 400, `{"error":"Request body was invalid JSON.","args":[],"kwargs":{}}`, "", ""},
		{"no content", "DELETE", "/users/3", "", 204, ``, "", ""},
		{"application error 500", "GET", "/fail", "", 500, `{"error":"com.example.error.not_found","args":["no such user"],"kwargs":{}}`, "", ""},
		{"no such procedure 404", "GET", "/missing", "", 404, `{"error":"wamp.error.no_such_procedure"`, "", ""},
		{"not authorized 403", "GET", "/forbidden", "", 403, `{"error":"wamp.error.not_authorized"`, "", ""},
		{"timeout 504", "GET", "/slow", "", 504, `{"error":"wamp.error.timeout"`, "", ""},
		{"no route 404", "GET", "/nope", "", 404, `{"error":"No route for GET /nope.","args":[],"kwargs":{}}`, "", ""},
		{"wrong method 405", "PATCH", "/users/1", "", 405, `{"error":"Method not allowed. (PATCH not allowed, only DELETE,GET,PUT,OPTIONS)"`, "Allow", "DELETE,GET,PUT,OPTIONS"},
		{"HEAD of a GET route 405", "HEAD", "/one/7", "", 405, `{"error":"Method not allowed. (HEAD not allowed, only GET,OPTIONS)"`, "Allow", "GET,OPTIONS"},
		{"preflight", "OPTIONS", "/users/1", "", 200, ``, "Access-Control-Allow-Methods", "DELETE,GET,PUT,OPTIONS"},
		{"preflight of no route", "OPTIONS", "/nope", "", 404, `{"error":"No route for OPTIONS /nope."`, "", ""},
		{"response form", "GET", "/page/html", "", 201, `<p>hi</p>`, "Content-Type", "text/html"},
		{"response form, kwargs and JSON content", "GET", "/page/json", "", 200, `{"a":1}`, "Content-Type", "application/json; charset=utf-8"},
		{"response form, bad code", "GET", "/page/badcode", "", 502, `{"error":"The procedure's result is not a response {code, headers, content}: code 99 is not a status (200..599)."`, "", ""},
		{"response form, not an object", "GET", "/page/x", "", 502, `{"error":"The procedure's result is not a response {code, headers, content}: not an object."`, "", ""},
		{"CORS", "GET", "/users/me", "", 200, `"me"`, "Access-Control-Allow-Origin", "*"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := serveAPI(a, tt.method, tt.target, tt.body, nil)
			if w.Code != tt.status || !strings.HasPrefix(w.Body.String(), tt.want) || (tt.want == "" && w.Body.Len() > 0) {
				t.Fatalf("%d %s, want %d %s", w.Code, w.Body, tt.status, tt.want)
			}
			if tt.header != "" && w.Header().Get(tt.header) != tt.value {
				t.Fatalf("%s: %q, want %q", tt.header, w.Header().Get(tt.header), tt.value)
			}
		})
	}
}

func TestAPIResponseHeaders(t *testing.T) {
	a := newAPI(t, apiEnv(t, false).bridge, APIOptions{})
	w := serveAPI(a, "GET", "/page/html", "", nil)
	if got := w.Header().Values("X-Many"); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("X-Many: %q", got)
	}
	if got := w.Header().Get("Content-Length"); got != "9" {
		t.Errorf("Content-Length %q: the result may not set it", got)
	}
}

// TestAPIIdentity: a route's call runs with the request's identity: the
// role's permissions decide (403) and the callee sees who calls.
func TestAPIIdentity(t *testing.T) {
	e := apiEnv(t, true)
	e.register("com.user.whoami", whoami)
	e.register("com.example.whoami", whoami)
	a := newAPI(t, e.bridge, APIOptions{Access: Access{Identity: apiKeys(t)}, Routes: []APIRoute{
		{Method: "GET", Path: "/me", Procedure: "com.user.whoami"},
		{Method: "GET", Path: "/other", Procedure: "com.example.whoami"},
	}})
	for _, tt := range []struct {
		key, target string
		status      int
		want        string
	}{
		{"k-alice", "/me", 200, `{"args":["alice","user"]}`},
		{"k-alice", "/other", 403, `{"error":"wamp.error.not_authorized"`},
		{"k-eve", "/me", 401, `{"error":"wamp.error.authentication_failed"`},
		{"", "/me", 401, `{"error":"wamp.error.authentication_failed"`},
	} {
		h := http.Header{}
		if tt.key != "" {
			h = bearer(tt.key)
		}
		w := serveAPI(a, "GET", tt.target, "", h)
		if w.Code != tt.status || !strings.HasPrefix(w.Body.String(), tt.want) {
			t.Errorf("%s %s: %d %s, want %d %s", tt.key, tt.target, w.Code, w.Body, tt.status, tt.want)
		}
	}
	// The OpenAPI document needs no credentials.
	if w := serveAPI(a, "GET", "/openapi.json", "", nil); w.Code != 200 {
		t.Errorf("openapi.json without credentials: %d", w.Code)
	}
}

func TestAPIErrorStatuses(t *testing.T) {
	a := newAPI(t, apiEnv(t, false).bridge, APIOptions{Access: Access{ErrorStatus: ErrorStatus{
		Statuses: map[wamp.URI]int{"com.example.error.not_found": 404}}}})
	if w := serveAPI(a, "GET", "/fail", "", nil); w.Code != 404 {
		t.Errorf("a mapped application error: %d %s", w.Code, w.Body)
	}
}

func TestAPIBodyLimit(t *testing.T) {
	a := newAPI(t, apiEnv(t, false).bridge, APIOptions{Common: Common{PostBodyLimit: 8}})
	if w := serveAPI(a, "POST", "/users", `{"name":"a long one"}`, nil); w.Code != 413 {
		t.Errorf("over the body limit: %d %s", w.Code, w.Body)
	}
	w := serveAPI(a, "POST", "/users", `{}`, http.Header{"Content-Type": {"text/plain"}})
	if w.Code != 400 || !strings.Contains(w.Body.String(), "Non-accepted content type") {
		t.Errorf("a text body: %d %s", w.Code, w.Body)
	}
}

func TestAPIUnavailable(t *testing.T) {
	f := newFake(t)
	f.down = true
	a := newAPI(t, f, APIOptions{})
	if w := serveAPI(a, "GET", "/users/1", "", nil); w.Code != 503 {
		t.Errorf("session down: %d %s", w.Code, w.Body)
	}
}

func TestNewAPIErrors(t *testing.T) {
	for _, tt := range []struct {
		routes []APIRoute
		mode   string
		want   string
	}{
		{nil, "", "at least one route"},
		{[]APIRoute{{Method: "GET", Path: "/x", Procedure: "not a uri"}}, "", `routes[0].procedure: "not a uri" is not a valid URI`},
		{[]APIRoute{{Method: "GET", Path: "/x", Procedure: "a.b", Status: 404}}, "", "routes[0].status: 404 is not a success status"},
		{[]APIRoute{{Method: "GET", Path: "/x", Procedure: "a.b", Result: "xml"}}, "", `routes[0].result: must be "json" or "response", not "xml"`},
		{[]APIRoute{{Method: "GET", Path: "/x/{id}", Procedure: "a.b", Args: []any{"{di}"}}}, "", "routes[0].args[0]: {di} is not a parameter"},
		{[]APIRoute{{Method: "GET", Path: "/x", Procedure: "a.b"}}, "never", "cancel_mode"},
	} {
		_, err := NewAPI(newFake(t), APIOptions{Routes: tt.routes, CancelMode: tt.mode})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.routes, err, tt.want)
		}
	}
}
