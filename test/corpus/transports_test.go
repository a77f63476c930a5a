package corpus_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/longpoll"
	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"github.com/junction-wamp/junction/wamp"
)

// The checks in Go of the nodes of issue 14's features: long-poll,
// flash policy, archives, shared ports and router links.

// joinLongPoll joins realm over the long-poll service at url speaking
// protocol, anonymously; the session leaves when the test ends.
func joinLongPoll(t *testing.T, url, protocol string, realm wamp.URI) *client.Session {
	t.Helper()
	return joinWith(t, url, realm, func(ctx context.Context) (wamp.Peer, error) {
		return longpoll.Dial(ctx, url, protocol, nil)
	})
}

// subscribeEvents subscribes s to topic; the events' arguments come on the
// channel returned (events past its buffer are dropped).
func subscribeEvents(t *testing.T, s *client.Session, topic wamp.URI) <-chan wamp.List {
	t.Helper()
	ch := make(chan wamp.List, 64)
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	if _, err := s.Subscribe(ctx, topic, func(ev *client.Event) {
		select {
		case ch <- ev.Args:
		default:
		}
	}, nil); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return ch
}

// nextEvent is the next event's arguments from ch, or the test fails.
func nextEvent(t *testing.T, ch <-chan wamp.List, what string) wamp.List {
	t.Helper()
	select {
	case args := <-ch:
		return args
	case <-time.After(goTimeout):
		t.Fatalf("no %s within %s", what, goTimeout)
		return nil
	}
}

// callGo calls procedure on s; the call must succeed.
func callGo(t *testing.T, s *client.Session, procedure wamp.URI, args ...any) *client.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	res, err := s.Call(ctx, procedure, wamp.List(args), nil)
	if err != nil {
		t.Fatalf("call %s: %v", procedure, err)
	}
	return res
}

// asJSON is v as JSON text, to compare what different serializers decoded.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// longpollVotes votes over long-poll (JSON) while a batched MessagePack
// long-poll client and a WebSocket client see the votes published.
func longpollVotes(t *testing.T, r *nodeRun) {
	lp := "http://" + r.addr + "/lp"
	voter := joinLongPoll(t, lp, "wamp.2.json", "crossbardemo")
	watcher := joinLongPoll(t, lp, "wamp.2.msgpack.batched", "crossbardemo")
	ws := joinGo(t, "ws://"+r.addr+"/ws", "crossbardemo")
	lpEvents := subscribeEvents(t, watcher, "io.crossbar.demo.vote.onvote")
	wsEvents := subscribeEvents(t, ws, "io.crossbar.demo.vote.onvote")
	res := callGo(t, voter, "io.crossbar.demo.vote.vote", "Banana")
	want := `[{"subject":"Banana","votes":1}]`
	if got := asJSON(t, res.Args); got != want {
		t.Fatalf("vote over long-poll: %s, want %s", got, want)
	}
	if got := asJSON(t, nextEvent(t, lpEvents, "onvote over long-poll")); got != want {
		t.Errorf("onvote over long-poll (msgpack batched): %s, want %s", got, want)
	}
	if got := asJSON(t, nextEvent(t, wsEvents, "onvote over WebSocket")); got != want {
		t.Errorf("onvote over WebSocket: %s, want %s", got, want)
	}
	res = callGo(t, voter, "io.crossbar.demo.vote.get")
	if got := asJSON(t, res.Args); !strings.Contains(got, `{"subject":"Banana","votes":1}`) ||
		!strings.Contains(got, `{"subject":"Lemon","votes":1}`) {
		t.Errorf("the counts after a vote over WebSocket (the client's) and one over long-poll: %s", got)
	}
}

// longpollCounter gets the backend's counter and calls it over batched
// JSON long-poll, and sees an idle receive answered empty (the service's
// request_timeout).
func longpollCounter(t *testing.T, r *nodeRun) {
	lp := "http://" + r.addr + "/lp"
	s := joinLongPoll(t, lp, "wamp.2.json.batched", "realm1")
	counter := subscribeEvents(t, s, "com.example.oncounter")
	first := nextEvent(t, counter, "a counter event")
	second := nextEvent(t, counter, "a second counter event")
	if len(first) != 1 || len(second) != 1 || asJSON(t, first) == asJSON(t, second) {
		t.Errorf("counter events %v then %v, want two counts", first, second)
	}
	if got := asJSON(t, callGo(t, s, "com.example.add2", 2, 3).Args); got != "[5]" {
		t.Errorf("add2(2, 3) over long-poll = %s, want [5]", got)
	}
	id := lpOpen(t, lp, "wamp.2.json")
	status, body := lpPost(t, lp+"/"+id+"/receive", "")
	if status != http.StatusOK || body != "" {
		t.Errorf("an idle receive: %d %q, want 200 with no body after request_timeout", status, body)
	}
	if status, _ := lpPost(t, lp+"/"+id+"/close", ""); status != http.StatusNoContent {
		t.Errorf("close: %d, want 204", status)
	}
}

// lpPost POSTs body to url and returns the status and the body.
func lpPost(t *testing.T, url, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// lpOpen opens a long-poll transport at the service lp and returns its ID.
func lpOpen(t *testing.T, lp, protocol string) string {
	t.Helper()
	status, body := lpPost(t, lp+"/open", `{"protocols": ["`+protocol+`"]}`)
	var open struct{ Transport, Protocol string }
	if err := json.Unmarshal([]byte(body), &open); status != http.StatusOK || err != nil || open.Protocol != protocol {
		t.Fatalf("open: %d %q (%v), want 200 with protocol %s", status, body, err, protocol)
	}
	return open.Transport
}

// longpollCurl speaks WAMP over the long-poll service with plain HTTP
// requests, as the example does with curl, on the debug transport ID.
func longpollCurl(t *testing.T, r *nodeRun) {
	lp := "http://" + r.addr + "/lp"
	id := lpOpen(t, lp, "wamp.2.json")
	if id != "kjmd3sBLOUnb3Fyr" {
		t.Fatalf("open: transport %q, want the debug_transport_id", id)
	}
	base := lp + "/" + id
	send := func(msg string) {
		if status, body := lpPost(t, base+"/send", msg); status != http.StatusNoContent {
			t.Fatalf("send %s: %d %q, want 204", msg, status, body)
		}
	}
	receive := func(what, prefix string) {
		status, body := lpPost(t, base+"/receive", "")
		if status != http.StatusOK || !strings.HasPrefix(body, prefix) {
			t.Fatalf("receive %s: %d %q, want 200 with %s...", what, status, body, prefix)
		}
	}
	send(`[1, "realm1", {"roles": {"publisher": {}, "subscriber": {}}}]`)
	receive("WELCOME", "[2,")
	send(`[32, 1, {}, "com.example.topic"]`)
	receive("SUBSCRIBED", "[33,1,")
	send(`[16, 2, {"acknowledge": true, "exclude_me": false}, "com.example.topic", ["hello from curl"]]`)
	status, body := lpPost(t, base+"/receive", "")
	if status != http.StatusOK || !strings.Contains(body, `"hello from curl"`) && !strings.HasPrefix(body, "[17,2,") {
		t.Fatalf("receive PUBLISHED or EVENT: %d %q", status, body)
	}
	if status, _ := lpPost(t, base+"/close", ""); status != http.StatusNoContent {
		t.Errorf("close: %d, want 204", status)
	}
	if status, _ := lpPost(t, base+"/receive", ""); status != http.StatusNotFound {
		t.Errorf("receive after close: %d, want 404", status)
	}
}

// flashPolicy asks the node's second transport for the policy, as Flash
// does, and joins over the web transport.
func flashPolicy(t *testing.T, r *nodeRun) {
	joinGo(t, "ws://"+r.addr+"/ws", "realm1")
	addr := r.node.Addr(nodeproc.Transport(0, 1))
	c, err := net.DialTimeout("tcp", addr, goTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(goTimeout)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("<policy-file-request/>\x00")); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	want := `<?xml version="1.0"?><cross-domain-policy><allow-access-from domain="example.com" to-ports="8080,9000" />` +
		"</cross-domain-policy>\x00"
	if err != nil || string(got) != want {
		t.Errorf("policy: %q (%v), want %q", got, err, want)
	}
}

// freePort finds a free TCP port on 127.0.0.1 for the shared port of
// shared-workers and proxy (port 0 would give each worker a port of its
// own) and passes it as PORT. The node cannot inherit the listener, so
// it is closed here, and another process may take the port before the
// node listens: startNode then starts the node again with another.
func freePort(t *testing.T, _ string) []string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return []string{"PORT=" + port}
}

// TestPortTaken: when the port freePort found is taken before the node
// listens on it (here by a listener the test holds), startNode prepares
// and starts the node again, with another port.
func TestPortTaken(t *testing.T) {
	harness.RequireDeps(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, takenPort, _ := net.SplitHostPort(taken.Addr().String())
	i := slices.IndexFunc(corpus, func(c corpusNode) bool { return c.name == "shared-workers" })
	c, prepared := corpus[i], 0
	c.prepare = func(t *testing.T, dir string) []string {
		if prepared++; prepared == 1 {
			return []string{"PORT=" + takenPort}
		}
		return freePort(t, dir)
	}
	n := startNode(t, c, copyNode(t, c.name))
	_, port, _ := net.SplitHostPort(n.Addr(nodeproc.Transport(0, 0)))
	if prepared != 2 || port == takenPort || port == "" {
		t.Errorf("prepared %d times, listening on port %q (taken: %s), want twice and another port", prepared, port, takenPort)
	}
}

// sharedWorkers checks that the three identical workers run as one
// router: one listening line, and sessions on the port see each other.
func sharedWorkers(t *testing.T, r *nodeRun) {
	if addrs := r.node.Addrs(); len(addrs) != 1 {
		t.Errorf("listening transports %v, want the one of workers[0]", addrs)
	}
	a := joinGo(t, "ws://"+r.addr+"/ws", "realm1")
	b := joinGo(t, "ws://"+r.addr+"/ws", "realm1")
	events := subscribeEvents(t, a, "com.example.topic")
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	if _, err := b.Publish(ctx, "com.example.topic", wamp.List{"one router"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, nextEvent(t, events, "the event")); got != `["one router"]` {
		t.Errorf("event %s", got)
	}
	if got := getBody(t, "http://"+r.addr+"/info"); got != `{"node":"benchmark"}` {
		t.Errorf("GET /info: %q", got)
	}
}

// getBody GETs url, which must answer 200, and returns the body.
func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %q", url, resp.StatusCode, err, b)
	}
	return strings.TrimSpace(string(b))
}

// webApp is the web app the archive nodes serve: entry name -> content.
var webApp = map[string]string{
	"index.html":    "<!DOCTYPE html>\n<html><body><h1>From the archive</h1></body></html>\n",
	"js/app.min.js": "console.log(\"app\");\n",
	"app.wasm":      "\x00asm\x01\x00\x00\x00",
}

// zipOf is a ZIP archive of files, each below prefix ("" for none).
func zipOf(t *testing.T, prefix string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, content := range files {
		f, err := w.Create(strings.TrimPrefix(prefix+"/"+name, "/"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(f, content); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sha256Hex is the hex SHA-256 digest of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// archiveLocal writes web.zip (the app below dist/) into the node
// directory, as a deployment would, and gives its digest to the config.
func archiveLocal(t *testing.T, dir string) []string {
	b := zipOf(t, "dist", webApp)
	if err := os.WriteFile(filepath.Join(dir, "web.zip"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"WEB_ZIP_SHA256=" + sha256Hex(b)}
}

// archiveServed GETs the web app's entries from the archive at the root
// of the node's web transport, with their content types.
func archiveServed(t *testing.T, r *nodeRun) {
	types := map[string]string{"index.html": "text/html", "js/app.min.js": "text/javascript", "app.wasm": "application/wasm"}
	for name, content := range webApp {
		resp, err := http.Get("http://" + r.addr + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		ctype := resp.Header.Get("Content-Type")
		if err != nil || resp.StatusCode != http.StatusOK || string(b) != content || !strings.HasPrefix(ctype, types[name]) {
			t.Errorf("GET /%s: %d %s %q (%v), want 200 %s with the entry", name, resp.StatusCode, ctype, b, err, types[name])
		}
	}
	if got := getBody(t, "http://"+r.addr+"/"); got != strings.TrimSpace(webApp["index.html"]) {
		t.Errorf("GET /: %q, want the default object", got)
	}
	joinGo(t, "ws://"+r.addr+"/ws", "realm1")
}

// archiveOrigin serves the web app's ZIP from a local HTTP server, the
// config's origin, for the node to download at start.
func archiveOrigin(t *testing.T, _ string) []string {
	b := zipOf(t, "", webApp)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/releases/webapp.zip" {
			http.NotFound(w, req)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return []string{"WEBAPP_ORIGIN=" + srv.URL + "/releases/webapp.zip", "WEBAPP_SHA256=" + sha256Hex(b)}
}

// archiveDownloaded checks that the node downloaded the archive into the
// node directory and serves it, with the SPA fallback.
func archiveDownloaded(t *testing.T, r *nodeRun) {
	if _, err := os.Stat(filepath.Join(r.dir, "download", "webapp.zip")); err != nil {
		t.Errorf("the downloaded archive: %v", err)
	}
	archiveServed(t, r)
	if got := getBody(t, "http://"+r.addr+"/some/route"); got != strings.TrimSpace(webApp["index.html"]) {
		t.Errorf("GET /some/route: %q, want index.html (options.default_file)", got)
	}
}

// routerLinks starts the second node of rlinks once the first has made
// its node key, with that key as a cryptosign principal, and checks that
// events and calls cross the link both ways, each event once.
func routerLinks(t *testing.T, r *nodeRun) {
	pub := nodeKey(t, filepath.Join(r.dir, ".crossbar", "key.pub"))
	n2 := harness.StartIn(t, filepath.Join(r.dir, "node2"), nodeproc.Options{
		Name: "node2", Env: append(nodeEnv(t), "NODE1_PUBKEY="+pub)})
	r.node.WaitLog(t, "the link to node2", 1, nodeproc.MsgIs("router link ready"))
	s1 := joinGo(t, "ws://"+r.addr+"/ws", "realm1")
	s2 := joinGo(t, "ws://"+n2.Addr(nodeproc.Transport(0, 0))+"/ws", "realm1")
	ev1 := subscribeEvents(t, s1, "com.example.on_node2")
	ev2 := subscribeEvents(t, s2, "com.example.on_node1")
	register(t, s1, "com.example.node1.echo", "node1")
	register(t, s2, "com.example.node2.echo", "node2")
	if got := asJSON(t, callRetry(t, s1, "com.example.node2.echo").Args); got != `["node2"]` {
		t.Errorf("node1 calls node2: %s", got)
	}
	if got := asJSON(t, callRetry(t, s2, "com.example.node1.echo").Args); got != `["node1"]` {
		t.Errorf("node2 calls node1: %s", got)
	}
	publishUntil(t, s1, "com.example.on_node1", ev2)
	publishUntil(t, s2, "com.example.on_node2", ev1)
}

// nodeKey reads the public key (hex) from a Crossbar key.pub file.
func nodeKey(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the node key: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, ok := strings.CutPrefix(sc.Text(), "public-key-ed25519:"); ok {
			return strings.TrimSpace(k)
		}
	}
	t.Fatalf("%s has no public-key-ed25519", path)
	return ""
}

// register registers procedure on s, answering name.
func register(t *testing.T, s *client.Session, procedure wamp.URI, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	if _, err := s.Register(ctx, procedure, func(context.Context, *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{name}}, nil
	}, nil); err != nil {
		t.Fatalf("register %s: %v", procedure, err)
	}
}

// callRetry calls procedure until it is registered (the link mirrors a
// registration soon after it is made) or goTimeout passes.
func callRetry(t *testing.T, s *client.Session, procedure wamp.URI) *client.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		res, err := s.Call(ctx, procedure, nil, nil)
		if err == nil {
			return res
		}
		select {
		case <-ctx.Done():
			t.Fatalf("call %s: %v", procedure, err)
		case <-tick.C:
		}
	}
}

// publishUntil publishes on topic until an event arrives on events (the
// link mirrors a subscription soon after it is made); then no second copy
// of that event may come.
func publishUntil(t *testing.T, s *client.Session, topic wamp.URI, events <-chan wamp.List) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		if _, err := s.Publish(ctx, topic, wamp.List{n}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatalf("publish %s: %v", topic, err)
		}
		select {
		case args := <-events:
			last := beforeMark(t, s, topic, events)
			if asJSON(t, args) == last {
				t.Errorf("%s: event %s came twice", topic, last)
			}
			return
		case <-ctx.Done():
			t.Fatalf("no event of %s across the link within %s", topic, goTimeout)
		case <-tick.C:
		}
	}
}

// beforeMark publishes a last, marked event on topic and returns what
// arrived before it: every event is delivered in order, so a second copy
// of an earlier one would come before the mark.
func beforeMark(t *testing.T, s *client.Session, topic wamp.URI, events <-chan wamp.List) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	if _, err := s.Publish(ctx, topic, wamp.List{"mark"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	last := ""
	for {
		got := asJSON(t, nextEvent(t, events, "the mark"))
		if got == `["mark"]` {
			return last
		}
		last = got
	}
}

// proxyCaller checks the proxy's caller path: its session joins through
// the proxy (in the background, once the backend listens), as its role.
func proxyCaller(t *testing.T, r *nodeRun) {
	r.node.WaitLog(t, "the caller's session through the proxy", 1,
		nodeproc.MsgIs("client: joined", "path", "workers[0].transports[0].paths.call"))
	resp, err := http.Post("http://"+r.addr+"/call", "application/json", strings.NewReader(`{"procedure": "com.example.whoami"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"authrole":"restbridge"`) {
		t.Errorf("POST /call: %d %s, want the backend's answer naming role restbridge", resp.StatusCode, b)
	}
}
