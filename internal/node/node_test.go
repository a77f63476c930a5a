package node

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/internal/web"
	"github.com/junction-wamp/junction/wamp"
)

const web0 = "workers[0].transports[0]"

func TestDefaultConfig(t *testing.T) {
	n := start(t, zeroPorts(config.Default()), t.TempDir())
	addr := address(t, n, web0)
	if !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Fatalf("address %q: want 127.0.0.1 and the real port", addr)
	}
	cfg := client.Config{Realm: "realm1"}
	callee := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, cfg)
	caller := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, cfg)
	echo(t, callee, "com.example.echo")
	callEcho(t, caller, "com.example.echo")

	got := make(chan *client.Event, 1)
	if _, err := callee.Subscribe(testCtx(t), "com.example.topic", func(ev *client.Event) { got <- ev }, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := caller.Publish(testCtx(t), "com.example.topic", wamp.List{1}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-testCtx(t).Done():
		t.Fatal("no event")
	}

	// The HTTP bridge paths work with the anonymous role's permissions.
	if code, got := post(t, "http://"+addr+"/call", `{"procedure": "com.example.echo", "args": ["hi"]}`, nil); code != 200 || got != `{"args":["hi"]}` {
		t.Errorf("POST /call = %d %s", code, got)
	}
	if code, got := post(t, "http://"+addr+"/publish", `{"topic": "com.example.topic"}`, nil); code != 200 || !strings.HasPrefix(got, `{"id":`) {
		t.Errorf("POST /publish = %d %s", code, got)
	}
	receive(t, got, "published event")
	if code, got := post(t, "http://"+addr+"/webhook", `x`, http.Header{}); code != 202 || got != "OK" {
		t.Errorf("POST /webhook = %d %s", code, got)
	}

	// The dashboard at "/": two clients and the embedded sessions of call,
	// publish and webhook.
	d := dashboardJSON(t, "http://"+addr+"/")
	if len(d.Realms) != 1 || d.Realms[0].Name != "realm1" || d.Realms[0].Sessions != 5 || d.Version == "" {
		t.Errorf("dashboard = %+v, want realm1 with 5 sessions", d)
	}

	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	<-caller.Done()
	if u := wampURIOf(caller.Err()); u != wamp.ErrSystemShutdown {
		t.Errorf("session ended with %v, want GOODBYE %s", caller.Err(), wamp.ErrSystemShutdown)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("listener %s still accepts after Stop", addr)
	}
}

func nodeInfo(t *testing.T, url string) web.NodeInfo { return getJSON[web.NodeInfo](t, url) }

// getJSON GETs url asking for JSON, and decodes the 200 answer as a T.
func getJSON[T any](t *testing.T, url string) T {
	t.Helper()
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodGet, url, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v T
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return v
}

func TestStartAddressInUse(t *testing.T) {
	busy, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			 "paths": {"/": {"type": "nodeinfo"}, "ws": {"type": "websocket"}}},
			{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": `+port+`}}
		]}]}`, nil)
	n, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Start(testCtx(t))
	if err == nil {
		t.Fatal("Start succeeded on a busy port")
	}
	want := "workers[0].transports[1]: listen tcp4 127.0.0.1:" + port
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Start: %v, want it to name %q and the address in use", err, want)
	}
	first := n.Listeners()
	if len(first) != 1 {
		t.Fatalf("listeners = %v, want the first one only", first)
	}
	if c, err := net.Dial("tcp", first[0].Address); err == nil {
		c.Close()
		t.Errorf("first listener %s still open after the failed start", first[0].Address)
	}
	if err := n.Start(testCtx(t)); err != ErrStarted {
		t.Errorf("second Start: %v, want ErrStarted", err)
	}
	if err := n.Stop(context.Background()); err != nil {
		t.Errorf("Stop after a failed start: %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"static directory", `{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1"}],
			"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 0},
				"paths": {"/": {"type": "path", "paths": {"files": {"type": "static", "directory": "/dev/null/web"}}}}}]}]}`,
			`workers[0].transports[0].paths["/"].paths.files: web: `},
		{"tls files", `{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1"}],
			"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 0,
				"tls": {"key": "nokey.pem", "certificate": "nocert.pem"}}}]}]}`,
			`workers[0].transports[0].endpoint.tls: web: tls: certificate: open `},
		{"websocket tls files", `{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1"}],
			"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 0,
				"tls": {"key": "nokey.pem", "certificate": "nocert.pem"}}}]}]}`,
			`workers[0].transports[0].endpoint.tls: web: tls: certificate: open `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(parse(t, tt.doc, nil), Options{Dir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestNewReportsEveryError: New reports every item it cannot build, each
// at its JSON path, sorted by path (components before transports, though
// it builds transports first), as a config.Errors.
func TestNewReportsEveryError(t *testing.T) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "tcp", "port": 0}, "paths": {
				"files": {"type": "static", "directory": "/dev/null/web"},
				"call": {"type": "caller", "realm": "realm1", "role": "anonymous", "options": {"require_ip": ["localhost"]}},
				"ws": {"type": "websocket"}}},
			{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 0, "tls": {"key": "nokey.pem", "certificate": "nocert.pem"}}},
			{"type": "web", "endpoint": {"type": "tcp", "port": 0, "tls": {"key": "nokey.pem", "certificate": "nocert.pem"}},
				"paths": {"/": {"type": "static", "directory": "/dev/null/web"}}}],
		"components": [{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
			"extra": {"procedure": "com.x", "baseurl": ""}}]},
		{"type": "container", "components": [{"type": "class", "classname": "router.adapter.rest.MessageForwarder",
			"realm": "realm1", "transport": {"type": "websocket", "url": "wss://127.0.0.1:1/ws",
				"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 1, "tls": {"ca_certificates": ["noca.pem"]}}},
			"extra": {"subscriptions": [{"topic": "t", "url": "http://127.0.0.1:1/x"}]}}]}]}`
	_, err := New(parse(t, doc, nil), Options{Dir: t.TempDir()})
	var es config.Errors
	if !errors.As(err, &es) {
		t.Fatalf("New: %v, want a config.Errors", err)
	}
	want := []string{
		`workers[0].transports[0].paths.call.options.require_ip[0]: invalid IP address "localhost"`,
		`workers[0].transports[0].paths.files: web: static directory: `,
		`workers[0].transports[1].endpoint.tls: web: tls: certificate: open `,
		`workers[0].transports[2].endpoint.tls: web: tls: certificate: open `,
		`workers[0].transports[2].paths["/"]: web: static directory: `,
		`workers[1].components[0].transport: `,
	}
	if len(es) != len(want) {
		t.Fatalf("New: %d errors, want %d:\n%v", len(es), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(es[i].Error(), w) {
			t.Errorf("error %d = %q, want %q...", i, es[i].Error(), w)
		}
	}
}

// TestStaticDirectoryMissing: a static directory that does not exist is a
// warning at its "directory" path, logged by New and returned by
// Warnings, and the node starts and answers 404 there, as Crossbar does.
func TestStaticDirectoryMissing(t *testing.T) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1"}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"/": {"type": "static", "directory": "../web"},
			"info": {"type": "nodeinfo"}}}]}]}`
	n, log := startLogged(t, doc)
	ws := n.Warnings()
	if len(ws) != 1 || ws[0].Path != `workers[0].transports[0].paths["/"].directory` ||
		!strings.HasSuffix(ws[0].Msg, "web does not exist: every request here gets 404 until it does") {
		t.Fatalf("Warnings() = %v", ws)
	}
	if want := `level=WARN msg="config: ` + ws[0].Msg; !strings.Contains(log.String(), want) {
		t.Errorf("log %q lacks %q", log, want)
	}
	base := "http://" + address(t, n, web0)
	for _, target := range []string{"/", "/index.html"} {
		resp, err := http.Get(base + target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", target, resp.StatusCode)
		}
	}
	if info := nodeInfo(t, base+"/info"); info.Version == "" {
		t.Errorf("the node info page beside the missing directory: %+v", info)
	}
}

// TestJSONServiceOptions: a json service's options reach its handler;
// without options it sends CORS and no caching header, as Crossbar does.
func TestJSONServiceOptions(t *testing.T) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1"}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"plain": {"type": "json", "value": {"a": [1]}},
			"tuned": {"type": "json", "value": {"a": [1]},
				"options": {"prettify": true, "allow_cross_origin": false, "discourage_caching": true}}}}]}]}`
	n, _ := startLogged(t, doc)
	base := "http://" + address(t, n, web0)
	tests := []struct{ path, body, origin, cache string }{
		{"/plain", `{"a":[1]}` + "\n", "*", ""},
		{"/tuned", "{\n   \"a\": [\n      1\n   ]\n}\n", "", "no-store, no-cache, must-revalidate, max-age=0"},
	}
	for _, tt := range tests {
		resp, err := http.Get(base + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != tt.body || resp.Header.Get("Access-Control-Allow-Origin") != tt.origin || resp.Header.Get("Cache-Control") != tt.cache {
			t.Errorf("GET %s: %q, CORS %q, Cache-Control %q; want %q, %q, %q", tt.path, body,
				resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Cache-Control"), tt.body, tt.origin, tt.cache)
		}
	}
}
