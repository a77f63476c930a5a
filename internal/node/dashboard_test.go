package node

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/internal/web"
)

// dashboardDoc is a node with realm1 and realm2, and a web transport on
// 127.0.0.1 with the dashboard at "/", WAMP at "/ws" and a caller at
// "/call" (paths: more members of "paths", "" for none).
func dashboardDoc(paths string) string {
	if paths != "" {
		paths = ", " + paths
	}
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]},
		           {"name": "realm2", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"/": {"type": "dashboard"}, "ws": {"type": "websocket"},
			          "call": {"type": "caller", "realm": "realm1", "role": "anonymous"}` + paths + `}}]}]}`
}

// dashboardJSON gets the dashboard's JSON at url.
func dashboardJSON(t *testing.T, url string) web.Dashboard { return getJSON[web.Dashboard](t, url) }

// TestDashboardData: the dashboard's JSON shows the realms with their
// counts, a realm's sessions a page at a time (the caller's embedded
// session among them, "local" with no peer), its registrations and
// subscriptions.
func TestDashboardData(t *testing.T) {
	n := start(t, parse(t, dashboardDoc(""), nil), t.TempDir())
	addr := address(t, n, web0)
	cfg := client.Config{Realm: "realm1"}
	a := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, cfg)
	b := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, cfg)
	echo(t, a, "com.example.echo")
	if _, err := b.Subscribe(testCtx(t), "com.example.topic", func(*client.Event) {}, nil); err != nil {
		t.Fatal(err)
	}
	mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm2"})

	d := dashboardJSON(t, "http://"+addr+"/?page_size=2")
	want := []web.DashboardRealm{{Name: "realm1", Sessions: 3, Registrations: 1, Subscriptions: 1}, {Name: "realm2", Sessions: 1}}
	if len(d.Realms) != 2 || d.Realms[0] != want[0] || d.Realms[1] != want[1] {
		t.Errorf("realms %+v, want %+v", d.Realms, want)
	}
	if d.ProxyWorkers == nil || len(d.ProxyWorkers) != 0 {
		t.Errorf("proxy workers %#v, want none (an empty list)", d.ProxyWorkers)
	}
	if d.Version == "" || d.Started.IsZero() || d.Now.Before(d.Started) {
		t.Errorf("version %q started %v now %v", d.Version, d.Started, d.Now)
	}
	r := d.Realm
	if r == nil || r.Name != "realm1" || r.SessionsTotal != 3 || r.Page != 1 || r.Pages != 2 || len(r.Sessions) != 2 {
		t.Fatalf("realm detail %+v", r)
	}
	// Oldest first: the caller's session joined when the node started.
	if s := r.Sessions[0]; s.Transport != "local" || s.Peer != "" || s.AuthRole != "anonymous" {
		t.Errorf("first session %+v, want the caller's embedded one", s)
	}
	if s := r.Sessions[1]; s.Transport != "websocket" || !strings.HasPrefix(s.Peer, "127.0.0.1:") || s.ID != uint64(a.ID()) || s.Joined.IsZero() {
		t.Errorf("second session %+v, want a's", s)
	}
	if len(r.Registrations) != 1 || r.Registrations[0].Procedure != "com.example.echo" || r.Registrations[0].Callees != 1 ||
		len(r.Subscriptions) != 1 || r.Subscriptions[0].Topic != "com.example.topic" || r.Subscriptions[0].Subscribers != 1 {
		t.Errorf("registrations %+v subscriptions %+v", r.Registrations, r.Subscriptions)
	}
	// Past the last page: the last page.
	if r := dashboardJSON(t, "http://"+addr+"/?page=9&page_size=2").Realm; r.Page != 2 || len(r.Sessions) != 1 || r.Sessions[0].ID != uint64(b.ID()) {
		t.Errorf("page 9 of 2: %+v", r)
	}
	if r := dashboardJSON(t, "http://"+addr+"/?realm=realm2").Realm; r == nil || r.Name != "realm2" || r.SessionsTotal != 1 {
		t.Errorf("realm2: %+v", r)
	}
	if r := dashboardJSON(t, "http://"+addr+"/?realm=nope").Realm; r != nil {
		t.Errorf("unknown realm: %+v, want none", r)
	}
	// The router publishes on_leave once the session is gone from its realm.
	left := make(chan *client.Event, 1)
	if _, err := a.Subscribe(testCtx(t), "wamp.session.on_leave", func(ev *client.Event) { left <- ev }, nil); err != nil {
		t.Fatal(err)
	}
	b.Close()
	receive(t, left, "on_leave")
	if got := dashboardJSON(t, "http://"+addr+"/").Realms[0].Sessions; got != 2 {
		t.Errorf("after a leave: %d sessions, want 2", got)
	}
}

// TestDashboardStopsStreams: a live stream open at the node's stop ends,
// and the stop does not wait for its client.
func TestDashboardStopsStreams(t *testing.T) {
	n, err := New(parse(t, dashboardDoc(""), nil), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	stream := openStream(t, "http://"+address(t, n, web0)+"/events")
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatalf("Stop with a stream open: %v", err)
	}
	if err := drain(stream); !errors.Is(err, io.EOF) {
		t.Errorf("the stream did not end at the stop: %v", err)
	}
}

// TestReloadEndsDashboardStreams: a reload that replaces the path tree
// ends the live streams of the old tree's dashboard (a browser reconnects,
// to the new one), and the new dashboard streams.
func TestReloadEndsDashboardStreams(t *testing.T) {
	const dash = `"dash": {"type": "dashboard"}, `
	n := start(t, reloadConfig(t, reloadDoc, "PATHS", dash), t.TempDir())
	url := "http://" + address(t, n, web0) + "/dash/events"
	stream := openStream(t, url)
	rep := reload(t, n, "PATHS", dash+`"info": {"type": "json", "value": 1}, `)
	if got := paths(rep.Applied); !slices.Equal(got, []string{web0 + ".paths"}) {
		t.Fatalf("report %+v, want %s.paths replaced", rep, web0)
	}
	if err := drain(stream); !errors.Is(err, io.EOF) {
		t.Errorf("the old dashboard's stream did not end at the reload: %v", err)
	}
	openStream(t, url)
}

// openStream opens the dashboard's live stream at url, reads its first
// line, and returns the rest of it; it is closed at the end of the test.
func openStream(t *testing.T, url string) *bufio.Reader {
	t.Helper()
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		t.Fatalf("stream %s: %q %v", url, line, err)
	}
	return br
}

// drain reads stream until it ends (io.EOF when the server ended it), or
// the test's context does.
func drain(stream *bufio.Reader) error {
	for {
		if _, err := stream.ReadString('\n'); err != nil {
			return err
		}
	}
}

// TestDashboardBuildErrors: a require_ip entry that does not parse is an
// error at its path.
func TestDashboardBuildErrors(t *testing.T) {
	cfg := parse(t, dashboardDoc(`"ops": {"type": "dashboard", "options": {"require_ip": ["10.0.0.0/8", "nope"]}}`), nil)
	_, err := New(cfg, Options{Dir: t.TempDir()})
	var errs config.Errors
	if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Error() != web0+`.paths.ops.options.require_ip[1]: invalid IP address "nope"` {
		t.Errorf("New: %v", err)
	}
}

// TestDashboardRequireIP: with require_ip, the addresses listed are served
// and loopback is not unless listed.
func TestDashboardRequireIP(t *testing.T) {
	doc := dashboardDoc(`"ops": {"type": "dashboard", "options": {"require_ip": ["10.0.0.0/8"]}},
		"ops2": {"type": "dashboard", "options": {"require_ip": ["127.0.0.1"]}}`)
	n := start(t, parse(t, doc, nil), t.TempDir())
	addr := address(t, n, web0)
	for path, want := range map[string]int{"/ops/": 403, "/ops2/": 200, "/": 200} {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://"+addr+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestDashboardServices: the bridge services and REST components are
// listed with their realm and request counts, and a Subscriber with its
// queue.
func TestDashboardServices(t *testing.T) {
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]},
		           {"name": "realm2", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"/": {"type": "dashboard"}, "ws": {"type": "websocket"},
			          "call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
			          "pub": {"type": "publisher", "realm": "realm2", "role": "anonymous"}}}],
		"components": [{"type": "class", "classname": "crossbar.bridge.rest.MessageForwarder", "realm": "realm2",
			"extra": {"subscriptions": [{"topic": "com.example.fwd", "url": "http://127.0.0.1:9/fwd"}]}}]}]}`
	n := start(t, parse(t, doc, nil), t.TempDir())
	addr := address(t, n, web0)
	callee := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	echo(t, callee, "com.example.echo")
	post(t, "http://"+addr+"/call", `{"procedure": "com.example.echo", "args": [1]}`, nil)
	post(t, "http://"+addr+"/call", `not json`, nil)

	d := dashboardJSON(t, "http://"+addr+"/")
	if len(d.BridgeServices) != 3 {
		t.Fatalf("bridge services %+v, want call, pub and the Subscriber", d.BridgeServices)
	}
	byWhere := map[string]web.DashboardBridgeService{}
	for _, s := range d.BridgeServices {
		byWhere[s.Where] = s
	}
	if s := byWhere["/call"]; s.Type != "caller" || s.Path != web0+".paths.call" || s.Realm != "realm1" || s.Requests != 2 || s.Errors != 1 || s.MeanMillis <= 0 {
		t.Errorf("caller %+v, want 2 requests, 1 error", s)
	}
	if s := byWhere["/pub"]; s.Type != "publisher" || s.Realm != "realm2" || s.Requests != 0 {
		t.Errorf("publisher %+v", s)
	}
	if s := byWhere["workers[0].components[0]"]; s.Type != "subscriber" || s.Realm != "realm2" {
		t.Errorf("subscriber %+v", s)
	}
	if len(d.SubscriberQueues) != 1 || d.SubscriberQueues[0].Where != "workers[0].components[0]" || d.SubscriberQueues[0].Realm != "realm2" ||
		d.SubscriberQueues[0].Depth != 0 {
		t.Errorf("queues %+v", d.SubscriberQueues)
	}
}

// TestDashboardProxyWorker: a proxy worker is listed with its routes (in
// config order, each with its connections), the client sessions it
// relays by realm, and its joins and refusals by realm and authmethod,
// the realms no route takes as "other". The node's own sessions through it
// count too: the caller's on realm1 and the dynamic authenticator's on
// each realm it routes, all anonymous.
func TestDashboardProxyWorker(t *testing.T) {
	addr := startProxyDashboard(t)
	mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, alice)
	mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm2"})
	for _, cfg := range []client.Config{
		{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("wrong")}},
		{Realm: "realm3"},
	} {
		if _, err := joinWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, cfg); err == nil {
			t.Fatalf("join %+v: welcomed, want ABORT", cfg)
		}
	}

	d := dashboardJSON(t, "http://"+addr+"/dash/")
	if len(d.ProxyWorkers) != 1 {
		t.Fatalf("proxy workers %+v, want workers[1]", d.ProxyWorkers)
	}
	got, _ := json.Marshal(d.ProxyWorkers[0])
	want := `{"worker":"workers[1]",` +
		`"routes":[{"realm":"realm1","role":"anonymous","connections":["local"]},{"realm":"realm1","role":"user","connections":["local"]},` +
		`{"realm":"realm2","role":"anonymous","connections":["remote"]}],` +
		`"realms":[{"name":"realm1","sessions":3},{"name":"realm2","sessions":2}],` +
		`"joins":[{"realm":"realm1","authmethod":"anonymous","joined":2,"refused":0},` +
		`{"realm":"realm1","authmethod":"ticket","joined":1,"refused":1},` +
		`{"realm":"realm2","authmethod":"anonymous","joined":2,"refused":0},` +
		`{"realm":"other","authmethod":"anonymous","joined":0,"refused":1}]}`
	if string(got) != want {
		t.Errorf("proxy worker\n%s\nwant\n%s", got, want)
	}
}

// startProxyDashboard starts startProxyPair's nodes with a dashboard at
// "/dash" on the proxy worker's web transport, waits for the node's own
// sessions through the proxy, and returns that transport's address.
func startProxyDashboard(t *testing.T) string {
	t.Helper()
	dirA := t.TempDir()
	b := start(t, parse(t, backendDoc(nodePub(t, dirA)), nil), t.TempDir())
	doc := strings.Replace(proxyNodeDoc(address(t, b, "workers[0].transports[0]")),
		`"/": {"type": "nodeinfo"},`, `"/": {"type": "nodeinfo"}, "dash": {"type": "dashboard"},`, 1)
	a := start(t, parse(t, doc, nil), dirA)
	waitProxySessions(t, a)
	return address(t, a, "workers[1].transports[0]")
}
