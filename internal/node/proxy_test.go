package node

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// backendDoc is node B: a router worker with realm2, whose RawSocket
// transport admits the proxy of the node with key proxyPub
// (cryptosign-proxy) and anonymous clients straight (the test's own
// callee).
func backendDoc(proxyPub string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm2", "roles": [` + linkRole("anonymous") + `]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"auth": {"anonymous": {"type": "static"},
				"cryptosign-proxy": {"type": "static", "principals": {
					"proxy_node": {"realm": "realm2", "role": "anonymous", "authorized_keys": ["` + proxyPub + `"]}}}}}]}]}`
}

// proxyNodeDoc is node A: a router worker with realm1 on a Unix socket
// (anonymous-proxy), and a proxy worker in front of it and of node B at
// addrB (cryptosign-proxy over TCP), whose web transport authenticates
// clients itself (ticket, or anonymous).
func proxyNodeDoc(addrB string) string {
	host, port, _ := net.SplitHostPort(addrB)
	return fmt.Sprintf(`{"version": 2, "workers": [
		{"type": "router",
		 "realms": [{"name": "realm1", "roles": [%s, %s]}],
		 "transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"},
			"serializers": ["cbor"], "auth": {"anonymous-proxy": {"type": "static"}}}]},
		{"type": "proxy",
		 "connections": {
			"local": {"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"},
				"url": "rs://localhost", "serializer": "cbor"}},
			"remote": {"transport": {"type": "rawsocket", "endpoint": {"type": "tcp", "host": %q, "port": %s},
				"url": "rs://%s", "serializer": "msgpack"}, "auth": {"cryptosign-proxy": {"type": "static"}}}},
		 "routes": {"realm1": {"anonymous": "local", "user": ["local"]}, "realm2": {"anonymous": "remote"}},
		 "transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"/": {"type": "nodeinfo"},
				"ws": {"type": "websocket", "serializers": ["json", "cbor"], "auth": {
					"anonymous": {"type": "static", "role": "anonymous"},
					"ticket": {"type": "static", "principals": {"alice": {"ticket": "secret", "role": "user"}}}}},
				"dyn": {"type": "websocket", "auth": {"ticket": {"type": "dynamic", "authenticator": "com.example.authenticate"}}},
				"call": {"type": "caller", "realm": "realm1", "role": "anonymous"}}}]}]}`,
		linkRole("anonymous"), linkRole("user"), host, port, addrB)
}

// proxyPair is node B, then node A, whose key B's transport admits.
type proxyPair struct {
	a, b  *Node
	addrB string
	ws    string // the proxy's WebSocket URL
}

func startProxyPair(t *testing.T) *proxyPair {
	t.Helper()
	dirA := t.TempDir()
	p := &proxyPair{b: start(t, parse(t, backendDoc(nodePub(t, dirA)), nil), t.TempDir())}
	p.addrB = address(t, p.b, "workers[0].transports[0]")
	p.a = start(t, parse(t, proxyNodeDoc(p.addrB), nil), dirA)
	p.ws = "ws://" + address(t, p.a, "workers[1].transports[0]") + "/ws"
	return p
}

var alice = client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret")}}

// whoami registers proc on s, answering with the caller's authid and
// authrole as the router disclosed them.
func whoami(t *testing.T, s *client.Session, proc wamp.URI) {
	t.Helper()
	_, err := s.Register(testCtx(t), proc, func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{inv.Details["caller_authid"], inv.Details["caller_authrole"]}}, nil
	}, nil)
	if err != nil {
		t.Fatalf("register %s: %v", proc, err)
	}
}

// wantCaller calls proc and checks who the backend says called.
func wantCaller(t *testing.T, s *client.Session, proc wamp.URI, authid, authrole string) {
	t.Helper()
	res, err := s.Call(testCtx(t), proc, nil, nil)
	if err != nil {
		t.Fatalf("call %s: %v", proc, err)
	}
	if len(res.Args) != 2 || res.Args[0] != authid || res.Args[1] != authrole {
		t.Fatalf("the backend saw the caller as %v, want [%s %s]", res.Args, authid, authrole)
	}
}

func TestProxyWorkerOverUnixSocket(t *testing.T) {
	p := startProxyPair(t)
	callee := mustWS(t, p.ws, websocket.DialOptions{}, alice)
	caller := mustWS(t, p.ws, websocket.DialOptions{Subprotocols: []string{"wamp.2.cbor"}}, alice)
	if d := caller.Details(); d["authid"] != "alice" || d["authrole"] != "user" || d["authmethod"] != "ticket" || d["realm"] != "realm1" {
		t.Fatalf("WELCOME details = %v, want alice/user on realm1 by ticket", d)
	}
	whoami(t, callee, "com.example.whoami")
	wantCaller(t, caller, "com.example.whoami", "alice", "user")
	// The meta API answers from the backend router: the session is the
	// backend's, as the client sees it.
	res, err := caller.Call(testCtx(t), "wamp.session.get", wamp.List{uint64(caller.ID())}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := wamp.AsDict(firstArg(res)); d["authid"] != "alice" || d["authmethod"] != "anonymous-proxy" {
		t.Fatalf("wamp.session.get = %v, want alice logged in by anonymous-proxy", d)
	}
	events := make(chan *client.Event, 1)
	if _, err := callee.Subscribe(testCtx(t), "com.example.news", func(ev *client.Event) { events <- ev }, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := caller.Publish(testCtx(t), "com.example.news", wamp.List{"hi"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; len(ev.Args) != 1 || ev.Args[0] != "hi" {
		t.Fatalf("event = %+v", ev)
	}
}

func TestProxyWorkerOverTCPWithCryptosign(t *testing.T) {
	p := startProxyPair(t)
	direct := mustRaw(t, "tcp", p.addrB, client.Config{Realm: "realm2"})
	whoami(t, direct, "com.example.whoami")
	s := mustWS(t, p.ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	anon, _ := s.Details()["authid"].(string)
	if anon == "" {
		t.Fatalf("WELCOME details = %v, want an anonymous authid", s.Details())
	}
	wantCaller(t, s, "com.example.whoami", anon, "anonymous")
}

func TestProxyWorkerRefusesWhatNoRouteTakes(t *testing.T) {
	p := startProxyPair(t)
	tests := []struct {
		name string
		cfg  client.Config
		want wamp.URI
	}{
		{"realm without a route", client.Config{Realm: "realm3"}, wamp.ErrNoSuchRealm},
		{"role without a route", client.Config{Realm: "realm2", AuthID: "alice", Auth: alice.Auth}, wamp.ErrNoSuchRole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := joinWS(t, p.ws, websocket.DialOptions{}, tt.cfg)
			if got := wampURIOf(err); got != tt.want {
				t.Fatalf("join: %v, want ABORT %s", err, tt.want)
			}
		})
	}
}

func TestProxyWorkerBackendGoneEndsTheSession(t *testing.T) {
	p := startProxyPair(t)
	s := mustWS(t, p.ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	if err := p.b.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	if got := wampURIOf(s.Err()); got != wamp.ErrSystemShutdown && got != wamp.ErrCloseNormal {
		t.Fatalf("session ended with %v, want the backend's GOODBYE", s.Err())
	}
	_, err := joinWS(t, p.ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	if got := wampURIOf(err); got != wamp.ErrAuthenticationFailed {
		t.Fatalf("join with the backend down: %v, want ABORT %s", err, wamp.ErrAuthenticationFailed)
	}
}

func TestProxyWorkerServesBridgeServicesThroughTheBackend(t *testing.T) {
	p := startProxyPair(t)
	waitProxySessions(t, p.a)
	callee := mustWS(t, p.ws, websocket.DialOptions{}, alice)
	whoami(t, callee, "com.example.whoami")
	base := "http://" + address(t, p.a, "workers[1].transports[0]")
	code, got := post(t, base+"/call", `{"procedure": "com.example.whoami"}`, nil)
	if code != 200 || !strings.Contains(got, `"anonymous"]`) {
		t.Fatalf("POST /call = %d %s, want the caller with role anonymous", code, got)
	}
}

// waitProxySessions waits until the proxy workers' own sessions of n have
// joined: in the background, once the backend listens.
func waitProxySessions(t *testing.T, n *Node) {
	t.Helper()
	for _, s := range n.sessions {
		if s.background {
			select {
			case <-s.joined:
			case <-testCtx(t).Done():
				t.Fatalf("%s did not join", s.path)
			}
		}
	}
}

func TestProxyWorkerAsksADynamicAuthenticatorThroughTheBackend(t *testing.T) {
	p := startProxyPair(t)
	waitProxySessions(t, p.a)
	auth := mustWS(t, p.ws, websocket.DialOptions{}, alice)
	_, err := auth.Register(testCtx(t), "com.example.authenticate", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{wamp.Dict{"role": "user", "extra": wamp.Dict{"greeting": "hi " + inv.Args[1].(string)}}}}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dyn := strings.TrimSuffix(p.ws, "/ws") + "/dyn"
	bob := mustWS(t, dyn, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "bob", Auth: []client.Authenticator{client.Ticket("any")}})
	if d := bob.Details(); d["authid"] != "bob" || d["authrole"] != "user" || d["authprovider"] != "dynamic" {
		t.Fatalf("WELCOME details = %v, want bob/user by the dynamic authenticator", d)
	}
	whoami(t, auth, "com.example.whoami")
	wantCaller(t, bob, "com.example.whoami", "bob", "user")
}

// TestProxyWorkerFunctionAuthenticator: a function authenticator
// (Python, in the proxy worker's runner) on a proxy's transport decides
// the logins there, and the sessions it admits reach the backend as
// themselves. A refusal is the function's ABORT, logged as "join
// refused" under the proxy worker and counted in the node's Stats, as the
// session that joined is.
func TestProxyWorkerFunctionAuthenticator(t *testing.T) {
	cbdir := funcAuthProject(t)
	doc := pyDoc(`{"type": "router",
		"realms": [{"name": "realm1", "roles": [`+linkRole("user")+`]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"},
			"auth": {"anonymous-proxy": {"type": "static"}}}]}`,
		`{"type": "proxy", "options": {"python": "`+python+`", "pythonpath": [".."]},
		"connections": {"local": {"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"},
			"url": "rs://localhost", "serializer": "cbor"}}},
		"routes": {"realm1": {"user": "local"}},
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"ws": {"type": "websocket", "auth": {"ticket": {"type": "function", "create": "pyauth.create_ticket",
				"config": {"tickets": {"alice": "secret1"}, "tag": "via-proxy"}}}}}}]}`)
	log, logger := newWatchedLogger(t)
	n, err := New(parse(t, doc, nil), Options{Dir: cbdir, Logger: logger})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	startNode(t, n)
	ws := "ws://" + address(t, n, "workers[1].transports[0]") + "/ws"

	s := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret1")}})
	d := s.Details()
	extra, _ := wamp.AsDict(d["authextra"])
	if d["authid"] != "alice" || d["authrole"] != "user" || d["authprovider"] != auth.ProviderFunction || extra["tag"] != "via-proxy" {
		t.Fatalf("WELCOME details = %v, want alice/user by the function", d)
	}
	whoami(t, s, "com.example.whoami")
	wantCaller(t, s, "com.example.whoami", "alice", "user")

	_, err = joinWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("guess-123")}})
	if wampURIOf(err) != "com.example.invalid_ticket" || !strings.Contains(err.Error(), "wrong ticket for alice") {
		t.Fatalf("join with a wrong ticket: %v, want the function's ABORT", err)
	}
	log.wait(t, 1, `msg="join refused"`, `worker=workers[1]`, `authid=alice`, `authmethod=ticket`, `error=com.example.invalid_ticket`)
	if strings.Contains(log.String(), "guess-123") {
		t.Errorf("the log holds the ticket:\n%s", log)
	}
	st := n.Stats()
	if len(st.Proxies) != 1 || st.Proxies[0].Worker != "workers[1]" {
		t.Fatalf("Stats().Proxies = %+v, want workers[1]'s", st.Proxies)
	}
	key := proxy.RealmMethod{Realm: "realm1", AuthMethod: "ticket"}
	if p := st.Proxies[0]; p.Sessions["realm1"] != 1 || p.Joins[key] != 1 || p.AuthFailures[key] != 1 {
		t.Errorf("proxy stats = %+v, want one session and one refusal on realm1 by ticket", p.Stats)
	}
}
