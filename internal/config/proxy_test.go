package config

import (
	"slices"
	"strings"
	"testing"
)

// unixConn is a proxy connection to router.sock.
const unixConn = `{"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}, "url": "rs://localhost", "serializer": "cbor"}}`

// tcpConn is a proxy connection over TCP logging in with auth.
func tcpConn(auth string) string {
	return `{"transport": {"type": "rawsocket", "endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8442}, "serializer": "cbor"}` +
		`, "auth": ` + auth + `}`
}

// proxyWorker is a proxy worker with conn1 (unixConn), routes realm1
// anonymous to conn1, a web transport with a websocket path on port
// 8080, and the given members in place of any of those.
func proxyWorker(members ...string) string {
	m := map[string]string{
		"connections": `{"conn1": ` + unixConn + `}`,
		"routes":      `{"realm1": {"anonymous": "conn1"}}`,
		"transports":  `[{"type": "web", "endpoint": {"type": "tcp", "port": 8080}, "paths": {"ws": {"type": "websocket"}}}]`,
	}
	var extra []string
	for _, kv := range members {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := m[k]; ok {
			m[k] = v
		} else {
			extra = append(extra, kv)
		}
	}
	parts := []string{`"type": "proxy"`}
	for _, k := range []string{"connections", "routes", "transports"} {
		parts = append(parts, `"`+k+`": `+m[k])
	}
	return "{" + strings.Join(append(parts, extra...), ", ") + "}"
}

// proxyAuth is a router whose rawsocket transport on endpoint e has auth.
func proxyAuth(e, auth string) string {
	return transports(`{"type": "rawsocket", "endpoint": ` + e + `, "auth": ` + auth + `}`)
}

const (
	unixEndpoint = `{"type": "unix", "path": "router.sock"}`
	tcpEndpoint  = `{"type": "tcp", "port": 8442}`
)

var proxyRuleTests = []ruleTest{
	{"proxy route to an unknown connection", top(proxyWorker(`routes={"realm1": {"anonymous": "conn2"}}`)),
		w0 + ".routes.realm1.anonymous", `no connection "conn2" in the worker's connections (have: conn1)`},
	{"proxy route list to an unknown connection", top(proxyWorker(`routes={"realm1": {"anonymous": ["conn1", "x"]}}`)),
		w0 + ".routes.realm1.anonymous[1]", `no connection "x"`},
	{"proxy route empty list", top(proxyWorker(`routes={"realm1": {"anonymous": []}}`)),
		w0 + ".routes.realm1.anonymous", "must name at least one connection"},
	{"proxy route realm invalid", top(proxyWorker(`routes={"realm 1": {"anonymous": "conn1"}}`)),
		w0 + `.routes["realm 1"]`, `invalid realm URI "realm 1"`},
	{"proxy route not an object", top(proxyWorker(`routes={"realm1": "conn1"}`)),
		w0 + ".routes.realm1", "must be an object"},
	{"proxy connection without transport", top(proxyWorker(`connections={"conn1": {}}`)),
		w0 + ".connections.conn1.transport", "required"},
	{"proxy connection transport type", top(proxyWorker(`connections={"conn1": {"transport": {"type": "mqtt"}}}`)),
		w0 + ".connections.conn1.transport.type", `unknown component transport type "mqtt"`},
	{"proxy connection unknown key", top(proxyWorker(`connections={"conn1": {"transport": {"type": "rawsocket", "endpoint": ` + unixEndpoint + `}, "realm": "realm1"}}`)),
		w0 + ".connections.conn1.realm", "unknown key"},
	{"proxy connection anonymous over tcp", top(proxyWorker(`connections={"conn1": ` + tcpConn(`{"anonymous-proxy": {"type": "static"}}`) + `}`)),
		w0 + ".connections.conn1.transport.endpoint", "anonymous-proxy logs in over a Unix socket only"},
	{"proxy connection default login over tcp", top(proxyWorker(`connections={"conn1": {"transport": {"type": "rawsocket", "endpoint": {"type": "tcp", "host": "h", "port": 1}}}}`)),
		w0 + ".connections.conn1.transport.endpoint", "anonymous-proxy logs in over a Unix socket only"},
	{"proxy connection unknown login", top(proxyWorker(`connections={"conn1": ` + tcpConn(`{"ticket": {"type": "static"}}`) + `}`)),
		w0 + ".connections.conn1.auth.ticket", "unknown key"},
	{"proxy connection no login", top(proxyWorker(`connections={"conn1": ` + tcpConn(`{}`) + `}`)),
		w0 + ".connections.conn1.auth", "must name anonymous-proxy or cryptosign-proxy"},
	{"proxy connection login type", top(proxyWorker(`connections={"conn1": ` + tcpConn(`{"cryptosign-proxy": {"type": "dynamic"}}`) + `}`)),
		w0 + ".connections.conn1.auth.cryptosign-proxy.type", `unknown type "dynamic"`},
	{"proxy mqtt transport", top(proxyWorker(`transports=[{"type": "mqtt", "endpoint": {"type": "tcp", "port": 1883}, "options": {"realm": "realm1"}}]`)),
		w0 + ".transports[0].type", "not supported in a proxy worker: mqtt"},
	{"proxy universal mqtt", top(proxyWorker(`transports=[{"type": "universal", "endpoint": {"type": "tcp", "port": 8080},
		"mqtt": {"options": {"realm": "realm1"}}}]`)), w0 + ".transports[0].mqtt", "not supported in a proxy worker: mqtt"},
	{"proxy client logs in as a proxy", top(proxyWorker(`transports=[{"type": "rawsocket", "endpoint": ` + unixEndpoint + `, "auth": {"anonymous-proxy": {"type": "static"}}}]`)),
		w0 + ".transports[0].auth", "a proxy worker's clients cannot log in as proxies"},
	{"proxy unknown key", top(proxyWorker(`"realms": []`)), w0 + ".realms", "unknown key"},
	{"proxy bridge service on a realm without a route", top(proxyWorker(`transports=[{"type": "web", "endpoint": {"type": "tcp", "port": 8080},
		"paths": {"call": {"type": "caller", "realm": "realm2", "role": "anonymous"}}}]`)), w0 + ".transports[0].paths.call.realm", `realm "realm2" is not defined`},
	{"anonymous-proxy over tcp", proxyAuth(tcpEndpoint, `{"anonymous-proxy": {"type": "static"}}`),
		t0 + ".auth.anonymous-proxy", "allowed on a Unix socket transport only"},
	{"anonymous-proxy dynamic", proxyAuth(unixEndpoint, `{"anonymous-proxy": {"type": "dynamic", "authenticator": "a.b"}}`),
		t0 + ".auth.anonymous-proxy.type", `unknown authentication type "dynamic" for anonymous-proxy`},
	{"cryptosign-proxy principal keys", proxyAuth(tcpEndpoint, `{"cryptosign-proxy": {"type": "static", "principals": {"p": {"role": "anonymous", "authorized_keys": ["ab"]}}}}`),
		t0 + ".auth.cryptosign-proxy.principals.p.authorized_keys[0]", "must be 64 hex digits"},
}

func TestProxyRules(t *testing.T) {
	for _, tt := range proxyRuleTests {
		t.Run(tt.name, func(t *testing.T) { wantProblem(t, tt.doc, tt.path, tt.msg, false) })
	}
}

func TestProxyWorker(t *testing.T) {
	routes := `routes={"realm1": {"anonymous": "conn1", "user": ["conn1", "conn2"]}, "realm2": {"anonymous": "conn2"}}`
	conns := `connections={"conn1": ` + unixConn + `, "conn2": ` + tcpConn(`{"cryptosign-proxy": {"type": "static"}}`) + `}`
	c, warns := mustParse(t, top(proxyWorker(routes, conns, `"options": {"title": "p"}`)))
	w := c.Workers[0].(*ProxyWorker)
	want := []ProxyRoute{{"realm1", "anonymous", []string{"conn1"}}, {"realm1", "user", []string{"conn1", "conn2"}}, {"realm2", "anonymous", []string{"conn2"}}}
	if len(w.Routes) != len(want) {
		t.Fatalf("routes = %v, want %v", w.Routes, want)
	}
	for i, r := range w.Routes {
		if r.Realm != want[i].Realm || r.Role != want[i].Role || !slices.Equal(r.Connections, want[i].Connections) {
			t.Errorf("routes[%d] = %+v, want %+v", i, *r, want[i])
		}
	}
	if m := w.Connections["conn1"].Methods; !slices.Equal(m, []string{AnonymousProxy}) {
		t.Errorf("conn1 logs in with %v, want anonymous-proxy (the default)", m)
	}
	if m := w.Connections["conn2"].Methods; !slices.Equal(m, []string{CryptosignProxy}) {
		t.Errorf("conn2 logs in with %v, want cryptosign-proxy", m)
	}
	if !strings.Contains(warningsText(warns), "workers[0].options.title") {
		t.Errorf("warnings:\n%s\nwant the title ignored", warningsText(warns))
	}
}

func TestProxyConnectionWebSocketURL(t *testing.T) {
	conn := `connections={"conn1": {"transport": {"type": "rawsocket", "endpoint": ` + unixEndpoint + `, "url": "ws://localhost", "serializer": "cbor"}}}`
	wantProblem(t, top(proxyWorker(conn)), w0+".connections.conn1.transport.url", "ignored: a WebSocket URL on a RawSocket connection", true)
}

func TestRouterProxyLogins(t *testing.T) {
	c, _ := mustParse(t, proxyAuth(unixEndpoint, `{"anonymous-proxy": {"type": "static"},
		"cryptosign-proxy": {"type": "dynamic", "authenticator": "com.example.auth"}}`))
	a := c.Workers[0].(*RouterWorker).Transports[0].(*RawSocketTransport).Auth
	if !a.AnonymousProxy || a.CryptosignProxy == nil || a.CryptosignProxy.Dynamic == nil {
		t.Fatalf("auth = %+v, want anonymous-proxy and a dynamic cryptosign-proxy", a)
	}
}

func TestSharedProxyWorkers(t *testing.T) {
	shared := `transports=[{"type": "web", "endpoint": {"type": "tcp", "port": 8080, "shared": true}, "paths": {"ws": {"type": "websocket"}}}]`
	c, warns := mustParse(t, top(proxyWorker(shared), proxyWorker(shared)))
	if got := c.Workers[1].(*ProxyWorker).RunsAs; got != "workers[0]" {
		t.Fatalf("workers[1].RunsAs = %q, want workers[0]", got)
	}
	if !strings.Contains(warningsText(warns), "runs as one proxy with it") {
		t.Errorf("warnings:\n%s\nwant the merge", warningsText(warns))
	}
	other := proxyWorker(shared, `routes={"realm2": {"anonymous": "conn1"}}`)
	wantProblem(t, top(proxyWorker(shared), other), "workers[1].transports[0].endpoint", `but the workers differ in "routes"`, false)
	router := `{"type": "router", ` + testRealms + `, "transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 8080, "shared": true}, "paths": {"ws": {"type": "websocket"}}}]}`
	wantProblem(t, top(router, proxyWorker(shared)), "workers[1].transports[0].endpoint", `but the workers differ in`, false)
}
