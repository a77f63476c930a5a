package node

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/bridge/webhooksig"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// webRequest is a request an httptest server received.
type webRequest struct {
	method, path, body string
	header             http.Header
}

// webTarget is an HTTP server standing for the web backend: it answers
// "hi from web" and hands every request to reqs.
func webTarget(t *testing.T) (*httptest.Server, chan webRequest) {
	reqs := make(chan webRequest, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reqs <- webRequest{r.Method, r.URL.RequestURI(), string(body), r.Header.Clone()}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "hi from web")
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

// routerDoc is node A: realm1 (meta API on) with roles anonymous and
// callerbridge, a web transport with WAMP at /ws and the four bridge path
// services, and a RESTCallee and a MessageForwarder inside the router.
func routerDoc(port int, target, upstream string) string {
	return fmt.Sprintf(`{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [
		{"name": "anonymous", "allow-by-default": true},
		{"name": "callerbridge", "allow-by-default": true}]}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": %d}, "paths": {
		"ws": {"type": "websocket"},
		"call": {"type": "caller", "realm": "realm1", "role": "callerbridge", "options": {"call_timeout": 5000}},
		"publish": {"type": "publisher", "realm": "realm1", "role": "anonymous"},
		"webhook": {"type": "webhook", "realm": "realm1", "role": "anonymous",
			"options": {"topic": "com.example.webhook", "github_secret": "hooksecret"}},
		"proxy": {"type": "reverseproxy", "host": "%s", "port": %s, "path": "/base"}}}],
	"components": [
		{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1", "role": "anonymous",
			"extra": {"procedure": "com.example.rest.router", "baseurl": "%s/api"}},
		{"type": "class", "classname": "crossbar.bridge.rest.MessageForwarder", "realm": "realm1",
			"extra": {"subscriptions": [{"topic": "com.example.fwd.router", "url": "%s/fwd/router"}]}}]}]}`,
		port, hostOf(upstream), portOf(upstream), target, target)
}

// containerDoc is node B: a container whose RESTCallee and
// MessageForwarder reach node A over WebSocket at addr.
func containerDoc(addr, target string) string {
	host, port, _ := net.SplitHostPort(addr)
	tr := fmt.Sprintf(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "%s", "port": %s}, "url": "ws://%s/ws"}`, host, port, addr)
	return fmt.Sprintf(`{"version": 2, "workers": [{"type": "container", "components": [
		{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1", "transport": %s,
			"extra": {"procedure": "com.example.rest.container", "baseurl": "%s/api"}},
		{"type": "class", "classname": "router.adapter.rest.MessageForwarder", "realm": "realm1", "transport": %s,
			"extra": {"subscriptions": [{"topic": "com.example.fwd", "match": "prefix", "url": "%s/fwd/container"}]}}]}]}`,
		tr, target, tr, target)
}

func hostOf(u string) string {
	h, _, _ := net.SplitHostPort(strings.TrimPrefix(u, "http://"))
	return h
}

func portOf(u string) string {
	_, p, _ := net.SplitHostPort(strings.TrimPrefix(u, "http://"))
	return p
}

// bridgeFixture is node A with a Go callee and subscriber, and the web
// servers its components and reverse proxy talk to.
type bridgeFixture struct {
	n        *Node
	base     string // http://addr of the web transport
	app      *client.Session
	events   chan *client.Event // of com.example.topic and com.example.webhook
	web      chan webRequest    // requests to the components' target
	upstream chan webRequest    // requests to the reverse proxy's upstream
	target   string
}

func newBridgeFixture(t *testing.T) *bridgeFixture {
	target, web := webTarget(t)
	upstream, up := webTarget(t)
	f := &bridgeFixture{web: web, upstream: up, target: target.URL, events: make(chan *client.Event, 16)}
	f.n = start(t, parse(t, routerDoc(0, target.URL, upstream.URL), nil), t.TempDir())
	addr := address(t, f.n, web0)
	f.base = "http://" + addr
	f.app = mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	_, err := f.app.Register(testCtx(t), "com.example.echo", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range []wamp.URI{"com.example.topic", "com.example.webhook"} {
		if _, err := f.app.Subscribe(testCtx(t), topic, func(ev *client.Event) { f.events <- ev }, nil); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// post sends body to path and returns the status and the body.
func post(t *testing.T, url, body string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	if req.Header == nil {
		req.Header = http.Header{"Content-Type": {"application/json"}}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-testCtx(t).Done():
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

func TestBridgeServices(t *testing.T) {
	f := newBridgeFixture(t)
	t.Run("caller result shapes", func(t *testing.T) {
		tests := []struct{ body, want string }{
			{`{"procedure": "com.example.echo", "args": [1]}`, `{"args":[1]}`},
			{`{"procedure": "com.example.echo", "args": [1, "x"]}`, `{"args":[1,"x"]}`},
			{`{"procedure": "com.example.echo", "kwargs": {"a": 1}}`, `{"kwargs":{"a":1}}`},
			{`{"procedure": "com.example.echo", "args": [true], "kwargs": {"a": 1}}`, `{"args":[true],"kwargs":{"a":1}}`},
			{`{"procedure": "com.example.echo"}`, `{"args":[null]}`},
			{`{"procedure": "com.example.nothing"}`, `"error":"wamp.error.no_such_procedure"`},
		}
		for _, tt := range tests {
			code, got := post(t, f.base+"/call", tt.body, nil)
			if code != http.StatusOK || !strings.Contains(got, tt.want) {
				t.Errorf("POST /call %s = %d %s, want 200 %s", tt.body, code, got, tt.want)
			}
		}
	})
	t.Run("publisher", func(t *testing.T) {
		code, got := post(t, f.base+"/publish", `{"topic": "com.example.topic", "args": ["hello"], "kwargs": {"k": 2}}`, nil)
		var res struct{ ID uint64 }
		if code != http.StatusOK || json.Unmarshal([]byte(got), &res) != nil || res.ID == 0 {
			t.Fatalf("POST /publish = %d %s, want 200 {\"id\": ...}", code, got)
		}
		ev := receive(t, f.events, "event")
		if ev.Topic != "com.example.topic" || len(ev.Args) != 1 || ev.Args[0] != "hello" || uint64(ev.Publication) != res.ID {
			t.Errorf("event %+v, want hello as publication %d", ev, res.ID)
		}
	})
	t.Run("webhook", func(t *testing.T) { testWebhook(t, f) })
	t.Run("reverse proxy", func(t *testing.T) {
		resp, err := http.Get(f.base + "/proxy/x/y?q=1")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		r := receive(t, f.upstream, "upstream request")
		if resp.StatusCode != 200 || string(b) != "hi from web" || r.path != "/base/x/y?q=1" {
			t.Errorf("GET /proxy/x/y = %d %q, upstream got %s", resp.StatusCode, b, r.path)
		}
	})
	t.Run("callee in router", func(t *testing.T) {
		res, err := f.app.Call(testCtx(t), "com.example.rest.router", nil, wamp.ObjectOf(wamp.Dict{"method": "GET", "url": "hello"}))
		if err != nil {
			t.Fatal(err)
		}
		r := receive(t, f.web, "web request")
		got, _ := wamp.AsDict(res.Args[0])
		if r.method != "GET" || r.path != "/api/hello" || got["content"] != "hi from web" || fmt.Sprint(got["code"]) != "200" {
			t.Errorf("request %s %s, result %v", r.method, r.path, res.Args)
		}
	})
	t.Run("forwarder in router", func(t *testing.T) {
		if _, err := f.app.Publish(testCtx(t), "com.example.fwd.router", wamp.List{1}, wamp.ObjectOf(wamp.Dict{"a": "b"}), wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
		r := receive(t, f.web, "forwarded event")
		if r.method != "POST" || r.path != "/fwd/router" || r.body != `{"args":[1],"kwargs":{"a":"b"}}` {
			t.Errorf("forwarded %s %s %s", r.method, r.path, r.body)
		}
	})
	// The bridge's round trip: HTTP -> Caller -> Callee -> HTTP, and the
	// web response back in the Caller's reply.
	t.Run("caller to callee", func(t *testing.T) {
		code, got := post(t, f.base+"/call", `{"procedure": "com.example.rest.router", "kwargs": {"method": "POST", "url": "orders", "body": "{\"n\": 1}"}}`, nil)
		r := receive(t, f.web, "web request")
		if r.method != "POST" || r.path != "/api/orders" || r.body != `{"n": 1}` {
			t.Errorf("callee request %s %s %q", r.method, r.path, r.body)
		}
		var res struct {
			Args []struct {
				Code    int
				Content string
			}
		}
		if code != 200 || json.Unmarshal([]byte(got), &res) != nil || len(res.Args) != 1 ||
			res.Args[0].Code != 200 || res.Args[0].Content != "hi from web" {
			t.Errorf("POST /call = %d %s", code, got)
		}
	})
}

func testWebhook(t *testing.T, f *bridgeFixture) {
	body := `{"action": "opened"}`
	mac := hmac.New(sha256.New, []byte("hooksecret"))
	mac.Write([]byte(body))
	h := http.Header{"Content-Type": {"application/json"}, "X-Github-Event": {"issues"},
		"X-Hub-Signature-256": {"sha256=" + hex.EncodeToString(mac.Sum(nil))}}
	if code, got := post(t, f.base+"/webhook", body, h); code != http.StatusAccepted || got != "OK" {
		t.Fatalf("POST /webhook = %d %q, want 202 OK", code, got)
	}
	ev := receive(t, f.events, "webhook event")
	d, _ := wamp.AsDict(ev.Args[0])
	if ev.Topic != "com.example.webhook" || d["body"] != body {
		t.Errorf("webhook event %+v", ev)
	}
	h.Set("X-Hub-Signature-256", "sha256=00")
	if code, got := post(t, f.base+"/webhook", body, h); code != http.StatusUnauthorized || got != "NOT OK" {
		t.Errorf("badly signed POST /webhook = %d %q, want 401 NOT OK", code, got)
	}
}

// TestCallerSessionKilled kills the caller's embedded session with the
// meta API: the caller answers 503 until the session is back.
func TestCallerSessionKilled(t *testing.T) {
	left, release, joined := make(chan struct{}, 4), make(chan struct{}), make(chan struct{}, 4)
	saved := bridgeReconnect
	bridgeReconnect = func() client.ReconnectOptions {
		return client.ReconnectOptions{RetryFirst: true,
			OnLeave: func(*client.Session, error) { left <- struct{}{}; <-release },
			OnJoin:  func(*client.Session) { joined <- struct{}{} }}
	}
	t.Cleanup(func() { bridgeReconnect = saved })
	f := newBridgeFixture(t)
	for range 3 { // call, publish, webhook
		receive(t, joined, "first join")
	}
	res, err := f.app.Call(testCtx(t), "wamp.session.list", wamp.List{wamp.List{"callerbridge"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := res.Args[0].(wamp.List)
	if len(ids) != 1 {
		t.Fatalf("callerbridge sessions = %v, want one", res.Args)
	}
	if _, err := f.app.Call(testCtx(t), "wamp.session.kill", wamp.List{ids[0]}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, left, "leave")
	code, got := post(t, f.base+"/call", `{"procedure": "com.example.echo", "args": [1]}`, nil)
	if code != http.StatusServiceUnavailable {
		t.Errorf("POST /call without a session = %d %s, want 503", code, got)
	}
	close(release)
	receive(t, joined, "rejoin")
	if code, got := post(t, f.base+"/call", `{"procedure": "com.example.echo", "args": [1]}`, nil); code != 200 || got != `{"args":[1]}` {
		t.Errorf("POST /call after rejoin = %d %s", code, got)
	}
}

// TestContainerRouterRestart runs the components in a container of a
// second node, over WebSocket to node A; node A stops and a new one starts
// on the same address, and the components rejoin by themselves.
func TestContainerRouterRestart(t *testing.T) {
	joined := make(chan struct{}, 16)
	saved := componentReconnect
	componentReconnect = func() client.ReconnectOptions {
		return client.ReconnectOptions{RetryFirst: true, MinBackoff: 5e6, MaxBackoff: 50e6,
			OnJoin: func(*client.Session) { joined <- struct{}{} }}
	}
	t.Cleanup(func() { componentReconnect = saved })
	target, web := webTarget(t)
	upstream, _ := webTarget(t)
	a, err := New(parse(t, routerDoc(0, target.URL, upstream.URL), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop(context.Background()) }) // a second Stop does nothing
	addr := address(t, a, web0)
	for range 2 { // the router's own components
		receive(t, joined, "router component join")
	}
	b := start(t, parse(t, containerDoc(addr, target.URL), nil), t.TempDir())
	for range 2 {
		receive(t, joined, "container component join")
	}
	if err := b.WaitComponents(testCtx(t)); err != nil { // registered and subscribed in the background
		t.Fatalf("WaitComponents: %v", err)
	}
	checkContainer(t, addr, web)

	if err := a.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	_, port, _ := splitHostPort(t, addr)
	var p int
	fmt.Sscan(port, &p)
	a2 := start(t, parse(t, routerDoc(p, target.URL, upstream.URL), nil), t.TempDir())
	if got := address(t, a2, web0); got != addr {
		t.Fatalf("new node on %s, want %s", got, addr)
	}
	for range 4 { // two in the new router, two from the container
		receive(t, joined, "join after restart")
	}
	checkContainer(t, addr, web)
}

// checkContainer checks the container's callee and forwarder through the
// router at addr.
func checkContainer(t *testing.T, addr string, web chan webRequest) {
	t.Helper()
	s := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	res, err := s.Call(testCtx(t), "com.example.rest.container", nil, wamp.ObjectOf(wamp.Dict{"method": "GET", "url": "c"}))
	if err != nil {
		t.Fatalf("call container callee: %v", err)
	}
	if r := receive(t, web, "callee request"); r.path != "/api/c" {
		t.Errorf("callee request %s", r.path)
	}
	if d, _ := wamp.AsDict(res.Args[0]); d["content"] != "hi from web" {
		t.Errorf("result %v", res.Args)
	}
	if _, err := s.Publish(testCtx(t), "com.example.fwd.container", wamp.List{"x"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if r := receive(t, web, "forwarded event"); r.path != "/fwd/container" || r.body != `{"args":["x"],"kwargs":{}}` {
		t.Errorf("forwarded %s %s", r.path, r.body)
	}
	s.Close()
}

func TestBridgeNewErrors(t *testing.T) {
	router := func(members string) string {
		return `{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}], ` + members + `}]}`
	}
	tests := []struct{ name, doc, want string }{
		{"require_ip", router(`"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 0}, "paths": {
			"call": {"type": "caller", "realm": "realm1", "role": "anonymous", "options": {"require_ip": ["127.0.0.1", "10.0.0.0/33"]}}}}]`),
			`workers[0].transports[0].paths.call.options.require_ip[1]: invalid prefix length "33"`},
		{"require_ip nested", router(`"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 0}, "paths": {
			"api": {"type": "path", "paths": {"hook": {"type": "webhook", "realm": "realm1", "role": "anonymous",
				"options": {"topic": "t", "require_ip": ["localhost"]}}}}}}]`),
			`workers[0].transports[0].paths.api.paths.hook.options.require_ip[0]: invalid IP address "localhost"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(parse(t, tt.doc, nil), Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestBridgeDefaultsAgree: package config documents the bridge's defaults
// and provider names; they must be the bridge's own.
func TestBridgeDefaultsAgree(t *testing.T) {
	if config.DefaultPostBodyLimit != bridge.DefaultPostBodyLimit ||
		config.DefaultWebhookPostBodyLimit != bridge.DefaultWebhookPostBodyLimit ||
		config.DefaultCallTimeout != bridge.DefaultCallTimeout {
		t.Error("config and bridge defaults differ")
	}
	for _, p := range config.WebhookProviders {
		if s, ok := webhooksig.ParseScheme(p); !ok || string(s) != p {
			t.Errorf("provider %q is not a webhooksig scheme", p)
		}
	}
}

// TestBodyLimitMapping: absent gives the default, 0 unlimited.
func TestBodyLimitMapping(t *testing.T) {
	doc := func(opts string) string {
		return `{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
			"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
				"hook": {"type": "webhook", "realm": "realm1", "role": "anonymous", "options": {"topic": "t"` + opts + `}}}}]}]}`
	}
	big := bytes.Repeat([]byte("a"), 2<<20)
	tests := []struct {
		opts string
		size int
		want int
	}{
		{"", 2 << 20, http.StatusAccepted}, // under the 25 MiB default
		{`, "post_body_limit": 1000`, 2 << 20, http.StatusRequestEntityTooLarge},
		{`, "post_body_limit": 0`, 2 << 20, http.StatusAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.opts, func(t *testing.T) {
			n := start(t, parse(t, doc(tt.opts), nil), t.TempDir())
			code, _ := post(t, "http://"+address(t, n, web0)+"/hook", string(big[:tt.size]), http.Header{})
			if code != tt.want {
				t.Errorf("status %d, want %d", code, tt.want)
			}
		})
	}
}

// TestSharedNonces: a signed request accepted by one service cannot be
// replayed on another service with the same key; a service with another
// key has a cache of its own.
func TestSharedNonces(t *testing.T) {
	signed := `"options": {"key": "k", "secret": "s", "timestamp_delta_limit": 60}`
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"call": {"type": "caller", "realm": "realm1", "role": "anonymous", ` + signed + `},
			"publish": {"type": "publisher", "realm": "realm1", "role": "anonymous", ` + signed + `},
			"other": {"type": "publisher", "realm": "realm1", "role": "anonymous",
				"options": {"key": "k2", "secret": "s", "timestamp_delta_limit": 60}}}}]}]}`
	n := start(t, parse(t, doc, nil), t.TempDir())
	base := "http://" + address(t, n, web0)
	body := `{"procedure": "wamp.session.count", "topic": "com.example.topic"}`
	query := func(key string) string {
		ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		sig := base64.URLEncoding.EncodeToString(bridge.Sign("s", key, ts, "1", "42", []byte(body)))
		return "?key=" + key + "&timestamp=" + ts + "&seq=1&nonce=42&signature=" + url.QueryEscape(sig)
	}
	q := query("k")
	if code, got := post(t, base+"/call"+q, body, nil); code != 200 {
		t.Fatalf("signed POST /call = %d %s", code, got)
	}
	if code, got := post(t, base+"/publish"+q, body, nil); code != http.StatusUnauthorized {
		t.Errorf("replay on /publish = %d %s, want 401", code, got)
	}
	if code, got := post(t, base+"/other"+query("k2"), body, nil); code != 200 {
		t.Errorf("same nonce, other key = %d %s, want 200", code, got)
	}
}
