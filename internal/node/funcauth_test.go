package node

import (
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// funcAuthRouter is a router worker (Debian's Python, pythonpath the
// project) with realm1 (role "user" may do everything), a web transport
// on 127.0.0.1 whose paths have auth (JSON members of "paths"), and no
// Python component.
func funcAuthRouter(paths string) string {
	return `{"type": "router", "options": {"python": "` + python + `", "pythonpath": [".."]},
		"realms": [{"name": "realm1", "roles": [{"name": "user", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {` + paths + `}}]}`
}

// funcAuthPaths are the paths of the main test node: "ws" with a function
// authenticator for ticket, wampcra and cryptosign; "async" and "deferred"
// with asynchronous ones.
func funcAuthPaths() string {
	pubkey := hex.EncodeToString(deviceKey().Public().(ed25519.PublicKey))
	return `"ws": {"type": "websocket", "auth": {
			"ticket": {"type": "function", "create": "pyauth.create_ticket", "authenticator-timeout": 500,
				"config": {"tickets": {"alice": "secret1"}, "tag": "${FUNC_TAG}"}},
			"wampcra": {"type": "function", "create": "pyauth.create_wampcra", "config": {"secret": "s3cr3t"}},
			"cryptosign": {"type": "function", "create": "pyauth.create_cryptosign", "config": {"pubkey": "` + pubkey + `"}}}},
		"async": {"type": "websocket", "auth": {
			"ticket": {"type": "function", "create": "pyauth.create_async", "config": {"ticket": "open sesame"}}}},
		"deferred": {"type": "websocket", "auth": {
			"ticket": {"type": "function", "create": "pyauth.create_deferred", "default-role": "user"}}}`
}

// funcAuthProject is pyProject with testdata/pyauth.py beside pyapp.py.
func funcAuthProject(t *testing.T) string {
	t.Helper()
	cbdir := pyProject(t)
	src, err := os.ReadFile(filepath.Join("testdata", "pyauth.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(cbdir), "pyauth.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return cbdir
}

// startFuncAuth starts the main test node and returns its base URL and
// log.
func startFuncAuth(t *testing.T) (string, *watchedLog) {
	t.Helper()
	cbdir := funcAuthProject(t)
	log, logger := newWatchedLogger(t)
	n, err := New(parse(t, pyDoc(funcAuthRouter(funcAuthPaths())), map[string]string{"FUNC_TAG": "from-env"}), Options{Dir: cbdir, Logger: logger})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	startNode(t, n)
	return "ws://" + address(t, n, web0) + "/", log
}

// TestFunctionAuthentication: ticket, wampcra and cryptosign logins are
// decided by Python functions made by their factories in the router
// worker's runner (started for them alone), sync or async, as Crossbar
// calls them.
func TestFunctionAuthentication(t *testing.T) {
	base, log := startFuncAuth(t)
	tests := []struct {
		name, path   string
		cfg          client.Config
		authid, role string
	}{
		{"ticket", "ws", client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret1")}}, "alice", "user"},
		{"wampcra salted", "ws", client.Config{Realm: "realm1", AuthID: "carol", Auth: []client.Authenticator{client.WampCRA("s3cr3t")}}, "carol", "user"},
		{"cryptosign", "ws", client.Config{Realm: "realm1", AuthID: "dave", Auth: []client.Authenticator{client.Cryptosign(deviceKey())}}, "dave", "user"},
		{"async factory and function", "async", client.Config{Realm: "realm1", AuthID: "erin", Auth: []client.Authenticator{client.Ticket("open sesame")}}, "erin", "user"},
		{"deferred factory and function", "deferred", client.Config{Realm: "realm1", AuthID: "frank", Auth: []client.Authenticator{client.Ticket("any")}}, "deferred-frank", "user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustWS(t, base+tt.path, websocket.DialOptions{Header: map[string][]string{"X-Test": {tt.name}}}, tt.cfg)
			d := s.Details()
			if d["realm"] != "realm1" || d["authid"] != tt.authid || d["authrole"] != tt.role || d["authprovider"] != auth.ProviderFunction {
				t.Errorf("WELCOME details %v, want authid %s, role %s, provider function", d, tt.authid, tt.role)
			}
		})
	}
	// What the ticket function was given: realm, details, the factory's
	// config (${NAME} substituted).
	s := mustWS(t, base+"ws", websocket.DialOptions{Header: map[string][]string{"X-Test": {"details"}}},
		client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret1")}})
	extra, _ := wamp.AsDict(s.Details()["authextra"])
	session, _ := wamp.AsInt(extra["session"])
	if extra["realm"] != "realm1" || wamp.ID(session) != s.ID() || extra["authmethod"] != "ticket" || extra["transport"] != "websocket" ||
		extra["header"] != "details" || extra["tag"] != "from-env" {
		t.Errorf("authenticate was given %v", extra)
	}
	out := log.String()
	ready := strings.Index(out, `msg="function authenticator ready" worker=workers[0] auth=workers[0].transports[0].paths.ws.auth.ticket create=pyauth.create_ticket`)
	listening := strings.Index(out, "msg=listening")
	if ready < 0 || listening < 0 || ready > listening {
		t.Errorf("the authenticator was not ready before the listener opened:\n%s", out)
	}
}

// TestFunctionAuthenticationRefused: an ApplicationError is the ABORT; a
// plain exception fails the login and is logged with its traceback under
// the worker; no answer within authenticator-timeout fails it too, and
// the call is canceled in the runner, which goes on answering. (A node
// each: failed logins from one address are slowed down.)
func TestFunctionAuthenticationRefused(t *testing.T) {
	tests := []struct {
		name, path string
		cfg        client.Config
		want       wamp.URI
		message    string
	}{
		{"wrong ticket", "ws", client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("wrong")}},
			"com.example.invalid_ticket", "wrong ticket for alice"},
		{"wrong ticket async", "async", client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("wrong")}},
			"com.example.invalid_ticket", "wrong ticket"},
		{"unknown wampcra user", "ws", client.Config{Realm: "realm1", AuthID: "mallory", Auth: []client.Authenticator{client.WampCRA("s3cr3t")}},
			"com.example.no_such_user", "no user mallory"},
		{"wrong wampcra secret", "ws", client.Config{Realm: "realm1", AuthID: "carol", Auth: []client.Authenticator{client.WampCRA("guess")}},
			wamp.ErrAuthenticationDenied, ""},
		{"plain exception", "ws", client.Config{Realm: "realm1", AuthID: "boom", Auth: []client.Authenticator{client.Ticket("x")}},
			wamp.ErrAuthenticationFailed, "dynamic authenticator failed: ValueError: boom for boom"},
		{"timeout", "ws", client.Config{Realm: "realm1", AuthID: "slow", Auth: []client.Authenticator{client.Ticket("x")}},
			wamp.ErrAuthenticationFailed, "did not answer within 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, log := startFuncAuth(t)
			_, err := joinWS(t, base+tt.path, websocket.DialOptions{}, tt.cfg)
			if wampURIOf(err) != tt.want || !strings.Contains(err.Error(), tt.message) {
				t.Errorf("join: %v, want ABORT %s saying %q", err, tt.want, tt.message)
			}
			switch tt.name {
			case "plain exception":
				log.wait(t, 1, `msg="function authenticator failed" worker=workers[0]`, `err="ValueError: boom for boom"`,
					`raise ValueError(\"boom for %s\" % authid)`)
			case "timeout":
				mustWS(t, base+"ws", websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "alice",
					Auth: []client.Authenticator{client.Ticket("secret1")}})
			}
		})
	}
}

// TestFunctionAuthenticatorStartErrors: a factory that does not import,
// raises or returns no function fails the start at its create, naming the
// interpreter, before the listeners open.
func TestFunctionAuthenticatorStartErrors(t *testing.T) {
	tests := []struct {
		name, create, want string
	}{
		{"module missing", "nomodule.create",
			`workers[0].transports[0].paths.ws.auth.ticket.create: node: function authenticator "nomodule.create" (/usr/bin/python3): cannot import module 'nomodule': ModuleNotFoundError: No module named 'nomodule' (Python module search path: `},
		{"name missing", "pyauth.create_nothing",
			`workers[0].transports[0].paths.ws.auth.ticket.create: node: function authenticator "pyauth.create_nothing" (/usr/bin/python3): module 'pyauth' has no 'create_nothing'`},
		{"factory raises", "pyauth.create_raises",
			`workers[0].transports[0].paths.ws.auth.ticket.create: node: function authenticator "pyauth.create_raises" (/usr/bin/python3): pyauth.create_raises(config, controller) raised RuntimeError: the user database is down (`},
		{"factory returns no function", "pyauth.create_not_a_function",
			`workers[0].transports[0].paths.ws.auth.ticket.create: node: function authenticator "pyauth.create_not_a_function" (/usr/bin/python3): pyauth.create_not_a_function(config, controller) returned int, not a function`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cbdir := funcAuthProject(t)
			n, _ := newPy(t, cbdir, pyDoc(funcAuthRouter(`"ws": {"type": "websocket", "auth": {"ticket": {"type": "function", "create": "`+tt.create+`"}}}`)))
			err := n.Start(testCtx(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start: %v\nwant %s", err, tt.want)
			}
			if len(n.Listeners()) != 0 {
				t.Errorf("listeners %v opened before the authenticators were made", n.Listeners())
			}
		})
	}
}

// TestDynamicAuthenticatorInPython: a dynamic authenticator written as a
// Python router component (run by the worker's runner, joined as its
// role) decides the logins, as in Crossbar's examples; it may send the
// session to another realm.
func TestDynamicAuthenticatorInPython(t *testing.T) {
	cbdir := funcAuthProject(t)
	doc := pyDoc(`{"type": "router", "options": {"python": "` + python + `", "pythonpath": [".."]},
		"realms": [{"name": "realm1", "roles": [{"name": "user", "allow-by-default": true}]},
			{"name": "auth", "roles": [{"name": "authenticator", "permissions": [
				{"uri": "com.example.authenticate", "allow": {"register": true}}]}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "auth": {"ticket": {"type": "dynamic", "authenticator": "com.example.authenticate",
				"authenticator-realm": "auth"}}}}}],
		"components": [{"type": "class", "classname": "pyauth.DynamicAuthenticator", "realm": "auth", "role": "authenticator"}]}`)
	n, _ := startPy(t, cbdir, doc)
	url := "ws://" + address(t, n, web0) + "/ws"
	s := mustWS(t, url, websocket.DialOptions{}, client.Config{Realm: "lobby", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret1")}})
	d := s.Details()
	extra, _ := wamp.AsDict(d["authextra"])
	if d["realm"] != "realm1" || d["authid"] != "alice" || d["authrole"] != "user" || d["authprovider"] != auth.ProviderDynamic ||
		extra["by"] != "python" || extra["asked_for"] != "lobby" {
		t.Errorf("WELCOME details %v", d)
	}
	_, err := joinWS(t, url, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("wrong")}})
	if wampURIOf(err) != "com.example.invalid_ticket" || !strings.Contains(err.Error(), "wrong ticket for alice") {
		t.Errorf("join with a wrong ticket: %v", err)
	}
}
