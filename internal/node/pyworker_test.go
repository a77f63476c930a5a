package node

import (
	"bytes"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// python is the interpreter of the Python tests: Debian's, with
// python3-autobahn and python3-twisted (scripts/install-test-deps.sh).
// The python3 first on PATH may lack them.
const python = "/usr/bin/python3"

// pyProject makes a project directory holding testdata/pyapp.py, and
// returns its node directory (project/.crossbar), where "pythonpath":
// [".."] finds the module, as in Crossbar's examples.
func pyProject(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "pyapp.py"))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "pyapp.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cbdir := filepath.Join(project, ".crossbar")
	if err := os.Mkdir(cbdir, 0o755); err != nil {
		t.Fatal(err)
	}
	return cbdir
}

// pyRouter is a router worker with realm1 (anonymous may do everything),
// a RawSocket transport on the Unix socket router.sock, and components.
func pyRouter(components string) string {
	return `{"type": "router", "options": {"python": "` + python + `", "pythonpath": [".."]},
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}},
			{"type": "websocket", "endpoint": {"type": "unix", "path": "ws.sock"}}],
		"components": [` + components + `]}`
}

// pyContainer is a container worker with the options (members of
// "options" after python and pythonpath) and the components.
func pyContainer(options, components string) string {
	if options != "" {
		options = ", " + options
	}
	return `{"type": "container", "options": {"python": "` + python + `", "pythonpath": [".."]` + options + `},
		"components": [` + components + `]}`
}

// The transports of a container component to pyRouter's router.
const (
	overRawSocket = `{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}, "serializer": "msgpack"}`
	overWebSocket = `{"type": "websocket", "endpoint": {"type": "unix", "path": "ws.sock"}, "url": "ws://localhost/ws", "serializers": ["json"]}`
)

// pyComp is a Python component of class named name (its URIs' prefix)
// over transport ("" for a router component).
func pyComp(class, name, transport string) string {
	c := `{"type": "class", "classname": "pyapp.` + class + `", "realm": "realm1", "extra": {"name": "` + name + `"}`
	if transport != "" {
		c += `, "transport": ` + transport
	}
	return c + "}"
}

// pyDoc is a node configuration of workers.
func pyDoc(workers ...string) string {
	return `{"version": 2, "workers": [` + strings.Join(workers, ",") + `]}`
}

// startPy starts the node of doc in cbdir, logging to the returned
// log; it stops at the end of the test.
func startPy(t *testing.T, cbdir, doc string) (*Node, *watchedLog) {
	t.Helper()
	n, log := newPy(t, cbdir, doc)
	startNode(t, n)
	return n, log
}

// newPy builds the node of doc in cbdir, logging to the returned log,
// which the test prints when it fails (or PYLOG is set).
func newPy(t *testing.T, cbdir, doc string) (*Node, *watchedLog) {
	t.Helper()
	log, logger := newWatchedLogger(t)
	n, err := New(parse(t, doc, nil), Options{Dir: cbdir, Logger: logger})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return n, log
}

// newWatchedLogger is a debug logger to a watchedLog, which the test
// prints when it fails (or PYLOG is set).
func newWatchedLogger(t *testing.T) (*watchedLog, *slog.Logger) {
	log := newWatchedLog()
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("PYLOG") != "" {
			t.Logf("node log:\n%s", log.String())
		}
	})
	return log, slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// watchedLog is a log sink whose lines a test can wait for.
type watchedLog struct {
	mu   sync.Mutex
	b    bytes.Buffer
	wake chan struct{} // closed, and replaced, at each write
}

func newWatchedLog() *watchedLog { return &watchedLog{wake: make(chan struct{})} }

func (l *watchedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.wake)
	l.wake = make(chan struct{})
	return l.b.Write(p)
}

func (l *watchedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// count counts the lines that hold every one of parts.
func (l *watchedLog) count(parts ...string) (int, chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for line := range strings.Lines(l.b.String()) {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
			n++
		}
	}
	return n, l.wake
}

// wait waits until n lines hold every one of parts.
func (l *watchedLog) wait(t *testing.T, n int, parts ...string) {
	t.Helper()
	ctx := testCtx(t)
	for {
		got, wake := l.count(parts...)
		if got >= n {
			return
		}
		select {
		case <-wake:
		case <-ctx.Done():
			t.Fatalf("the log has %d lines with %q, want %d", got, parts, n)
		}
	}
}

// joinRouter joins realm1 over router.sock in cbdir.
func joinRouter(t *testing.T, cbdir string) *client.Session {
	t.Helper()
	return mustRaw(t, "unix", filepath.Join(cbdir, "router.sock"), client.Config{Realm: "realm1"})
}

// TestPyRouterComponent: a Python component of a router worker starts
// before the listeners, registers, and a client calls it; it joined with
// role anonymous (Crossbar's default), its extra carries cbdir, its
// working directory is the node directory, sys.path[0] the directory the
// node started from, and pythonpath resolved against the node directory.
func TestPyRouterComponent(t *testing.T) {
	cbdir := pyProject(t)
	_, log := startPy(t, cbdir, pyDoc(pyRouter(`{"type": "class", "classname": "pyapp.Echo", "realm": "realm1",
		"extra": {"name": "com.example.py", "n": 12345678901234567890, "list": [1, "a", null]}}`)))
	s := joinRouter(t, cbdir)
	res, err := s.Call(testCtx(t), "com.example.py.echo", wamp.List{"hi", 2}, nil)
	if err != nil {
		t.Fatalf("call echo: %v", err)
	}
	if len(res.Args) != 2 || res.Args[0] != "hi" {
		t.Errorf("echo returned %v", res.Args)
	}
	res, err = s.Call(testCtx(t), "com.example.py.info", nil, nil)
	if err != nil {
		t.Fatalf("call info: %v", err)
	}
	info, _ := wamp.AsDict(res.Args[0])
	extra, _ := wamp.AsDict(info["extra"])
	wd, _ := os.Getwd()
	project := filepath.Dir(cbdir)
	if extra["cbdir"] != cbdir || info["cwd"] != cbdir || info["path0"] != wd || info["authrole"] != "anonymous" ||
		info["realm"] != "realm1" || info["controller"] != true || info["shared"] != true {
		t.Errorf("info %v: want extra.cbdir and cwd %s, sys.path[0] %s, role anonymous", info, cbdir, wd)
	}
	if path, _ := info["path"].([]any); len(path) < 2 || path[1] != project {
		t.Errorf("sys.path %v: want %s (the pythonpath) after sys.path[0]", info["path"], project)
	}
	if n := extra["n"]; n != uint64(12345678901234567890) {
		t.Errorf("extra.n = %v (%T), want the integer as written", n, n)
	}
	out := log.String()
	ready := strings.Index(out, `msg="component ready" worker=workers[0] component=workers[0].components[0]`)
	listening := strings.Index(out, `msg=listening`)
	if ready < 0 || listening < 0 || ready > listening {
		t.Errorf("the component was not ready before the listener opened:\n%s", out)
	}
}

// TestPyContainerComponent: a Python component of a container joins over
// its own transport (RawSocket with msgpack, WebSocket with JSON) with the
// role the transport gives anonymous clients, and a client calls it.
func TestPyContainerComponent(t *testing.T) {
	for name, transport := range map[string]string{"rawsocket": overRawSocket, "websocket": overWebSocket} {
		t.Run(name, func(t *testing.T) {
			cbdir := pyProject(t)
			startPy(t, cbdir, pyDoc(pyRouter(""), pyContainer("", pyComp("Echo", "com.example.c", transport))))
			s := joinRouter(t, cbdir)
			res, err := s.Call(testCtx(t), "com.example.c.info", nil, nil)
			if err != nil {
				t.Fatalf("call info: %v", err)
			}
			info, _ := wamp.AsDict(res.Args[0])
			extra, _ := wamp.AsDict(info["extra"])
			if extra["cbdir"] != cbdir || extra["name"] != "com.example.c" || info["authrole"] != "anonymous" || info["cwd"] != cbdir {
				t.Errorf("info %v", info)
			}
			res, err = s.Call(testCtx(t), "com.example.c.echo", wamp.List{[]byte{0, 1, 2}}, nil)
			if err != nil {
				t.Fatalf("call echo: %v", err)
			}
			if len(res.Args) != 1 || !bytes.Equal(asBytes(res.Args[0]), []byte{0, 1, 2}) {
				t.Errorf("echo of binary = %#v", res.Args)
			}
		})
	}
}

// asBytes is b as bytes, whatever slice type the codec gave.
func asBytes(b any) []byte {
	v, _ := b.([]byte)
	return v
}

// TestPyCheckConfig: check_config(personality, extra) is called before
// the component starts, with the extra it then gets; an exception it
// raises fails the start, at the component's extra.
func TestPyCheckConfig(t *testing.T) {
	cbdir := pyProject(t)
	startPy(t, cbdir, pyDoc(pyRouter(pyComp("Checked", "com.example.ok", ""))))
	res, err := joinRouter(t, cbdir).Call(testCtx(t), "com.example.ok.info", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	extra := dict(dict(res.Args[0])["extra"])
	if extra["checked_by"] != "standalone" {
		t.Errorf("extra %v: check_config did not run with the personality", extra)
	}

	cbdir = pyProject(t)
	n, _ := newPy(t, cbdir, pyDoc(pyRouter(`{"type": "class", "classname": "pyapp.Checked", "realm": "realm1", "extra": {"bad": true}}`)))
	err = n.Start(testCtx(t))
	want := `workers[0].components[0].extra: node: Python class "pyapp.Checked" (/usr/bin/python3): Checked.check_config refused the component's extra: ValueError: bad is set`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Start: %v\nwant %s", err, want)
	}
}

// TestPyStartErrors: a component that cannot start fails the node's start
// (Crossbar's node exits), with an error at the path of what is wrong
// naming the class and the interpreter, and the listeners closed again.
func TestPyStartErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"module missing", pyDoc(pyRouter(`{"type": "class", "classname": "nomodule.Session", "realm": "realm1"}`)),
			`workers[0].components[0].classname: node: Python class "nomodule.Session" (/usr/bin/python3): cannot import module 'nomodule': ModuleNotFoundError: No module named 'nomodule' (Python module search path: `},
		{"module raises", pyDoc(pyRouter(`{"type": "class", "classname": "broken.Session", "realm": "realm1"}`)),
			`workers[0].components[0].classname: node: Python class "broken.Session" (/usr/bin/python3): cannot import module 'broken': NameError: name 'inlineCallbacks' is not defined (`},
		{"class missing", pyDoc(pyRouter(`{"type": "class", "classname": "pyapp.MySession2", "realm": "realm1"}`)),
			`workers[0].components[0].classname: node: Python class "pyapp.MySession2" (/usr/bin/python3): module 'pyapp' has no class 'MySession2'`},
		{"not a session", pyDoc(pyRouter(`{"type": "class", "classname": "pyapp.NotASession", "realm": "realm1"}`)),
			`workers[0].components[0].classname: node: Python class "pyapp.NotASession" (/usr/bin/python3): 'pyapp.NotASession' is not a subclass of autobahn.twisted.wamp.ApplicationSession`},
		{"constructor raises", pyDoc(pyRouter(pyComp("RaiseInInit", "c", ""))),
			`workers[0].components[0]: node: Python class "pyapp.RaiseInInit" (/usr/bin/python3): RaiseInInit(config) raised: ZeroDivisionError: division by zero (`},
		{"constructor raises in a container", pyDoc(pyRouter(""), pyContainer("", pyComp("RaiseInInit", "c", overRawSocket))),
			`workers[1].components[0]: node: Python class "pyapp.RaiseInInit" (/usr/bin/python3): RaiseInInit(config) raised: ZeroDivisionError`},
		{"router component leaves in onJoin", pyDoc(pyRouter(pyComp("LeaveInJoin", "c", ""))),
			`workers[0].components[0]: node: Python class "pyapp.LeaveInJoin" (/usr/bin/python3): the session left before it was ready`},
		{"container cannot connect", pyDoc(pyRouter(""), pyContainer("", pyComp("Echo", "c", `{"type": "rawsocket", "endpoint": {"type": "unix", "path": "nowhere.sock"}}`))),
			`workers[1].components[0].transport: node: cannot connect to unix:nowhere.sock: rawsocket: dial: dial unix `},
		{"container wrong URL path", pyDoc(`{"type": "router", "realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
			"transports": [{"type": "web", "endpoint": {"type": "unix", "path": "web.sock"}, "paths": {"/": {"type": "json", "value": {}}, "ws": {"type": "websocket"}}}]}`,
			pyContainer("", pyComp("Echo", "c", `{"type": "websocket", "endpoint": {"type": "unix", "path": "web.sock"}, "url": "ws://localhost"}`))),
			`workers[1].components[0].transport: node: cannot connect to unix:web.sock: `},
		{"container realm missing", pyDoc(pyRouter(""), pyContainer("", `{"type": "class", "classname": "pyapp.Echo", "realm": "realm9", "transport": `+overRawSocket+`}`)),
			`workers[1].components[0]: node: Python class "pyapp.Echo" (/usr/bin/python3): the connection closed before the session was ready (wamp.error.no_such_realm`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cbdir := pyProject(t)
			broken := "from twisted.internet import reactor\n\n@inlineCallbacks\ndef f():\n    pass\n"
			if err := os.WriteFile(filepath.Join(filepath.Dir(cbdir), "broken.py"), []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			n, _ := newPy(t, cbdir, tt.doc)
			err := n.Start(testCtx(t))
			t.Logf("Start: %v", err)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start: %v\nwant %s", err, tt.want)
			}
			for _, l := range n.Listeners() {
				if c, err := net.Dial(l.Network, l.Address); err == nil {
					c.Close()
					t.Errorf("%s still accepts after the failed start", l.Address)
				}
			}
		})
	}
}

// TestPyInterpreterErrors: an interpreter that is not there fails the
// build at options.python; one without Twisted or Autobahn fails the
// start saying so and naming it.
func TestPyInterpreterErrors(t *testing.T) {
	cbdir := pyProject(t)
	doc := pyDoc(strings.Replace(pyRouter(pyComp("Echo", "c", "")), python, "/nonexistent/python3", 1))
	_, err := New(parse(t, doc, nil), Options{Dir: cbdir})
	if err == nil || !strings.Contains(err.Error(), `workers[0].options.python: node: Python interpreter "/nonexistent/python3": /nonexistent/python3 is not an executable file`) {
		t.Errorf("New: %v", err)
	}
	doc = pyDoc(strings.Replace(pyRouter(pyComp("Echo", "c", "")), `"`+python+`"`, `"no-such-python-here"`, 1))
	_, err = New(parse(t, doc, nil), Options{Dir: cbdir})
	if err == nil || !strings.Contains(err.Error(), `workers[0].options.python: node: Python interpreter "no-such-python-here": exec: "no-such-python-here": executable file not found in $PATH`) {
		t.Errorf("New: %v", err)
	}

	// Without the site packages, Debian's Python has neither.
	bare := filepath.Join(t.TempDir(), "bare-python")
	if err := os.WriteFile(bare, []byte("#!/bin/sh\nexec "+python+" -S \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	n, _ := newPy(t, cbdir, pyDoc(strings.Replace(pyRouter(pyComp("Echo", "c", "")), python, bare, 1)))
	err = n.Start(testCtx(t))
	want := `workers[0]: node: ` + bare + ` cannot run Python components: cannot import Twisted: ModuleNotFoundError: No module named 'twisted' (install Autobahn and Twisted`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Start: %v\nwant %s", err, want)
	}
}
