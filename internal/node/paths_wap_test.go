package node

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// wapPaths: a WebSocket path for the callee and two wap paths on the
// project's templates, one sandboxed (the default), one not.
const wapPaths = `{
	"ws": {"type": "websocket"},
	"reports": {"type": "wap", "templates": "../templates", "routes": [
		{"path": "/greeting/<name>", "method": "GET", "call": "com.example.greeting", "render": "greeting.html"},
		{"path": "/product/<int:product_id>/<report>", "method": "GET", "call": "com.example.product", "render": "product.html"},
		{"path": "/static", "method": "GET", "render": "static.html"},
		{"path": "/form", "method": "POST", "call": "com.example.greeting", "render": "greeting.html"},
		{"path": "/missing", "method": "GET", "call": "com.example.none", "render": "static.html"},
		{"path": "/failing", "method": "GET", "call": "com.example.fail", "render": "static.html"},
		{"path": "/scalar", "method": "GET", "call": "com.example.scalar", "render": "static.html"},
		{"path": "/kwargs/<name>", "method": "GET", "call": "com.example.kwargs", "render": "greeting.html"},
		{"path": "/unsafe/<name>", "method": "GET", "call": "com.example.greeting", "render": "unsafe.html"}],
		"wamp": {"realm": "realm1"}},
	"open": {"type": "wap", "templates": "../templates", "sandbox": false, "routes": [
		{"path": "/unsafe/<name>", "method": "GET", "call": "com.example.greeting", "render": "unsafe.html"}],
		"wamp": {"realm": "realm1", "authrole": "anonymous"}}}`

// wapCallee registers the procedures wapPaths calls on a session joined
// over the node's WebSocket path, and returns the invocations of
// com.example.product.
func wapCallee(t *testing.T, base string) <-chan *client.Invocation {
	t.Helper()
	s := mustWS(t, "ws"+strings.TrimPrefix(base, "http")+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	product := make(chan *client.Invocation, 1)
	procs := map[wamp.URI]client.InvocationHandler{
		"com.example.greeting": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: wamp.List{wamp.Dict{"name": inv.Kwargs.Dict()["name"], "html": "<script>alert(1)</script>"}}}, nil
		},
		"com.example.product": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			product <- inv
			return &client.Result{Args: wamp.List{inv.Kwargs.Dict()}}, nil
		},
		"com.example.fail": func(context.Context, *client.Invocation) (*client.Result, error) {
			return nil, &wamp.RequestError{URI: "com.example.error.out_of_stock", Args: wamp.List{"no <more>"}}
		},
		"com.example.scalar": func(context.Context, *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: wamp.List{"just a string"}}, nil
		},
		"com.example.kwargs": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Kwargs: wamp.Object{{Key: "name", Value: inv.Kwargs.Dict()["name"]}}}, nil
		},
	}
	for proc, h := range procs {
		if _, err := s.Register(testCtx(t), proc, h, nil); err != nil {
			t.Fatalf("register %s: %v", proc, err)
		}
	}
	return product
}

// TestWAP: each route calls its procedure with the URL's variables as
// keyword arguments and renders its template with the result, escaped;
// the failures answer Crossbar's HTML error page.
func TestWAP(t *testing.T) {
	_, base := pyWebNode(t, wapPaths, nil)
	product := wapCallee(t, base)
	tests := []struct {
		name, method, target string
		status               int
		want                 []string // each is in the body
	}{
		{"plain variable", "GET", "/reports/greeting/world", 200,
			[]string{"<p>Hello world! &lt;script&gt;alert(1)&lt;/script&gt;</p>"}},
		{"escaped variable", "GET", "/reports/greeting/%3Cb%3E", 200, []string{"<p>Hello &lt;b&gt;! "}},
		{"int converter", "GET", "/reports/product/42/sales", 200, []string{"<p>product 43 sales</p>"}},
		{"int converter refuses", "GET", "/reports/product/x42/sales", 404,
			[]string{"Crossbar WAMP Application Page Error", "Path &quot;/reports/product/x42/sales&quot; not found"}},
		{"no call", "GET", "/reports/static", 200, []string{"<p>static 2</p>"}},
		{"no call, trailing slash", "GET", "/reports/static/", 200, []string{"<p>static 2</p>"}},
		{"head", "HEAD", "/reports/static", 200, nil},
		{"no route", "GET", "/reports/nothing", 404, []string{"Path &quot;/reports/nothing&quot; not found"}},
		{"the mount path alone", "GET", "/reports", 404, []string{"Path &quot;/reports&quot; not found"}},
		{"post route, no variables", "POST", "/reports/form", 200, []string{"<p>Hello None! "}},
		{"wrong method", "GET", "/reports/form", 405, []string{"Method not allowed on path &quot;/reports/form&quot;"}},
		{"wrong method on a GET route", "DELETE", "/reports/static", 405, []string{"Method not allowed"}},
		{"no callee", "GET", "/reports/missing", 500, []string{"<pre>wamp.error.no_such_procedure</pre>"}},
		{"call error", "GET", "/reports/failing", 500, []string{"<pre>com.example.error.out_of_stock</pre>"}},
		{"result not a dict", "GET", "/reports/scalar", 500,
			[]string{"render error for WAMP result of type &quot;&lt;class &#x27;str&#x27;&gt;&quot;"}},
		{"keyword results", "GET", "/reports/kwargs/kw", 200, []string{"<p>Hello kw! </p>"}},
		{"sandboxed", "GET", "/reports/unsafe/x", 500, []string{"render error", "is unsafe"}},
		{"not sandboxed", "GET", "/open/unsafe/x", 200, []string{"(&lt;class &#39;str&#39;&gt;, &lt;class &#39;object&#39;&gt;)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(testCtx(t), tt.method, base+tt.target, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b := new(bytes.Buffer)
			if _, err := b.ReadFrom(resp.Body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("%d %q, want %d text/html", resp.StatusCode, resp.Header.Get("Content-Type"), tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("body %q lacks %q", b.String(), w)
				}
			}
			if tt.status == 405 && resp.Header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
	select {
	case inv := <-product:
		if len(inv.Args) != 0 || len(inv.Kwargs) != 2 || inv.Kwargs.Dict()["report"] != "sales" {
			t.Errorf("the callee got args %v kwargs %v, want only the kwargs product_id and report", inv.Args, inv.Kwargs)
		}
	default:
		t.Error("com.example.product was not called")
	}
}

// TestWAPPackageTemplates: "templates" as a package's resource.
func TestWAPPackageTemplates(t *testing.T) {
	_, base := pyWebNode(t, `{"ws": {"type": "websocket"}, "/": {"type": "wap", "templates": {"package": "wappages", "resource": "pages"},
		"routes": [{"path": "/hello/<name>", "method": "GET", "call": "com.example.greeting", "render": "hello.html"}],
		"wamp": {"realm": "realm1"}}}`, nil)
	wapCallee(t, base)
	if status, body := get(t, base+"/hello/pkg"); status != http.StatusOK || body != "<p>from the package: pkg</p>" {
		t.Errorf("%d %q", status, body)
	}
}

// TestWAPStartErrors: templates that do not load, and a rule werkzeug
// refuses, fail the start at their keys.
func TestWAPStartErrors(t *testing.T) {
	const p = `workers[0].transports[0].paths.app`
	route := func(path, render string) string {
		return `"routes": [{"path": "/", "render": "static.html"}, {"path": "` + path + `", "render": "` + render + `"}], "wamp": {"realm": "realm1"}`
	}
	tests := []struct{ name, members, want string }{
		{"no templates directory", `"templates": "../nowhere", ` + route("/x", "static.html"),
			p + `.templates: node: templates directory "`},
		{"no template", `"templates": "../templates", ` + route("/x", "nothing.html"),
			p + `.routes[1].render: node: template "nothing.html" not found in `},
		{"template does not load", `"templates": "../templates", ` + route("/x", "broken.html"),
			p + `.routes[1].render: node: template "broken.html" does not load: jinja2.exceptions.TemplateSyntaxError: `},
		{"bad rule", `"templates": "../templates", ` + route("/x/<int:>", "static.html"),
			p + `.routes[1].path: node: route "/x/<int:>": `},
		{"no package", `"templates": {"package": "nopackage", "resource": "pages"}, ` + route("/x", "static.html"),
			p + `.templates.package: node: Could not import resource pages from package nopackage: ModuleNotFoundError: No module named 'nopackage'`},
		{"no resource", `"templates": {"package": "wappages", "resource": "nothing"}, ` + route("/x", "static.html"),
			p + `.templates.resource: node: templates directory "`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { pyWebStartFails(t, `{"app": {"type": "wap", `+tt.members+`}}`, tt.want) })
	}
}

// TestWAPCallSocket: the node answers the process's calls on a socket
// beside its own, in the directory only the node's user may enter; both
// go at stop.
func TestWAPCallSocket(t *testing.T) {
	n, err := New(zeroPorts(parse(t, pyWebDoc(`{"/": {"type": "wap", "templates": "../templates",
		"routes": [{"path": "/", "render": "static.html"}], "wamp": {"realm": "realm1"}}}`), nil)), Options{Dir: pyWebProject(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(n.pyWebs[0].sock.Path())
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v %v, want mode 0700", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "call.sock")); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("call socket: %v", err)
	}
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("socket directory after stop: %v", err)
	}
}

// TestWAPAuthRole: the calls are made as wamp.authrole, whose
// permissions apply: a role that may not call gets the router's
// wamp.error.not_authorized in the page; one that may, the page.
func TestWAPAuthRole(t *testing.T) {
	doc := `{"version": 2, "workers": [{"type": "router", "options": {"python": "` + python + `"},
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true},
			{"name": "viewer", "permissions": [{"uri": "com.example.greeting", "allow": {"call": true}}]}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket"},
			"v": {"type": "wap", "templates": "../templates", "wamp": {"realm": "realm1", "authrole": "viewer"}, "routes": [
				{"path": "/greeting/<name>", "call": "com.example.greeting", "render": "greeting.html"},
				{"path": "/product/<int:product_id>/<report>", "call": "com.example.product", "render": "product.html"}]}}}]}]}`
	n := startWith(t, zeroPorts(parse(t, doc, nil)), Options{Dir: pyWebProject(t)})
	base := "http://" + n.Listeners()[0].Address
	wapCallee(t, base)
	if status, body := get(t, base+"/v/greeting/ok"); status != http.StatusOK || !strings.HasPrefix(body, "<p>Hello ok! ") {
		t.Errorf("allowed: %d %q", status, body)
	}
	if status, body := get(t, base+"/v/product/1/r"); status != http.StatusInternalServerError ||
		!strings.Contains(body, "<pre>wamp.error.not_authorized</pre>") {
		t.Errorf("not allowed: %d %q, want 500 with wamp.error.not_authorized", status, body)
	}
}

// TestWAPReload: a reload that changes a wap path's routes starts a new
// process, whose calls a new session makes; the old one stops.
func TestWAPReload(t *testing.T) {
	paths := func(routes string) string {
		return `{"ws": {"type": "websocket"}, "r": {"type": "wap", "templates": "../templates", "wamp": {"realm": "realm1"}, "routes": [` + routes + `]}}`
	}
	const greeting = `{"path": "/greeting/<name>", "call": "com.example.greeting", "render": "greeting.html"}`
	n, base := pyWebNode(t, paths(greeting), nil)
	wapCallee(t, base)
	old := n.pyWebs[0].proc
	rep, err := n.Reload(testCtx(t), zeroPorts(parse(t, pyWebDoc(paths(greeting+`, {"path": "/static", "render": "static.html"}`)), nil)))
	if err != nil || len(rep.Applied) != 1 {
		t.Fatalf("Reload: %+v %v", rep, err)
	}
	select {
	case <-old.Done():
	case <-testCtx(t).Done():
		t.Fatal("the old tree's process still runs")
	}
	if status, body := get(t, base+"/r/static"); status != http.StatusOK || body != "<p>static 2</p>" {
		t.Errorf("new route: %d %q", status, body)
	}
	if status, body := get(t, base+"/r/greeting/again"); status != http.StatusOK || !strings.HasPrefix(body, "<p>Hello again! ") {
		t.Errorf("call after the reload: %d %q", status, body)
	}
}
