package node

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// cookieJar keeps the cookie a router sets, as a browser does, and sends
// it back on the next connection.
type cookieJar struct {
	mu     sync.Mutex
	cookie string // "name=value"
	set    int    // Set-Cookie headers seen
}

func (j *cookieJar) dial() websocket.DialOptions {
	j.mu.Lock()
	defer j.mu.Unlock()
	o := websocket.DialOptions{OnResponseHeader: j.keep}
	if j.cookie != "" {
		o.Header = http.Header{"Cookie": {j.cookie}}
	}
	return o
}

func (j *cookieJar) keep(name, value string) {
	if !strings.EqualFold(name, "Set-Cookie") {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.cookie, _, _ = strings.Cut(value, ";")
	j.set++
}

func (j *cookieJar) value() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, v, _ := strings.Cut(j.cookie, "=")
	return v
}

// cookieDoc has a WebSocket path "ws" with cookie tracking (store given)
// offering ticket and cookie, and a path "anon" with tracking and no auth.
func cookieDoc(store string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "user", "allow-by-default": true}, {"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "cookie": {"name": "sid", "store": ` + store + `},
				"auth": {"ticket": {"type": "static", "principals": {"alice": {"ticket": "secret1", "role": "user"}}}, "cookie": {}}},
			"anon": {"type": "websocket", "cookie": {}}}}]}]}`
}

// loginAgain logs in by ticket with jar's cookie, then reconnects with
// the cookie it got and checks that the cookie alone authenticates.
func loginAgain(t *testing.T, url string, jar *cookieJar) {
	t.Helper()
	ticket := client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret1")}}
	s := mustWS(t, url, jar.dial(), ticket)
	if d := s.Details(); d["authmethod"] != "ticket" || d["authprovider"] != "static" {
		t.Fatalf("ticket login: %v", d)
	}
	s.Leave(testCtx(t))
	byCookie := client.Config{Realm: "realm1", Auth: []client.Authenticator{cookieMethod{}, client.Ticket("wrong")}}
	s = mustWS(t, url, jar.dial(), byCookie)
	if d := s.Details(); d["authid"] != "alice" || d["authrole"] != "user" || d["authmethod"] != "ticket" || d["authprovider"] != "cookie" {
		t.Errorf("cookie login: %v", d)
	}
}

// cookieMethod offers the "cookie" authmethod.
type cookieMethod struct{}

func (cookieMethod) Method() string       { return "cookie" }
func (cookieMethod) AuthExtra() wamp.Dict { return nil }
func (cookieMethod) Respond(*wamp.Challenge) (string, wamp.Dict, error) {
	return "", nil, nil
}

func TestCookieMemory(t *testing.T) {
	n := start(t, parse(t, cookieDoc(`{"type": "memory"}`), nil), t.TempDir())
	base := "ws://" + address(t, n, web0) + "/"
	jar := &cookieJar{}
	loginAgain(t, base+"ws", jar)
	if jar.set != 1 || len(jar.value()) != 24 {
		t.Errorf("Set-Cookie %d times, cookie %q", jar.set, jar.cookie)
	}

	// Without an authenticated cookie, "cookie" is passed over for the
	// next method: a wrong ticket is refused.
	fresh := &cookieJar{}
	_, err := joinWS(t, base+"ws", fresh.dial(), client.Config{Realm: "realm1", AuthID: "alice",
		Auth: []client.Authenticator{cookieMethod{}, client.Ticket("wrong")}})
	if wampURIOf(err) != wamp.ErrAuthenticationDenied {
		t.Errorf("fresh cookie, wrong ticket: %v", err)
	}

	// No auth: an anonymous session's authid is its cookie.
	anon := &cookieJar{}
	s := mustWS(t, base+"anon", anon.dial(), client.Config{Realm: "realm1"})
	if d := s.Details(); d["authid"] != anon.value() || d["authrole"] != "anonymous" {
		t.Errorf("anonymous with cookie %q: %v", anon.value(), d)
	}
}

func TestCookieFile(t *testing.T) {
	dir := t.TempDir()
	doc := cookieDoc(`{"type": "file", "filename": "cookies.dat"}`)
	n := start(t, parse(t, doc, nil), dir)
	jar := &cookieJar{}
	loginAgain(t, "ws://"+address(t, n, web0)+"/ws", jar)
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cookies.dat"))
	if err != nil || !strings.Contains(string(b), `"id":"`+jar.value()+`"`) || !strings.Contains(string(b), `"authid":"alice"`) {
		t.Fatalf("cookie file: %s %v", b, err)
	}

	// A new node on the same directory knows the cookie.
	n = start(t, parse(t, doc, nil), dir)
	s := mustWS(t, "ws://"+address(t, n, web0)+"/ws", jar.dial(), client.Config{Realm: "realm1", Auth: []client.Authenticator{cookieMethod{}}})
	if d := s.Details(); d["authid"] != "alice" || d["authprovider"] != "cookie" || jar.set != 1 {
		t.Errorf("after restart: %v (Set-Cookie %d times)", d, jar.set)
	}
}

// TestCookieLogout: a session that leaves with GOODBYE wamp.close.logout
// makes its cookie authenticate nobody.
func TestCookieLogout(t *testing.T) {
	n := start(t, parse(t, cookieDoc(`{"type": "memory"}`), nil), t.TempDir())
	url := "ws://" + address(t, n, web0) + "/ws"
	jar := &cookieJar{}
	loginAgain(t, url, jar)

	p, err := websocket.Dial(testCtx(t), url, jar.dial())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hello := &wamp.Hello{Realm: "realm1", Details: wamp.Dict{"roles": wamp.Dict{"caller": wamp.Dict{}}, "authmethods": wamp.List{"cookie"}}}
	if err := p.Send(hello); err != nil {
		t.Fatal(err)
	}
	if m, err := p.Recv(); err != nil {
		t.Fatal(err)
	} else if _, ok := m.(*wamp.Welcome); !ok {
		t.Fatalf("got %v, want WELCOME", m)
	}
	if err := p.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "wamp.close.logout"}); err != nil {
		t.Fatal(err)
	}
	if m, err := p.Recv(); err != nil {
		t.Fatal(err)
	} else if _, ok := m.(*wamp.Goodbye); !ok {
		t.Fatalf("got %v, want GOODBYE", m)
	}
	_, err = joinWS(t, url, jar.dial(), client.Config{Realm: "realm1", Auth: []client.Authenticator{cookieMethod{}}})
	if wampURIOf(err) != wamp.ErrNoAuthMethod {
		t.Errorf("cookie after logout: %v, want %s", err, wamp.ErrNoAuthMethod)
	}
}

// TestReloadKeepsCookies: a reload that builds the web transport's paths
// anew (a path added) keeps a WebSocket path's cookie store when its
// cookie settings did not change: a cookie authenticated before still
// logs in by itself after. One whose settings changed starts a new store.
func TestReloadKeepsCookies(t *testing.T) {
	doc := func(extra, maxAge string) *config.Config {
		d := strings.Replace(cookieDoc(`{"type": "memory"}`), `"name": "sid",`, `"name": "sid", `+maxAge, 1)
		return parse(t, strings.Replace(d, `"paths": {`, `"paths": {`+extra, 1), nil)
	}
	n := start(t, doc("", ""), t.TempDir())
	url := "ws://" + address(t, n, web0) + "/ws"
	jar := &cookieJar{}
	loginAgain(t, url, jar)
	byCookie := client.Config{Realm: "realm1", Auth: []client.Authenticator{cookieMethod{}}}

	rep, err := n.Reload(testCtx(t), doc(`"info": {"type": "json", "value": 1}, `, ""))
	if err != nil || len(rep.Applied) != 1 {
		t.Fatalf("reload: %+v, %v", rep, err)
	}
	if d := mustWS(t, url, jar.dial(), byCookie).Details(); d["authid"] != "alice" || d["authprovider"] != "cookie" {
		t.Errorf("after a reload of other paths: %v", d)
	}

	if _, err := n.Reload(testCtx(t), doc(`"info": {"type": "json", "value": 1}, `, `"max_age": 3600,`)); err != nil {
		t.Fatal(err)
	}
	if _, err := joinWS(t, url, jar.dial(), byCookie); wampURIOf(err) == "" {
		t.Error("a cookie of the store before a change of its settings still logs in")
	}
	// Each reload replaced the paths' gates and the changed store: the
	// router holds those of the paths now, no more.
	ru := n.routers[0]
	if len(ru.gates) != 2 || len(ru.cookies) != 2 {
		t.Errorf("after two reloads: %d gates and %d cookie stores, want 2 and 2 (ws and anon)", len(ru.gates), len(ru.cookies))
	}
}
