package node

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/logtest"
)

// pyWebProject makes a project directory holding testdata/pyweb's
// modules and templates and returns its node directory
// (project/.crossbar), where "pythonpath": [".."] finds them, as in
// Crossbar's wsgi example, and "templates": "../templates" the templates,
// as in its wap example.
func pyWebProject(t *testing.T) string {
	t.Helper()
	project := t.TempDir()
	if err := os.CopyFS(project, os.DirFS(filepath.Join("testdata", "pyweb"))); err != nil {
		t.Fatal(err)
	}
	cbdir := filepath.Join(project, ".crossbar")
	if err := os.Mkdir(cbdir, 0o755); err != nil {
		t.Fatal(err)
	}
	return cbdir
}

// pyWebDoc is a node with one router worker whose web transport has
// paths (a JSON object).
func pyWebDoc(paths string) string {
	return `{"version": 2, "workers": [{"type": "router", "options": {"python": "` + python + `", "pythonpath": [".."]},
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": ` + paths + `}]}]}`
}

// pyWebNode builds and starts the node of pyWebDoc(paths) in a new
// project, and returns it with its web transport's base URL.
func pyWebNode(t *testing.T, paths string, log *logtest.Log) (*Node, string) {
	t.Helper()
	opts := Options{Dir: pyWebProject(t)}
	if log != nil {
		opts.Logger = log.Logger(0)
	}
	n := startWith(t, zeroPorts(parse(t, pyWebDoc(paths), nil)), opts)
	return n, "http://" + n.Listeners()[0].Address
}

// wsgiSeen is what testdata/pyweb/webapp.py answers: the environ's keys.
type wsgiSeen struct {
	Method      string  `json:"REQUEST_METHOD"`
	ScriptName  string  `json:"SCRIPT_NAME"`
	PathInfo    string  `json:"PATH_INFO"`
	Query       string  `json:"QUERY_STRING"`
	ContentType *string `json:"CONTENT_TYPE"`
	Length      *string `json:"CONTENT_LENGTH"`
	Host        string  `json:"HTTP_HOST"`
	XTest       *string `json:"HTTP_X_TEST"`
	Cookie      *string `json:"HTTP_COOKIE"`
	ServerName  string  `json:"SERVER_NAME"`
	ServerPort  string  `json:"SERVER_PORT"`
	RemoteAddr  string  `json:"REMOTE_ADDR"`
	Scheme      string  `json:"wsgi.url_scheme"`
	Body        string  `json:"body"`
}

func ptr(s string) *string { return &s }

// pyWebPaths: a wsgi application at the root (the fallback of every
// path no other takes), the same at "sub" and two levels down, a json
// service beside them, and a resource.
const pyWebPaths = `{
	"/": {"type": "wsgi", "module": "webapp", "object": "app"},
	"sub": {"type": "wsgi", "module": "webapp", "object": "app", "maxthreads": 4},
	"deep": {"type": "path", "paths": {"app": {"type": "wsgi", "module": "webapp", "object": "app"}}},
	"info": {"type": "json", "value": {"service": "info"}},
	"res": {"type": "resource", "classname": "resource.Echo", "extra": {"greeting": "hello", "n": [1, 2]}}}`

func TestPyWebWSGI(t *testing.T) {
	_, base := pyWebNode(t, pyWebPaths, nil)
	_, port, _ := strings.Cut(strings.TrimPrefix(base, "http://"), ":")
	tests := []struct {
		name, method, target, body string
		chunked                    bool
		header                     map[string]string
		want                       wsgiSeen
	}{
		{"root", "GET", "/", "", false, nil, wsgiSeen{Method: "GET", PathInfo: "/"}},
		{"root path, query, headers", "GET", "/x/y?a=1&b=%20", "", false,
			map[string]string{"X-Test": "t1", "Cookie": "c=1", "X_Test": "smuggled"},
			wsgiSeen{Method: "GET", PathInfo: "/x/y", Query: "a=1&b=%20", XTest: ptr("t1"), Cookie: ptr("c=1")}},
		{"root, escaped path", "GET", "/a%20b/%C3%A9", "", false, nil, wsgiSeen{Method: "GET", PathInfo: "/a b/\u00c3\u00a9"}},
		{"sub-path itself", "GET", "/sub", "", false, nil, wsgiSeen{Method: "GET", ScriptName: "/sub"}},
		{"sub-path slash", "GET", "/sub/", "", false, nil, wsgiSeen{Method: "GET", ScriptName: "/sub", PathInfo: "/"}},
		{"below the sub-path", "GET", "/sub/p/q?z", "", false, nil, wsgiSeen{Method: "GET", ScriptName: "/sub", PathInfo: "/p/q", Query: "z"}},
		{"nested", "GET", "/deep/app/x", "", false, nil, wsgiSeen{Method: "GET", ScriptName: "/deep/app", PathInfo: "/x"}},
		{"post", "POST", "/sub/form", `{"k": "v"}`, false, map[string]string{"Content-Type": "application/json"},
			wsgiSeen{Method: "POST", ScriptName: "/sub", PathInfo: "/form", ContentType: ptr("application/json"), Length: ptr("10"), Body: `{"k": "v"}`}},
		{"post chunked", "POST", "/up", strings.Repeat("chunk ", 5000), true, nil,
			wsgiSeen{Method: "POST", PathInfo: "/up", Body: strings.Repeat("chunk ", 5000)}},
		{"put", "PUT", "/sub/x", "data", false, nil, wsgiSeen{Method: "PUT", ScriptName: "/sub", PathInfo: "/x", Length: ptr("4"), Body: "data"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // no length known: sent chunked
			}
			req, err := http.NewRequestWithContext(testCtx(t), tt.method, base+tt.target, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = "example.com:8443"
			for k, v := range tt.header {
				req.Header[k] = []string{v}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("X-App") != "webapp" {
				t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, b)
			}
			var got wsgiSeen
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("%q: %v", b, err)
			}
			want := tt.want
			want.Host, want.ServerName, want.ServerPort = "example.com:8443", "example.com", port
			want.RemoteAddr, want.Scheme = "127.0.0.1", "http"
			if got.Length == nil && want.Length == nil && tt.method == "POST" {
				want.Length = got.Length // chunked: no length
			}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("environ\n got %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

// TestPyWebOtherPathsFirst: the paths beside a root wsgi application
// keep their requests; it gets the rest.
func TestPyWebOtherPathsFirst(t *testing.T) {
	_, base := pyWebNode(t, pyWebPaths, nil)
	status, body := get(t, base+"/info")
	if status != http.StatusOK || !strings.Contains(body, `"service":"info"`) {
		t.Errorf("/info: %d %q, want the json service", status, body)
	}
	status, body = get(t, base+"/infox")
	if status != http.StatusOK || !strings.Contains(body, `"PATH_INFO": "/infox"`) {
		t.Errorf("/infox: %d %q, want the wsgi application", status, body)
	}
}

// TestPyWebStreamAndErrors: an answer of unknown length streams
// (chunked), one of one piece has its length, an application that raises
// gives 500, a dot segment never reaches it.
func TestPyWebStreamAndErrors(t *testing.T) {
	_, base := pyWebNode(t, pyWebPaths, nil)
	resp, err := http.Get(base + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "part 0\npart 1\npart 2\n" || len(resp.TransferEncoding) == 0 {
		t.Errorf("stream: %d %v %q, want the three parts chunked", resp.StatusCode, resp.TransferEncoding, b)
	}
	resp, err = http.Get(base + "/one")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "one piece" || resp.ContentLength != 9 || len(resp.TransferEncoding) != 0 {
		t.Errorf("one piece: %q, length %d %v, want it with its Content-Length", b, resp.ContentLength, resp.TransferEncoding)
	}
	status, body := get(t, base+"/sub/raise")
	if status != http.StatusInternalServerError || !strings.Contains(body, `"error":"internal server error"`) {
		t.Errorf("raise: %d %q, want 500 with a JSON body", status, body)
	}
	status, body = get(t, base+"/sub/%2e%2e/secret")
	if status != http.StatusBadRequest || !strings.Contains(body, "dot segment") {
		t.Errorf("dot segment: %d %q, want 400", status, body)
	}
}

// TestPyWebMaxThreads: with "maxthreads": 2, a third request waits
// until one of the two running ends. Each /hold request says how many
// run with it, then holds until its body ends: the third, once let in,
// runs with one other (the second), not two.
func TestPyWebMaxThreads(t *testing.T) {
	_, base := pyWebNode(t, `{"/": {"type": "wsgi", "module": "webapp", "object": "app", "maxthreads": 2}}`, nil)
	type held struct {
		body  *io.PipeWriter
		lines *bufio.Reader
		resp  chan *http.Response
	}
	hold := func() *held {
		r, w := io.Pipe()
		req, err := http.NewRequestWithContext(testCtx(t), "POST", base+"/hold", r)
		if err != nil {
			t.Fatal(err)
		}
		h := &held{body: w, resp: make(chan *http.Response, 1)}
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				close(h.resp)
				return
			}
			h.resp <- resp
		}()
		return h
	}
	line := func(h *held) string {
		if h.lines == nil {
			resp := <-h.resp
			if resp == nil {
				t.FailNow()
			}
			t.Cleanup(func() { resp.Body.Close() })
			h.lines = bufio.NewReader(resp.Body)
		}
		s, err := h.lines.ReadString('\n')
		if err != nil {
			t.Fatalf("read %q: %v", s, err)
		}
		return s
	}
	a, b := hold(), hold()
	for _, h := range []*held{a, b} {
		if got := line(h); got != "active 1\n" && got != "active 2\n" {
			t.Fatalf("first two: %q", got)
		}
	}
	c := hold()
	a.body.Close() // a ends: c may run
	if got := line(a); got != "done\n" {
		t.Errorf("a: %q", got)
	}
	if got := line(c); got != "active 2\n" {
		t.Errorf("third request: %q, want \"active 2\" (it ran beside b only)", got)
	}
	b.body.Close()
	c.body.Close()
	if got := line(c); got != "done\n" {
		t.Errorf("c: %q", got)
	}
}

// TestPyWebClientGone: a client that goes away in the middle of an
// endless answer ends it in the application, which frees its thread
// (maxthreads 1: the next request runs) without a traceback.
func TestPyWebClientGone(t *testing.T) {
	var log logtest.Log
	_, base := pyWebNode(t, `{"/": {"type": "wsgi", "module": "webapp", "object": "app", "maxthreads": 1}}`, &log)
	ctx, cancel := context.WithCancel(testCtx(t))
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/forever", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	if status, body := get(t, base+"/after"); status != http.StatusOK || !strings.Contains(body, `"PATH_INFO": "/after"`) {
		t.Errorf("next request: %d %q", status, body)
	}
	for _, r := range log.Records(t) {
		if r["stream"] == "stderr" {
			t.Errorf("the process wrote to stderr: %v", r["msg"])
		}
	}
}

// TestPyWebResource: a Twisted Web resource, made with "extra", mounted
// at its path.
func TestPyWebResource(t *testing.T) {
	_, base := pyWebNode(t, pyWebPaths, nil)
	status, body := get(t, base+"/res/a/b")
	var got struct {
		Extra    map[string]any `json:"extra"`
		Method   string         `json:"method"`
		Prepath  []string       `json:"prepath"`
		Postpath []string       `json:"postpath"`
		Client   string         `json:"client"`
		Secure   bool           `json:"secure"`
	}
	if err := json.Unmarshal([]byte(body), &got); status != http.StatusOK || err != nil {
		t.Fatalf("%d %q: %v", status, body, err)
	}
	if got.Extra["greeting"] != "hello" || len(got.Extra["n"].([]any)) != 2 || got.Method != "GET" ||
		strings.Join(got.Prepath, "/") != "res" || strings.Join(got.Postpath, "/") != "a/b" ||
		got.Client != "127.0.0.1" || got.Secure {
		t.Errorf("got %+v", got)
	}
}

// TestPyWebStartErrors: a module, object or class that is not there
// fails the start, in Python's words, at its key.
func TestPyWebStartErrors(t *testing.T) {
	const p = `workers[0].transports[0].paths.app`
	tests := []struct{ name, svc, want string }{
		{"no module", `{"type": "wsgi", "module": "nomodule", "object": "app"}`,
			p + `.module: node: WSGI app module "nomodule" import failed: ModuleNotFoundError: No module named 'nomodule' - Python search path was [`},
		{"module raises", `{"type": "wsgi", "module": "broken", "object": "app"}`,
			p + `.module: node: WSGI app module "broken" import failed: ModuleNotFoundError: No module named 'no_such_module_here'`},
		{"no object", `{"type": "wsgi", "module": "webapp", "object": "application"}`,
			p + `.object: node: WSGI app object "application" not in module "webapp" (/usr/bin/python3)`},
		{"object not callable", `{"type": "wsgi", "module": "webapp", "object": "not_callable"}`,
			p + `.object: node: WSGI app object "not_callable" in module "webapp" is not callable (int)`},
		{"no class", `{"type": "resource", "classname": "resource.Missing"}`,
			p + `.classname: node: Failed to import class 'resource.Missing' - AttributeError: module 'resource' has no attribute 'Missing'`},
		{"class raises", `{"type": "resource", "classname": "resource.Broken", "extra": {"db": "pg"}}`,
			p + `.classname: node: Failed to import class 'resource.Broken' - ValueError: no database: pg`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { pyWebStartFails(t, `{"app": `+tt.svc+`}`, tt.want) })
	}
}

// pyWebStartFails checks that a node whose web paths are paths builds
// (nothing is imported or loaded then) and fails to start with an error
// beginning with want.
func pyWebStartFails(t *testing.T, paths, want string) {
	t.Helper()
	n, err := New(zeroPorts(parse(t, pyWebDoc(paths), nil)), Options{Dir: pyWebProject(t)})
	if err != nil {
		t.Fatalf("New: %v (the build imports and loads nothing)", err)
	}
	err = n.Start(testCtx(t))
	if err == nil {
		n.Stop(testCtx(t))
		t.Fatal("Start succeeded")
	}
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got  %v\nwant %s...", err, want)
	}
}

// TestPyWebRestart: a process that dies is logged, its path answers 502
// with a JSON body until another process serves it, after the restart
// delay.
func TestPyWebRestart(t *testing.T) {
	var log logtest.Log
	n, err := New(zeroPorts(parse(t, pyWebDoc(`{"/": {"type": "wsgi", "module": "webapp", "object": "app"}}`), nil)),
		Options{Dir: pyWebProject(t), Logger: log.Logger(0)})
	if err != nil {
		t.Fatal(err)
	}
	u := n.pyWebs[0]
	waiting, release := make(chan time.Duration), make(chan struct{})
	u.wait = func(ctx context.Context, d time.Duration) bool {
		select {
		case waiting <- d:
		case <-ctx.Done():
			return false
		}
		select {
		case <-release:
			return true
		case <-ctx.Done():
			return false
		}
	}
	startNode(t, n)
	base := "http://" + n.Listeners()[0].Address
	if status, _ := get(t, base+"/"); status != http.StatusOK {
		t.Fatalf("before: %d", status)
	}
	u.mu.Lock()
	first := u.proc
	u.mu.Unlock()
	if err := syscall.Kill(first.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if d := <-waiting; d != 0 {
		t.Errorf("first restart delay %v, want 0", d)
	}
	status, body := get(t, base+"/x")
	if status != http.StatusBadGateway || !strings.Contains(body, `"error":"bad gateway"`) {
		t.Errorf("while down: %d %q, want 502 with a JSON body", status, body)
	}
	if r := n.Readiness(); r.Ready || !slices.Contains(r.NotReady, u.path+": Python web process not serving") {
		t.Errorf("readiness while down: %+v, want not ready for %s", r, u.path)
	}
	close(release)
	for status != http.StatusOK {
		ctx := testCtx(t)
		select {
		case <-ctx.Done():
			t.Fatalf("not served again: %d %q", status, body)
		default:
		}
		status, body = get(t, base+"/x")
		if status != http.StatusOK && status != http.StatusBadGateway {
			t.Fatalf("after restart: %d %q", status, body)
		}
	}
	if r := n.Readiness(); !r.Ready {
		t.Errorf("readiness once served again: %+v", r)
	}
	if lines := log.Lines(t, "Python web process exited: the path answers 502 until it serves again"); len(lines) != 1 ||
		!strings.Contains(lines[0]["err"].(string), "killed") {
		t.Errorf("exit log: %v", lines)
	}
	if lines := log.Lines(t, "Python web path serving"); len(lines) != 2 {
		t.Errorf("serving logged %d times, want 2", len(lines))
	}
}

// TestPyWebSocketPrivate: the socket is in a directory only the node's
// user may enter, removed at stop; nothing listens on TCP for it.
func TestPyWebSocketPrivate(t *testing.T) {
	n, err := New(zeroPorts(parse(t, pyWebDoc(`{"/": {"type": "wsgi", "module": "webapp", "object": "app"}}`), nil)),
		Options{Dir: pyWebProject(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sock := n.pyWebs[0].sock.Path()
	fi, err := os.Stat(filepath.Dir(sock))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v %v, want mode 0700", fi.Mode(), err)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("socket: %v", err)
	}
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(sock)); !os.IsNotExist(err) {
		t.Errorf("socket directory after stop: %v", err)
	}
}

// TestPyWebCheckImportsNothing: the build (junction check) passes with a
// module that does not exist; only the interpreter must be there.
func TestPyWebCheckImportsNothing(t *testing.T) {
	cfg := parse(t, pyWebDoc(`{"/": {"type": "wsgi", "module": "nomodule", "object": "app"}}`), nil)
	if _, err := New(cfg, Options{Dir: t.TempDir()}); err != nil {
		t.Errorf("New: %v", err)
	}
	cfg.Workers[0].(*config.RouterWorker).Options.Python = "/nonexistent/python3"
	_, err := New(cfg, Options{Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `workers[0].options.python: node: Python interpreter "/nonexistent/python3"`) {
		t.Errorf("New with no interpreter: %v", err)
	}
}

// TestPyWebReload: a reload that changes the paths starts the new tree's
// processes, then stops the old ones; one whose module does not import
// leaves the old tree serving.
func TestPyWebReload(t *testing.T) {
	const root = `"/": {"type": "wsgi", "module": "webapp", "object": "app"}`
	n, base := pyWebNode(t, `{`+root+`}`, nil)
	old := n.pyWebs[0].proc
	rep, err := n.Reload(testCtx(t), zeroPorts(parse(t, pyWebDoc(`{`+root+`, "sub": {"type": "wsgi", "module": "webapp", "object": "app"}}`), nil)))
	if err != nil || len(rep.Applied) != 1 || rep.Applied[0].Path != "workers[0].transports[0].paths" {
		t.Fatalf("Reload: %+v %v", rep, err)
	}
	select {
	case <-old.Done():
	case <-testCtx(t).Done():
		t.Fatal("the old tree's process still runs")
	}
	status, body := get(t, base+"/sub/x")
	if status != http.StatusOK || !strings.Contains(body, `"SCRIPT_NAME": "/sub"`) {
		t.Errorf("new path: %d %q", status, body)
	}
	rep, err = n.Reload(testCtx(t), zeroPorts(parse(t, pyWebDoc(`{"/": {"type": "wsgi", "module": "nomodule", "object": "app"}}`), nil)))
	if err != nil || len(rep.Restart) != 1 || !strings.Contains(rep.Restart[0].What, `WSGI app module "nomodule" import failed`) {
		t.Fatalf("Reload: %+v %v", rep, err)
	}
	if status, body := get(t, base+"/sub/x"); status != http.StatusOK {
		t.Errorf("after the failed reload: %d %q, want the old tree", status, body)
	}
}

// TestUnderPaths: a reload replaces the services of a transport's paths,
// the root's ("/", quoted in its JSON path) too, and no other
// transport's.
func TestUnderPaths(t *testing.T) {
	const paths = "workers[0].transports[1].paths"
	tests := []struct {
		path string
		want bool
	}{
		{paths + ".app", true},
		{paths + `["/"]`, true},
		{paths + `["/"].paths.x`, true},
		{paths + ".api.paths.v1", true},
		{paths, false},
		{"workers[0].transports[1].pathsx.app", false},
		{"workers[0].transports[11].paths.app", false},
		{"workers[0].transports[1].web.paths.app", false},
	}
	for _, tt := range tests {
		if got := underPaths(paths, tt.path); got != tt.want {
			t.Errorf("underPaths(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
