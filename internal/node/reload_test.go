package node

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/longpoll"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// reloadDoc is a node with realm1 (role anonymous allowed everything
// under the prefix ${PREFIX}, and the session meta API), realm2 (anonymous allowed everything), the
// realms of ${MORE}, and a web transport with the paths of ${PATHS} and
// WAMP at /ws with the ticket principal joe (ticket ${TICKET}, role
// anonymous).
const reloadDoc = `{"version": 2, "workers": [{"type": "router",
	"realms": [
		{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [{"uri": "${PREFIX}", "match": "prefix",
			"allow": {"call": true, "register": true, "publish": true, "subscribe": true}},
			{"uri": "wamp.", "match": "prefix", "allow": {"call": true}}]}]},
		{"name": "realm2", "roles": [{"name": "anonymous", "allow-by-default": true}]}${MORE}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": ${PORT}},
		"paths": {${PATHS}"ws": {"type": "websocket", "auth": {
			"anonymous": {"type": "static", "role": "anonymous"},
			"ticket": {"type": "static", "principals": {"joe": {"ticket": "${TICKET}", "role": "anonymous"}}}}}}}]}]}`

// reloadConfig is doc (reloadDoc or a variant) with its variables
// replaced: their defaults, but for the name, value pairs of changes.
func reloadConfig(t *testing.T, doc string, changes ...string) *config.Config {
	t.Helper()
	vars := map[string]string{"PREFIX": "com.", "MORE": "", "TICKET": "joe-ticket", "PORT": "0", "PATHS": ""}
	for i := 0; i+1 < len(changes); i += 2 {
		vars[changes[i]] = changes[i+1]
	}
	var pairs []string
	for k, v := range vars {
		pairs = append(pairs, "${"+k+"}", v)
	}
	return parse(t, strings.NewReplacer(pairs...).Replace(doc), nil)
}

// startReload starts reloadDoc with its defaults; it returns the node and
// its WebSocket URL.
func startReload(t *testing.T) (*Node, string) {
	t.Helper()
	n := start(t, reloadConfig(t, reloadDoc), t.TempDir())
	return n, "ws://" + address(t, n, web0) + "/ws"
}

// reload applies reloadDoc with the variables changed, failing the test on
// an error.
func reload(t *testing.T, n *Node, changes ...string) ReloadReport {
	t.Helper()
	rep, err := n.Reload(testCtx(t), reloadConfig(t, reloadDoc, changes...))
	if err != nil {
		t.Fatalf("Reload: %v", err)
	}
	return rep
}

// paths lists the paths of changes.
func paths(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

// alive checks that s still routes: it calls the meta API.
func alive(t *testing.T, s *client.Session) {
	t.Helper()
	if _, err := s.Call(testCtx(t), "wamp.session.count", nil, nil); err != nil {
		t.Fatalf("session %d after the reload: %v", s.ID(), err)
	}
}

// endedWith waits for the end of s and checks the GOODBYE reason in its
// error.
func endedWith(t *testing.T, s *client.Session, reason wamp.URI) {
	t.Helper()
	select {
	case <-s.Done():
	case <-testCtx(t).Done():
		t.Fatalf("session %d still open, want GOODBYE %s", s.ID(), reason)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), string(reason)) {
		t.Errorf("session %d ended with %v, want GOODBYE %s", s.ID(), err, reason)
	}
}

// TestReloadUnchanged: the same config again applies nothing, needs no
// restart and leaves the sessions alone; a changed endpoint is reported
// as needing a restart and the rest still applies.
func TestReloadUnchanged(t *testing.T) {
	n, ws := startReload(t)
	s := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1"})
	if rep := reload(t, n); len(rep.Applied)+len(rep.Restart)+len(rep.Failed) != 0 {
		t.Errorf("unchanged config: %+v, want nothing", rep)
	}
	rep := reload(t, n, "PORT", "1", "MORE", `, {"name": "realm3", "roles": [{"name": "anonymous", "allow-by-default": true}]}`)
	if got := paths(rep.Restart); !slices.Equal(got, []string{web0}) {
		t.Errorf("needs a restart: %v, want [%s]", got, web0)
	}
	if got := paths(rep.Applied); !slices.Equal(got, []string{"workers[0].realms[2]"}) {
		t.Errorf("applied: %v, want realm3 added", got)
	}
	alive(t, s)
	mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm3"})
}

// TestReloadInvalid: a config that does not build is refused with New's
// errors and the node keeps running the old one; Reload needs a running
// node.
func TestReloadInvalid(t *testing.T) {
	cfg := reloadConfig(t, reloadDoc)
	idle, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := idle.Reload(testCtx(t), cfg); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Reload before Start: %v, want ErrNotRunning", err)
	}
	n, ws := startReload(t)
	s := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	bad := reloadConfig(t, strings.Replace(reloadDoc, `"paths": {`, `"paths": {"/": {"type": "static", "directory": "/dev/null/web"}, `, 1),
		"MORE", `, {"name": "realm3", "roles": [{"name": "anonymous", "allow-by-default": true}]}`)
	_, err = n.Reload(testCtx(t), bad)
	var es config.Errors
	if !errors.As(err, &es) || !strings.Contains(err.Error(), `paths["/"]`) {
		t.Fatalf("Reload of a config that does not build: %v, want its path's error", err)
	}
	alive(t, s)
	if _, err := joinWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm3"}); wampURIOf(err) != wamp.ErrNoSuchRealm {
		t.Errorf("join realm3 after a refused reload: %v, want %s", err, wamp.ErrNoSuchRealm)
	}
	if rep := reload(t, n); len(rep.Applied) != 0 {
		t.Errorf("the running config changed: %+v", rep)
	}
}

// TestReloadRealms: a removed realm's sessions get GOODBYE
// wamp.close.close_realm, another realm's session stays, an added realm
// takes sessions, and the node info lists the realms that run.
func TestReloadRealms(t *testing.T) {
	n, ws := startReload(t)
	one := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1"})
	two := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	doc := strings.Replace(reloadDoc, `{"name": "realm2", "roles": [{"name": "anonymous", "allow-by-default": true}]}`,
		`{"name": "realm4", "roles": [{"name": "anonymous", "allow-by-default": true}]}`, 1)
	rep, err := n.Reload(testCtx(t), reloadConfig(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Restart) != 0 || len(rep.Applied) != 2 {
		t.Errorf("report %+v, want realm4 added and realm2 removed", rep)
	}
	endedWith(t, two, wamp.ErrCloseRealm)
	alive(t, one)
	alive(t, mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm4"}))
	if _, err := joinWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2"}); wampURIOf(err) != wamp.ErrNoSuchRealm {
		t.Errorf("join the removed realm: %v, want %s", err, wamp.ErrNoSuchRealm)
	}
	var names []string
	for _, r := range n.Info().Realms {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"realm1", "realm4"}) {
		t.Errorf("node info realms %v, want [realm1 realm4]", names)
	}
}

// TestReloadPermissionTightened: once the permissions no longer allow a
// procedure, a call that was allowed is refused on the same session, the
// callee's registration is revoked (UNREGISTERED, the Go client announces
// registration_revocation) and it stays connected with what is still
// allowed; a session that did not announce the feature is closed with
// GOODBYE junction.close.config_changed; realm2 is untouched.
func TestReloadPermissionTightened(t *testing.T) {
	n, ws := startReload(t)
	callee := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1"})
	echo(t, callee, "com.a.echo")
	echo(t, callee, "com.b.echo")
	caller := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1"})
	callEcho(t, caller, "com.a.echo")
	plain := rawJoin(t, ws, "realm1")
	plain.register(t, "com.a.plain")
	other := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})

	rep := reload(t, n, "PREFIX", "com.b.")
	if len(rep.Applied) != 1 || !strings.Contains(rep.Applied[0].What, "1 sessions closed, 1 registrations") {
		t.Errorf("applied %+v, want realm1's roles replaced, 1 session closed, 1 registration revoked", rep.Applied)
	}
	if _, err := caller.Call(testCtx(t), "com.a.echo", nil, nil); wampURIOf(err) != wamp.ErrNotAuthorized {
		t.Errorf("call after the reload: %v, want %s", err, wamp.ErrNotAuthorized)
	}
	callEcho(t, caller, "com.b.echo")
	res, err := caller.Call(testCtx(t), "wamp.registration.lookup", wamp.List{"com.a.echo"}, nil)
	if err != nil || len(res.Args) != 1 || res.Args[0] != nil {
		t.Errorf("lookup of the revoked registration: %v %v, want null", res, err)
	}
	if bye := plain.goodbye(t); bye != wamp.ErrConfigChanged {
		t.Errorf("GOODBYE %s, want %s", bye, wamp.ErrConfigChanged)
	}
	alive(t, callee)
	alive(t, other)
}

// TestReloadPrincipals: a changed ticket closes the sessions of its
// principal with GOODBYE junction.close.config_changed, the new ticket
// joins, the old one is refused; anonymous sessions stay.
func TestReloadPrincipals(t *testing.T) {
	n, ws := startReload(t)
	joe := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2", AuthID: "joe", Auth: []client.Authenticator{client.Ticket("joe-ticket")}})
	anon := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	rep := reload(t, n, "TICKET", "new-ticket")
	if got := paths(rep.Applied); !slices.Equal(got, []string{web0 + ".paths.ws.auth"}) {
		t.Errorf("applied %v, want the auth of %s.paths.ws", got, web0)
	}
	endedWith(t, joe, wamp.ErrConfigChanged)
	alive(t, anon)
	if _, err := joinWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2", AuthID: "joe",
		Auth: []client.Authenticator{client.Ticket("joe-ticket")}}); wampURIOf(err) != wamp.ErrAuthenticationDenied {
		t.Errorf("join with the old ticket: %v, want %s", err, wamp.ErrAuthenticationDenied)
	}
	mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2", AuthID: "joe", Auth: []client.Authenticator{client.Ticket("new-ticket")}})
}

// rawSession is a WebSocket WAMP session driven message by message, for a
// client that announces no feature.
type rawSession struct {
	p   wamp.Peer
	req wamp.ID
}

// rawJoin joins realm at url announcing only the client roles.
func rawJoin(t *testing.T, url string, realm wamp.URI) *rawSession {
	t.Helper()
	p, err := websocket.Dial(testCtx(t), url, websocket.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	roles := wamp.Dict{"caller": wamp.Dict{}, "callee": wamp.Dict{}, "publisher": wamp.Dict{}, "subscriber": wamp.Dict{}}
	if err := p.Send(&wamp.Hello{Realm: realm, Details: wamp.Dict{"roles": roles}}); err != nil {
		t.Fatal(err)
	}
	r := &rawSession{p: p}
	r.expect(t, wamp.TypeWelcome)
	return r
}

// expect receives the next message and checks its type.
func (r *rawSession) expect(t *testing.T, typ wamp.MessageType) wamp.Message {
	t.Helper()
	m, err := r.p.Recv()
	if err != nil {
		t.Fatalf("waiting for %s: %v", typ, err)
	}
	if m = wamp.Unwrap(m); m.Type() != typ {
		t.Fatalf("got %s %+v, want %s", m.Type(), m, typ)
	}
	return m
}

// register registers proc.
func (r *rawSession) register(t *testing.T, proc wamp.URI) {
	t.Helper()
	r.req++
	if err := r.p.Send(&wamp.Register{Request: r.req, Options: wamp.Dict{}, Procedure: proc}); err != nil {
		t.Fatal(err)
	}
	r.expect(t, wamp.TypeRegistered)
}

// goodbye receives the router's GOODBYE and returns its reason.
func (r *rawSession) goodbye(t *testing.T) wamp.URI {
	t.Helper()
	return r.expect(t, wamp.TypeGoodbye).(*wamp.Goodbye).Reason
}

// TestReloadCertificate: every reload reads the TLS certificates again
// (web and RawSocket listeners): new handshakes get the new certificate,
// sessions opened before stay; a certificate file that no longer loads
// makes the reload fail, the old certificate still served.
func TestReloadCertificate(t *testing.T) {
	dir := t.TempDir()
	oldPool := writeCert(t, dir)
	cfg := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
				"tls": {"key": "server.key", "certificate": "server.crt"}}, "paths": {"ws": {"type": "websocket"}}},
			{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
				"tls": {"key": "server.key", "certificate": "server.crt"}}}]}]}`
	n := start(t, parse(t, cfg, nil), dir)
	addrs := []string{address(t, n, web0), address(t, n, "workers[0].transports[1]")}
	before := mustWS(t, "wss://"+addrs[0]+"/ws", websocket.DialOptions{TLSConfig: &tls.Config{RootCAs: oldPool}}, client.Config{Realm: "realm1"})

	newPool := writeCert(t, dir)
	rep, err := n.Reload(testCtx(t), parse(t, cfg, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(rep.Applied); len(got) != 2 || got[0] != filepath.Join(dir, "server.crt") {
		t.Errorf("applied %v, want the certificate of both listeners", got)
	}
	for _, addr := range addrs {
		handshake(t, addr, newPool, true)
		handshake(t, addr, oldPool, false)
	}
	alive(t, before)

	if err := os.WriteFile(filepath.Join(dir, "server.crt"), []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Reload(testCtx(t), parse(t, cfg, nil)); err == nil {
		t.Fatal("Reload with a certificate that does not load: no error")
	}
	handshake(t, addrs[0], newPool, true)
}

// handshake makes a TLS handshake with addr trusting pool, and checks
// that it succeeds (ok) or fails.
func handshake(t *testing.T, addr string, pool *x509.CertPool, ok bool) {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err == nil {
		c.Close()
	}
	if (err == nil) != ok {
		t.Errorf("TLS handshake with %s: %v, want success %v", addr, err, ok)
	}
}

// TestReloadWebPaths: paths added to a web transport serve at once (a
// JSON value, a Caller whose session joins), a changed one serves its new
// value, a removed one is 404; the WebSocket sessions of the unchanged
// path stay.
func TestReloadWebPaths(t *testing.T) {
	n, ws := startReload(t)
	base := "http://" + address(t, n, web0)
	app := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	echo(t, app, "com.x.echo")
	if code, _ := get(t, base+"/info"); code != http.StatusNotFound {
		t.Fatalf("GET /info before: %d, want 404", code)
	}
	services := `"info": {"type": "json", "value": "${V}"}, "call": {"type": "caller", "realm": "realm2", "role": "anonymous"}, `
	rep := reload(t, n, "PATHS", strings.ReplaceAll(services, "${V}", "one"))
	if got := paths(rep.Applied); !slices.Equal(got, []string{web0 + ".paths"}) || len(rep.Restart) != 0 {
		t.Errorf("report %+v, want %s.paths replaced", rep, web0)
	}
	if code, body := get(t, base+"/info"); code != http.StatusOK || body != `"one"` {
		t.Errorf("GET /info: %d %s, want 200 \"one\"", code, body)
	}
	if code, body := post(t, base+"/call", `{"procedure": "com.x.echo", "args": ["hi"]}`, nil); code != http.StatusOK || !strings.Contains(body, "hi") {
		t.Errorf("POST /call: %d %s, want the echo", code, body)
	}
	reload(t, n, "PATHS", strings.ReplaceAll(services, "${V}", "two"))
	if code, body := get(t, base+"/info"); code != http.StatusOK || body != `"two"` {
		t.Errorf("GET /info after the second reload: %d %s, want \"two\"", code, body)
	}
	if code, body := post(t, base+"/call", `{"procedure": "com.x.echo", "args": ["hi"]}`, nil); code != http.StatusOK {
		t.Errorf("POST /call after the second reload: %d %s", code, body)
	}
	reload(t, n)
	if code, _ := get(t, base+"/call"); code != http.StatusNotFound {
		t.Errorf("GET /call once removed: %d, want 404", code)
	}
	alive(t, app)
}

// get fetches url and returns the status and the body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// TestReloadKeyFile: a reload with the same config reads the key files of
// the web paths again (here a publisher's jwks_file): a key removed from
// the file is refused at once, one added accepted; the WebSocket
// sessions of the transport stay. A reload with the files unchanged
// replaces nothing.
func TestReloadKeyFile(t *testing.T) {
	dir := t.TempDir()
	keys := map[string]*ecdsa.PrivateKey{"a": newECKey(t), "b": newECKey(t)}
	writeJWKS := func(kids ...string) {
		t.Helper()
		var set jose.JSONWebKeySet
		for _, kid := range kids {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: keys[kid].Public(), KeyID: kid, Algorithm: "ES256", Use: "sig"})
		}
		b, err := json.Marshal(set)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "jwks.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	publisher := `"publish": {"type": "publisher", "realm": "realm2", "role": "anonymous", "options": {"auth": {"bearer": {"jwt": {
		"algorithms": ["ES256"], "jwks_file": "jwks.json", "audience": "api", "authrole": "anonymous"}}}}}, `
	writeJWKS("a")
	n := start(t, reloadConfig(t, reloadDoc, "PATHS", publisher), dir)
	addr := address(t, n, web0)
	app := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm2"})
	publish := func(kid string, want int) {
		t.Helper()
		tok := signedToken(t, keys[kid], kid, "api")
		code, body := post(t, "http://"+addr+"/publish", `{"topic": "com.x.news", "args": [1]}`,
			http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + tok}})
		if code != want {
			t.Errorf("POST /publish with key %s: %d %s, want %d", kid, code, body, want)
		}
	}
	publish("a", http.StatusOK)
	reloadSame := func() ReloadReport {
		t.Helper()
		rep, err := n.Reload(testCtx(t), reloadConfig(t, reloadDoc, "PATHS", publisher))
		if err != nil {
			t.Fatalf("Reload: %v", err)
		}
		return rep
	}
	if rep := reloadSame(); len(rep.Applied)+len(rep.Restart)+len(rep.Failed) != 0 {
		t.Errorf("key file unchanged: %+v, want nothing", rep)
	}
	writeJWKS("b")
	rep := reloadSame()
	if got := paths(rep.Applied); !slices.Equal(got, []string{web0 + ".paths"}) || !strings.Contains(rep.Applied[0].What, "jwks.json changed") {
		t.Errorf("applied %+v, want %s.paths replaced for jwks.json", rep.Applied, web0)
	}
	publish("a", http.StatusUnauthorized)
	publish("b", http.StatusOK)
	alive(t, app)
}

// newECKey is a new P-256 key.
func newECKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signedToken is an ES256 token of alice for audience aud, signed by key
// with key ID kid.
func signedToken(t *testing.T, key *ecdsa.PrivateKey, kid, aud string) string {
	t.Helper()
	return aliceToken(t, jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, aud)
}

// TestReloadKeepsLongPoll: a reload that builds a web transport's paths
// anew keeps the sessions of a long-poll service it did not change (the
// client's next requests reach the same transport through the new tree);
// one that changes the service's options ends them.
func TestReloadKeepsLongPoll(t *testing.T) {
	const lp = `"lp": {"type": "longpoll"}, `
	n := start(t, reloadConfig(t, reloadDoc, "PATHS", lp), t.TempDir())
	base := "http://" + address(t, n, web0)
	p, err := longpoll.Dial(testCtx(t), base+"/lp", "wamp.2.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Join(testCtx(t), p, client.Config{Realm: "realm1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	events := make(chan *client.Event, 1)
	if _, err := s.Subscribe(testCtx(t), "com.lp.topic", func(ev *client.Event) { events <- ev }, nil); err != nil {
		t.Fatal(err)
	}

	rep := reload(t, n, "PATHS", lp+`"info": {"type": "json", "value": 1}, `)
	if got := paths(rep.Applied); !slices.Equal(got, []string{web0 + ".paths"}) {
		t.Fatalf("applied %v, want %s.paths", got, web0)
	}
	alive(t, s)
	if u := n.longPollAt(web0 + ".paths.lp"); u == nil || u.h.Stopping() {
		t.Error("the long-poll handler taken over was shut down with the old tree")
	}
	ws := mustWS(t, "ws://"+address(t, n, web0)+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	if _, err := ws.Publish(testCtx(t), "com.lp.topic", wamp.List{"after"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if len(ev.Args) != 1 || ev.Args[0] != "after" {
			t.Errorf("event %v", ev.Args)
		}
	case <-testCtx(t).Done():
		t.Fatal("the long-poll session got no event after the reload")
	}

	reload(t, n, "PATHS", `"lp": {"type": "longpoll", "options": {"request_timeout": 5}}, `)
	select {
	case <-s.Done():
	case <-testCtx(t).Done():
		t.Fatal("the long-poll session outlived a change of its service")
	}
}

// TestReloadRealmLimits: a change of a realm's options.limits applies
// live: a subscription refused under the old limit is admitted under the
// new one, by the same session; nothing needs a restart.
func TestReloadRealmLimits(t *testing.T) {
	doc := func(max int) *config.Config {
		return parse(t, fmt.Sprintf(`{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}],
				"options": {"limits": {"subscriptions_per_session": %d}}}],
			"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
				"paths": {"ws": {"type": "websocket"}}}]}]}`, max), nil)
	}
	n := start(t, doc(1), t.TempDir())
	s := mustWS(t, "ws://"+address(t, n, web0)+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	subscribe := func(topic wamp.URI) error {
		_, err := s.Subscribe(testCtx(t), topic, func(*client.Event) {}, nil)
		return err
	}
	if err := subscribe("com.a"); err != nil {
		t.Fatal(err)
	}
	if err := subscribe("com.b"); wampURIOf(err) != wamp.ErrLimitExceeded {
		t.Fatalf("a second subscription under a limit of 1: %v", err)
	}
	rep, err := n.Reload(testCtx(t), doc(2))
	if err != nil || !slices.Equal(paths(rep.Applied), []string{"workers[0].realms[0].options.limits"}) || len(rep.Restart) != 0 {
		t.Fatalf("reload: %+v, %v; want the limits applied", rep, err)
	}
	if err := subscribe("com.b"); err != nil {
		t.Errorf("a second subscription under a limit of 2: %v", err)
	}
	if err := subscribe("com.c"); wampURIOf(err) != wamp.ErrLimitExceeded {
		t.Errorf("a third subscription under a limit of 2: %v", err)
	}
}
