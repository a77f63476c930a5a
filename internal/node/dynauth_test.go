package node

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// dynamicDoc is a node whose WebSocket path "ws" authenticates every
// method with com.example.authenticate, registered on realm "auth" by a
// component of role "authenticator", and whose realm1 role "app" is
// authorized by com.example.authorize (registered there by role
// "authorizer"), role "selfish" by com.example.selfish. The components log
// in with static tickets on path "svc". Path "ws-none" asks a procedure
// nobody registers (on the client's realm), "ws-role" asks on the client's
// realm as a role only realm "auth" has, "ws-slow" asks a procedure that
// never answers within its 300 ms.
const dynamicDoc = `{"version": 2, "workers": [{"type": "router",
	"realms": [
		{"name": "realm1", "roles": [
			{"name": "user", "permissions": [{"uri": "", "match": "prefix", "allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]},
			{"name": "app", "authorizer": "com.example.authorize"},
			{"name": "selfish", "authorizer": "com.example.selfish", "authorizer-timeout": 300},
			{"name": "authorizer", "permissions": [{"uri": "com.example.", "match": "prefix", "allow": {"register": true}}]}]},
		{"name": "realm2", "roles": [{"name": "user", "allow-by-default": true}]},
		{"name": "auth", "roles": [{"name": "authenticator", "permissions": [
			{"uri": "com.example.", "match": "prefix", "allow": {"register": true, "call": true}}]}]}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
		"ws": {"type": "websocket", "auth": {
			"ticket": {"type": "dynamic", "authenticator": "com.example.authenticate", "authenticator-realm": "auth", "authenticator-role": "authenticator"},
			"wampcra": {"type": "dynamic", "authenticator": "com.example.authenticate", "authenticator-realm": "auth"},
			"cryptosign": {"type": "dynamic", "authenticator": "com.example.authenticate", "authenticator-realm": "auth"},
			"anonymous": {"type": "dynamic", "authenticator": "com.example.authenticate", "authenticator-realm": "auth", "authid": "visitor"}}},
		"ws-none": {"type": "websocket", "auth": {
			"ticket": {"type": "dynamic", "authenticator": "com.example.nobody"}}},
		"ws-role": {"type": "websocket", "auth": {
			"ticket": {"type": "dynamic", "authenticator": "com.example.authenticate", "authenticator-role": "authenticator"}}},
		"ws-slow": {"type": "websocket", "auth": {
			"ticket": {"type": "dynamic", "authenticator": "com.example.slow", "authenticator-realm": "auth", "authenticator-timeout": 300}}},
		"svc": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {
			"authenticator": {"ticket": "svc-secret", "role": "authenticator"},
			"authorizer": {"ticket": "svc-secret", "role": "authorizer"}}}}}}}]}]}`

// deviceKey is the cryptosign key the test authenticator knows for "dave".
func deviceKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("junction dynauth test: dave"))
	return ed25519.NewKeyFromSeed(seed[:])
}

// authCall is one call of the test authenticator.
type authCall struct {
	realm   any
	authid  any
	details wamp.Dict
}

// testAuthenticator is a dynamic authenticator written as a WAMP
// component, as users write them for Crossbar. It records its calls.
type testAuthenticator struct {
	mu    sync.Mutex
	calls []authCall
}

// authenticate answers by authmethod and authid: alice (ticket secret1)
// is a user; bob (ticket) is sent to realm2; carol (ticket) gets extra;
// refuse is refused with an application error; app1 and app2 are "app",
// greedy "selfish"; wampcra knows carol, cryptosign dave; anonymous
// sessions are users.
func (a *testAuthenticator) authenticate(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	details, _ := wamp.AsDict(inv.Args[2])
	a.mu.Lock()
	a.calls = append(a.calls, authCall{inv.Args[0], inv.Args[1], details})
	a.mu.Unlock()
	authid, _ := inv.Args[1].(string)
	var res any
	switch details["authmethod"] {
	case "ticket":
		res = ticketAnswer(authid, details["ticket"])
	case "wampcra":
		res = wamp.Dict{"secret": "s3cr3t", "role": "user", "salt": "salt123", "iterations": 100, "keylen": 32}
	case "cryptosign":
		res = wamp.Dict{"pubkey": hex.EncodeToString(deviceKey().Public().(ed25519.PublicKey)), "role": "user"}
	case "anonymous":
		res = "user"
	}
	if res == nil {
		return nil, &wamp.RequestError{URI: "com.example.invalid_ticket", Args: wamp.List{"wrong ticket for " + authid}}
	}
	return &client.Result{Args: wamp.List{res}}, nil
}

func ticketAnswer(authid string, ticket any) any {
	if ticket != "secret1" {
		return nil
	}
	switch authid {
	case "alice":
		return "user"
	case "bob":
		return wamp.Dict{"role": "user", "realm": "realm2"}
	case "carol":
		return wamp.Dict{"role": "user", "authid": "carol@example.com", "extra": wamp.Dict{"plan": "gold"}}
	case "app1", "app2":
		return "app"
	case "greedy":
		return "selfish"
	}
	return nil
}

func (a *testAuthenticator) lastCall() authCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[len(a.calls)-1]
}

// dynamicNode starts dynamicDoc with the test authenticator registered;
// it returns the node's base WebSocket URL ("ws://ADDR/") and the
// authenticator.
func dynamicNode(t *testing.T) (string, *testAuthenticator) {
	t.Helper()
	n := start(t, parse(t, dynamicDoc, nil), t.TempDir())
	base := "ws://" + address(t, n, web0) + "/"
	a := &testAuthenticator{}
	svc := serviceSession(t, base, "auth", "authenticator")
	if _, err := svc.Register(testCtx(t), "com.example.authenticate", a.authenticate, nil); err != nil {
		t.Fatal(err)
	}
	never := func(ctx context.Context, _ *client.Invocation) (*client.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if _, err := svc.Register(testCtx(t), "com.example.slow", never, nil); err != nil {
		t.Fatal(err)
	}
	return base, a
}

// serviceSession joins realm over path "svc" with the static ticket of authid.
func serviceSession(t *testing.T, base string, realm wamp.URI, authid string) *client.Session {
	t.Helper()
	return mustWS(t, base+"svc", websocket.DialOptions{}, client.Config{Realm: realm, AuthID: authid,
		Auth: []client.Authenticator{client.Ticket("svc-secret")}})
}

// TestDynamicAuthentication: each method asks the WAMP authenticator, as
// Crossbar does, and gives the session what it answered.
func TestDynamicAuthentication(t *testing.T) {
	base, a := dynamicNode(t)
	ws := base + "ws"
	tests := []struct {
		name                  string
		cfg                   client.Config
		realm, authid, role   string
		extra                 wamp.Dict
		askedAuthid, askedFor any // what the authenticator was asked
	}{
		{"ticket", client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret1")}},
			"realm1", "alice", "user", nil, "alice", "realm1"},
		{"ticket redirect", client.Config{Realm: "realm1", AuthID: "bob", Auth: []client.Authenticator{client.Ticket("secret1")}},
			"realm2", "bob", "user", nil, "bob", "realm1"},
		{"ticket extra", client.Config{Realm: "realm1", AuthID: "carol", Auth: []client.Authenticator{client.Ticket("secret1")}},
			"realm1", "carol@example.com", "user", wamp.Dict{"plan": "gold"}, "carol", "realm1"},
		{"wampcra salted", client.Config{Realm: "realm1", AuthID: "carol", Auth: []client.Authenticator{client.WampCRA("s3cr3t")}},
			"realm1", "carol", "user", nil, "carol", "realm1"},
		{"cryptosign", client.Config{Realm: "realm1", AuthID: "dave", Auth: []client.Authenticator{client.Cryptosign(deviceKey())}},
			"realm1", "dave", "user", nil, "dave", "realm1"},
		{"anonymous", client.Config{Realm: "realm1", AuthID: "alice"},
			"realm1", "visitor", "user", nil, "visitor", "realm1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustWS(t, ws, websocket.DialOptions{Header: map[string][]string{"X-Test": {tt.name}}}, tt.cfg)
			d := s.Details()
			extra, _ := wamp.AsDict(d["authextra"])
			if d["realm"] != tt.realm || d["authid"] != tt.authid || d["authrole"] != tt.role || d["authprovider"] != auth.ProviderDynamic ||
				tt.extra != nil && extra["plan"] != tt.extra["plan"] {
				t.Errorf("WELCOME details %v, want realm %s, authid %s, role %s, extra %v", d, tt.realm, tt.authid, tt.role, tt.extra)
			}
			c := a.lastCall()
			transport, _ := wamp.AsDict(c.details["transport"])
			headers, _ := wamp.AsDict(transport["http_headers_received"])
			session, _ := wamp.AsInt(c.details["session"])
			if c.realm != tt.askedFor || c.authid != tt.askedAuthid || wamp.ID(session) != s.ID() ||
				transport["type"] != "websocket" || transport["protocol"] != "wamp.2.cbor" || headers["x-test"] != tt.name {
				t.Errorf("authenticator asked (%v, %v, %v)", c.realm, c.authid, c.details)
			}
		})
	}
}

// TestDynamicAuthenticationRefused: the authenticator's error is the
// ABORT; no authenticator, or none in time, is a clear ABORT too.
func TestDynamicAuthenticationRefused(t *testing.T) {
	base, _ := dynamicNode(t)
	tests := []struct {
		name, path string
		realm      wamp.URI
		authid     string
		want       wamp.URI
		message    string
	}{
		{"application error", "ws", "realm1", "mallory", "com.example.invalid_ticket", "wrong ticket for mallory"},
		{"no authenticator", "ws-none", "realm1", "alice", wamp.ErrNoSuchProcedure, "com.example.nobody"},
		{"no such realm", "ws-none", "nowhere", "alice", wamp.ErrNoSuchRealm, `no realm "nowhere"`},
		{"role not on the realm", "ws-role", "realm1", "alice", wamp.ErrNoSuchRole, `role "authenticator"`},
		{"too slow", "ws-slow", "realm1", "alice", wamp.ErrAuthenticationFailed, "did not answer within 300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := joinWS(t, base+tt.path, websocket.DialOptions{}, client.Config{Realm: tt.realm, AuthID: tt.authid,
				Auth: []client.Authenticator{client.Ticket("secret1")}})
			if wampURIOf(err) != tt.want || !strings.Contains(err.Error(), tt.message) {
				t.Errorf("join: %v, want ABORT %s saying %q", err, tt.want, tt.message)
			}
		})
	}
}

// authzCall is one call of the test authorizer.
type authzCall struct {
	session wamp.Dict
	uri     string
	action  string
	options wamp.Dict
}

// testAuthorizer allows what is under com.example.app. (with "cache":
// true for com.example.app.cached), and refuses the rest.
type testAuthorizer struct {
	mu    sync.Mutex
	calls []authzCall
}

func (a *testAuthorizer) authorize(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	session, _ := wamp.AsDict(inv.Args[0])
	uri, _ := inv.Args[1].(string)
	action, _ := inv.Args[2].(string)
	options, _ := wamp.AsDict(inv.Args[3])
	a.mu.Lock()
	a.calls = append(a.calls, authzCall{session, uri, action, options})
	a.mu.Unlock()
	var res any = strings.HasPrefix(uri, "com.example.app.")
	if uri == "com.example.app.cached" {
		res = wamp.Dict{"allow": true, "cache": true}
	}
	return &client.Result{Args: wamp.List{res}}, nil
}

// count is how many times session asked about uri.
func (a *testAuthorizer) count(session wamp.ID, uri string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range a.calls {
		if id, _ := wamp.AsInt(c.session["session"]); wamp.ID(id) == session && c.uri == uri {
			n++
		}
	}
	return n
}

// TestDynamicAuthorizer: a role's authorizer decides each action of its
// sessions; "cache": true spares the question for the rest of that
// session only.
func TestDynamicAuthorizer(t *testing.T) {
	base, _ := dynamicNode(t)
	a := &testAuthorizer{}
	authz := serviceSession(t, base, "realm1", "authorizer")
	if _, err := authz.Register(testCtx(t), "com.example.authorize", a.authorize, nil); err != nil {
		t.Fatal(err)
	}
	app := func(authid string) *client.Session {
		return mustWS(t, base+"ws", websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: authid,
			Auth: []client.Authenticator{client.Ticket("secret1")}})
	}
	app1, app2 := app("app1"), app("app2")
	echo(t, app1, "com.example.app.echo")
	callEcho(t, app1, "com.example.app.echo")
	if _, err := app1.Subscribe(testCtx(t), "com.example.secret", func(*client.Event) {}, nil); wampURIOf(err) != wamp.ErrNotAuthorized {
		t.Errorf("subscribe refused by the authorizer: %v, want %s", err, wamp.ErrNotAuthorized)
	}
	ack := wamp.Dict{"acknowledge": true}
	for _, s := range []*client.Session{app1, app1, app2, app2} {
		if _, err := s.Publish(testCtx(t), "com.example.app.cached", nil, nil, ack); err != nil {
			t.Fatalf("publish: %v", err)
		}
	}
	if n1, n2 := a.count(app1.ID(), "com.example.app.cached"), a.count(app2.ID(), "com.example.app.cached"); n1 != 1 || n2 != 1 {
		t.Errorf("authorizer asked %d and %d times about the cached URI, want once per session", n1, n2)
	}
	if n := a.count(app1.ID(), "com.example.app.echo"); n != 2 {
		t.Errorf("authorizer asked %d times about com.example.app.echo, want 2 (register, call; not cached)", n)
	}
	c := a.calls[len(a.calls)-1]
	transport, _ := wamp.AsDict(c.session["transport"])
	if c.session["authid"] != "app2" || c.session["authrole"] != "app" || c.session["authmethod"] != "ticket" ||
		transport["type"] != "websocket" || c.action != "publish" || c.options["acknowledge"] != true {
		t.Errorf("authorizer asked %+v", c)
	}
}

// TestSelfAuthorizingSession: a session that is its own authorizer cannot
// answer while it waits for the answer: the authorization times out and
// is refused, and the session goes on.
func TestSelfAuthorizingSession(t *testing.T) {
	base, _ := dynamicNode(t)
	authz := serviceSession(t, base, "realm1", "authorizer")
	allow := func(context.Context, *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{true}}, nil
	}
	last := wamp.Dict{"invoke": "last"}
	if _, err := authz.Register(testCtx(t), "com.example.selfish", allow, last); err != nil {
		t.Fatal(err)
	}
	greedy := mustWS(t, base+"ws", websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "greedy",
		Auth: []client.Authenticator{client.Ticket("secret1")}})
	if _, err := greedy.Register(testCtx(t), "com.example.selfish", allow, last); err != nil {
		t.Fatalf("register, authorized by the other callee: %v", err)
	}
	for range 2 {
		_, err := greedy.Publish(testCtx(t), "com.example.topic", nil, nil, wamp.Dict{"acknowledge": true})
		if wampURIOf(err) != wamp.ErrAuthorizationFailed {
			t.Fatalf("publish authorized by itself: %v, want %s", err, wamp.ErrAuthorizationFailed)
		}
	}
	if err := greedy.Leave(testCtx(t)); err != nil {
		t.Errorf("leave: %v", err)
	}
}

// TestDynamicTicketAutobahn: autobahn-python, a client we did not write,
// logs in with a ticket that a Go authenticator checks, and runs the
// interop scenario.
func TestDynamicTicketAutobahn(t *testing.T) {
	base, a := dynamicNode(t)
	cmd := exec.CommandContext(testCtx(t), "/usr/bin/python3", "../../test/interop/py/scenario.py",
		"--url", base+"ws", "--realm", "realm1", "--serializer", "msgpack",
		"--authmethod", "ticket", "--authid", "alice", "--secret", "secret1", "--timeout", "8")
	out, err := cmd.Output()
	var res struct {
		OK       bool   `json:"ok"`
		AuthID   string `json:"authid"`
		AuthRole string `json:"authrole"`
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || jerr != nil || !res.OK {
		t.Fatalf("scenario (needs Debian's python3-autobahn: scripts/install-test-deps.sh): %v %v\nstdout: %s\nstderr: %s",
			err, jerr, out, stderrOf(err))
	}
	if res.AuthID != "alice" || res.AuthRole != "user" {
		t.Errorf("autobahn joined as %s/%s, want alice/user", res.AuthID, res.AuthRole)
	}
	if c := a.lastCall(); c.details["ticket"] != "secret1" || c.details["authmethod"] != "ticket" {
		t.Errorf("authenticator asked %v", c.details)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestClassifyCallError: an ERROR the router sent because it could not
// reach the authenticator or authorizer (the cluster's included) says
// it is unavailable; the callee's own ERROR is its refusal.
func TestClassifyCallError(t *testing.T) {
	for _, tc := range []struct {
		uri         wamp.URI
		unavailable bool
	}{
		{wamp.ErrNoSuchProcedure, true},
		{wamp.ErrTimeout, true},
		{wamp.ErrClusterUnavailable, true},
		{wamp.ErrClusterIsolated, true},
		{wamp.ErrNotAuthorized, false},
		{"com.example.denied", false},
	} {
		err := classifyCallError(wamp.Errorf(tc.uri, "x"))
		if got := errors.Is(err, auth.ErrUnavailable); got != tc.unavailable {
			t.Errorf("%s: unavailable %v, want %v", tc.uri, got, tc.unavailable)
		}
	}
}
