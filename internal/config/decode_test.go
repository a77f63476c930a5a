package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/uriindex"
)

func TestDefaults(t *testing.T) {
	c, _ := mustParse(t, transports(
		`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 8081}}`,
		`{"type": "web", "endpoint": {"type": "unix", "path": "web.sock"}, "paths": {"ws": {"type": "websocket"}, "/": {"type": "static", "directory": "."}}}`,
	))
	if c.Version != 2 {
		t.Errorf("Version = %d", c.Version)
	}
	r := c.Workers[0].(*RouterWorker)
	realm := r.Realms[0]
	if !realm.Options.EnableMetaAPI || realm.Options.URICheck != "loose" || realm.Options.EventDispatchingChunkSize != 100 {
		t.Errorf("realm options = %+v", realm.Options)
	}
	raw := r.Transports[0].(*RawSocketTransport)
	wantEP := ListenEndpoint{Type: "tcp", Port: 8081, Backlog: 50, Version: 4}
	if raw.Endpoint != wantEP {
		t.Errorf("endpoint = %+v, want %+v", raw.Endpoint, wantEP)
	}
	if raw.MaxMessageSize != 1<<20 || !reflect.DeepEqual(raw.Serializers, Serializers) {
		t.Errorf("rawsocket = %+v", raw)
	}
	if !reflect.DeepEqual(raw.Auth, defaultAuth()) || raw.Auth.Anonymous.Role != "anonymous" {
		t.Errorf("auth = %+v", raw.Auth)
	}
	webT := r.Transports[1].(*WebTransport)
	if webT.Options.HSTSMaxAge != 365*24*time.Hour || webT.Options.ClientTimeout != 120*time.Second {
		t.Errorf("web options = %+v", webT.Options)
	}
	wsS := webT.Paths["ws"].(*WebSocketService)
	if !reflect.DeepEqual(wsS.Options, defaultWebSocketOptions()) || !reflect.DeepEqual(wsS.Serializers, Serializers) ||
		wsS.Options.CloseHandshakeTimeout != time.Second {
		t.Errorf("websocket service = %+v", wsS)
	}
	static := webT.Paths["/"].(*StaticService)
	if static.Options.CacheTimeout != 12*time.Hour || static.Options.EnableDirectoryListing {
		t.Errorf("static = %+v", static)
	}
}

func TestValues(t *testing.T) {
	c, _, err := Loader{LookupEnv: lookupTestEnv}.Load("testdata/container_bridge.json")
	if err != nil {
		t.Fatal(err)
	}
	r := c.Workers[0].(*RouterWorker)
	webT := r.Transports[0].(*WebTransport)
	if got := webT.Paths["/"].(*StaticService).Options; got.CacheTimeout != 0 || got.DefaultFile != "index.html" {
		t.Errorf("static options = %+v", got)
	}
	j := webT.Paths["info"].(*JSONService).Value.(map[string]any)
	if j["version"] != json.Number("1.5") || j["name"] != "demo" {
		t.Errorf("json value = %#v", j)
	}
	if webT.Paths["old"].(*RedirectService).URL != "https://example.com/" {
		t.Errorf("redirect = %+v", webT.Paths["old"])
	}
	if _, ok := webT.Paths["api"].(*PathTree).Paths["status"].(*NodeInfoService); !ok {
		t.Errorf("nested path = %+v", webT.Paths["api"])
	}
	rc := r.Components[0]
	if rc.Class != ClassMessageForwarder || rc.Role != "bridge" || rc.Transport != nil || rc.MessageForwarder == nil || len(rc.MessageForwarder.Subscriptions) == 0 {
		t.Errorf("router component = %+v", rc)
	}
	ctr := c.Workers[1].(*ContainerWorker)
	cc := ctr.Components[0]
	if cc.Class != ClassRESTCallee || cc.Classname != "crossbar.bridge.rest.RESTCallee" || cc.Realm != "realm1" {
		t.Errorf("container component = %+v", cc)
	}
	wantEP := ConnectEndpoint{Type: "tcp", Host: "127.0.0.1", Port: 8080, Version: 4, Timeout: 10 * time.Second}
	if cc.Transport.Type != "websocket" || cc.Transport.URL != "ws://127.0.0.1:8080/ws" || cc.Transport.Endpoint != wantEP {
		t.Errorf("component transport = %+v", cc.Transport)
	}
	if ctr.Shutdown != "shutdown-manual" || ctr.Restart != "restart-never" {
		t.Errorf("container options = %q %q", ctr.Shutdown, ctr.Restart)
	}
	if role := r.Realms[0].Roles[0]; !role.AllowByDefault || role.Permissions != nil {
		t.Errorf("role = %+v", role)
	}
}

func TestAuthValues(t *testing.T) {
	c, _, err := Loader{LookupEnv: lookupTestEnv}.Load("testdata/auth_rawsocket.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Controller.ID != "node1" || c.Controller.Title != "my node" {
		t.Errorf("controller = %+v", c.Controller)
	}
	r := c.Workers[0].(*RouterWorker)
	raw := r.Transports[0].(*RawSocketTransport)
	if raw.Endpoint.Port != 8081 || raw.Endpoint.Interface != "127.0.0.1" {
		t.Errorf("$BACKEND_PORT endpoint = %+v", raw.Endpoint)
	}
	if raw.Auth.Anonymous != nil || raw.Auth.Ticket != nil {
		t.Errorf("auth with wampcra only = %+v", raw.Auth)
	}
	want := map[string]WAMPCRAUser{
		"worker1": {Secret: "w0rk3r", Role: "backend", Iterations: 1000, KeyLen: 32},
		"worker2": {Secret: "prq7+YkJ1/KlW1X0YczMHw==", Role: "backend", Salt: "salt123", Iterations: 100, KeyLen: 16},
	}
	if !reflect.DeepEqual(raw.Auth.WAMPCRA.Users, want) {
		t.Errorf("wampcra users = %+v", raw.Auth.WAMPCRA.Users)
	}
	wsT := r.Transports[1].(*WebSocketTransport)
	if wsT.Auth.Ticket.Principals["joe"] != (TicketPrincipal{Ticket: "secret!!!", Role: "frontend"}) {
		t.Errorf("ticket = %+v", wsT.Auth.Ticket)
	}
	if p := wsT.Auth.Cryptosign.Principals["device1"]; p.Role != "frontend" || len(p.AuthorizedKeys) != 1 {
		t.Errorf("cryptosign = %+v", p)
	}
	if tls := wsT.Endpoint.TLS; tls == nil || tls.Key != "server.key" || tls.Certificate != "server.crt" {
		t.Errorf("tls = %+v", tls)
	}
	perms := r.Realms[0].Roles[0].Permissions
	if perms[0].URI != "com.example." || perms[0].Match != uriindex.Prefix || !perms[0].Allow.Call || perms[0].Allow.Publish {
		t.Errorf("starred permission = %+v", perms[0])
	}
	if perms[1].URI != "com.example..public" || perms[1].Match != uriindex.Wildcard {
		t.Errorf("wildcard permission = %+v", perms[1])
	}
}

func TestStarredURI(t *testing.T) {
	tests := []struct {
		in    string
		uri   string
		match uriindex.Match
	}{
		{"", "", uriindex.Exact},
		{"com.example.add", "com.example.add", uriindex.Exact},
		{"*", "", uriindex.Prefix},
		{"com.example.*", "com.example.", uriindex.Prefix},
		{"com.exam*", "com.exam", uriindex.Prefix},
		{"com.*.add", "com..add", uriindex.Wildcard},
		{"*.add", ".add", uriindex.Wildcard},
		{"com.*.*", "com..", uriindex.Wildcard},
	}
	for _, tt := range tests {
		uri, match := starredURI(tt.in)
		if uri != tt.uri || match != tt.match {
			t.Errorf("starredURI(%q) = %q, %v; want %q, %v", tt.in, uri, match, tt.uri, tt.match)
		}
	}
	// And through the decoder, with an explicit match left alone.
	c, _ := mustParse(t, perm(`{"uri": "com.*"}, {"uri": "a.*", "match": "exact"}, {"uri": "*"}`))
	ps := c.Workers[0].(*RouterWorker).Realms[0].Roles[0].Permissions
	if ps[0].URI != "com." || ps[0].Match != uriindex.Prefix || ps[1].URI != "a.*" || ps[1].Match != uriindex.Exact ||
		ps[2].URI != "" || ps[2].Match != uriindex.Prefix {
		t.Errorf("permissions = %+v %+v %+v", ps[0], ps[1], ps[2])
	}
}

func TestEnvPresent(t *testing.T) {
	c, _ := mustParse(t, transports(
		`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": "${PORT}", "shared": "${FLAG}"}}`,
		`{"type": "websocket", "endpoint": {"type": "tcp", "port": "$BACKEND_PORT"},
		  "auth": {"ticket": {"type": "static", "principals": {"joe": {"ticket": "${SECRET}", "role": "anonymous"}}}}}`,
		`{"type": "web", "endpoint": {"type": "tcp", "port": 1}, "paths": {"j": {"type": "json", "value": ["${SECRET}", "$SECRET", "a${SECRET}"]}}}`,
	))
	ts := c.Workers[0].(*RouterWorker).Transports
	if e := ts[0].(*RawSocketTransport).Endpoint; e.Port != 9090 || !e.Shared {
		t.Errorf("endpoint = %+v", e)
	}
	wsT := ts[1].(*WebSocketTransport)
	if wsT.Endpoint.Port != 8081 || wsT.Auth.Ticket.Principals["joe"].Ticket != "s3cr3t" {
		t.Errorf("websocket transport = %+v", wsT)
	}
	// Only a whole "${NAME}" string is substituted.
	v := ts[2].(*WebTransport).Paths["j"].(*JSONService).Value
	if want := []any{"s3cr3t", "$SECRET", "a${SECRET}"}; !reflect.DeepEqual(v, want) {
		t.Errorf("json value = %#v, want %#v", v, want)
	}
}

func TestEnvDefaultIsProcessEnvironment(t *testing.T) {
	t.Setenv("JUNCTION_CONFIG_TEST_PORT", "7070")
	c, _, err := Parse([]byte(endpoint(`{"type": "tcp", "port": "${JUNCTION_CONFIG_TEST_PORT}"}`)), JSON)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Workers[0].(*RouterWorker).Transports[0].(*WebSocketTransport).Endpoint.Port; p != 7070 {
		t.Errorf("port = %d", p)
	}
}

func TestWarnings(t *testing.T) {
	doc := top(
		`{"type": "router", "options": {"cpu_affinity": [0], "env": {"inherit": true}}, "manhole": {},
		  "connections": [{"id": "db", "type": "postgresql.connection", "host": "localhost"}],
		  "realms": [{"name": "realm1", "roles": [{"name": "x", "permissions": [{"uri": "a", "validate": {"call": "int"}}]}]}],
		  "transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 1}, "paths": {
		     "ws": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {"joe": {"ticket": "t", "role": "ghost"}}}}},
		     "api": {"type": "path", "paths": {"ws": {"type": "websocket"}}}}}]}`)
	_, warns := mustParse(t, doc)
	want := strings.Join([]string{
		`workers[0].connections: ignored: database connections, which Crossbar 21.3.1 checks and never opens either; a component or guest worker that needs a database opens it itself`,
		`workers[0].manhole: ignored: Python-only`,
		`workers[0].options.cpu_affinity: ignored: Python-only`,
		`workers[0].options.env: ignored: the worker has no Python component, function authenticator or Python web path to run`,
		`workers[0].realms[0].roles[0].permissions[0].validate: ignored: payload validation`,
		`workers[0].transports[0].paths.api.paths.ws.auth.anonymous.role: role "anonymous" is not defined in any realm of this router`,
		`workers[0].transports[0].paths.ws.auth.ticket.principals.joe.role: role "ghost" is not defined in any realm of this router`,
	}, "\n")
	if got := warningsText(warns); got != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, want)
	}
}

// TestManyErrors checks that every problem is reported, sorted by path
// (indexes numerically), with warnings still returned.
func TestManyErrors(t *testing.T) {
	var realms []string
	for i := 0; i < 11; i++ {
		realms = append(realms, `{"name": "r`+itoa(i)+`"}`)
	}
	realms[10] = `{"name": "a b"}`
	realms[2] = `{"nam": "x"}`
	doc := `{"version": 2, "zz": 1, "workers": [{"type": "router", "options": {"pythonpath": []}, "realms": [` + strings.Join(realms, ",") + `],
	  "transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 70000}, "serializers": ["json", "xml"]}]}]}`
	_, warns, errs := parseTest(t, doc, JSON)
	want := strings.Join([]string{
		`workers[0].realms[2].nam: unknown key (did you mean "name"?)`,
		`workers[0].realms[2].name: required`,
		`workers[0].realms[10].name: invalid realm URI "a b"`,
		`workers[0].transports[0].endpoint.port: must be in 0..65535, not 70000`,
		`workers[0].transports[0].serializers[1]: unknown serializer "xml" (want json, msgpack, cbor, ubjson)`,
		`zz: unknown key`,
	}, "\n")
	if errs.Error() != want {
		t.Errorf("errors:\n%v\nwant:\n%s", errs, want)
	}
	if len(warns) != 1 || warns[0].Path != "workers[0].options.pythonpath" {
		t.Errorf("warnings = %v", warns)
	}
}

func TestDefault(t *testing.T) {
	c := Default()
	r := c.Workers[0].(*RouterWorker)
	if len(r.Realms) != 1 || r.Realms[0].Name != "realm1" {
		t.Fatalf("realms = %+v", r.Realms)
	}
	role := r.Realms[0].Roles[0]
	want := &Permission{URI: "", Match: uriindex.Prefix, Cache: true,
		Allow: Allow{Call: true, Register: true, Publish: true, Subscribe: true}}
	if role.Name != "anonymous" || len(role.Permissions) != 1 || !reflect.DeepEqual(role.Permissions[0], want) {
		t.Errorf("role = %+v %+v", role, role.Permissions[0])
	}
	webT := r.Transports[0].(*WebTransport)
	if webT.Endpoint.Interface != "127.0.0.1" || webT.Endpoint.Port != 8080 {
		t.Errorf("endpoint = %+v", webT.Endpoint)
	}
	if _, ok := webT.Paths["/"].(*DashboardService); !ok {
		t.Errorf(`paths["/"] = %T`, webT.Paths["/"])
	}
	if _, ok := webT.Paths["ws"].(*WebSocketService); !ok {
		t.Errorf(`paths["ws"] = %T`, webT.Paths["ws"])
	}
	// Default returns a new copy every time.
	Default().Workers[0].(*RouterWorker).Realms[0].Name = "changed"
	if Default().Workers[0].(*RouterWorker).Realms[0].Name != "realm1" {
		t.Errorf("Default shares its Config")
	}
	if _, warns, err := Parse(DefaultJSON, JSON); err != nil || len(warns) != 0 {
		t.Errorf("DefaultJSON: %v, warnings %v", err, warns)
	}
}

func TestFieldErrorText(t *testing.T) {
	if got := (&FieldError{Msg: "invalid JSON: x"}).Error(); got != "config: invalid JSON: x" {
		t.Errorf("got %q", got)
	}
	if got := (Warning{Path: "a.b", Msg: "ignored"}).String(); got != "a.b: ignored" {
		t.Errorf("got %q", got)
	}
	paths := []string{"workers[10].id", "workers[2].id", "workers[2]", "version", "workers[02].x", "a"}
	es := Errors{}
	for _, p := range paths {
		es = append(es, &FieldError{Path: p, Msg: "m"})
	}
	sortErrors(es)
	var got []string
	for _, e := range es {
		got = append(got, e.Path)
	}
	want := []string{"a", "version", "workers[2]", "workers[2].id", "workers[02].x", "workers[10].id"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sorted = %q, want %q", got, want)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"transports", "realms", "options", "id", "type"}
	tests := map[string]string{
		"transport": "transports", "realm": "realms", "optoins": "options", "ID": "",
		"typ": "type", "xyz": "", "": "", strings.Repeat("a", 100): "",
	}
	for k, want := range tests {
		if got := suggest(k, known); got != want {
			t.Errorf("suggest(%q) = %q, want %q", k, got, want)
		}
	}
}
