package docs

import (
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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/wamp"
)

// seen is a request an HTTP test server received.
type seen struct {
	method, uri, body string
	header            http.Header
}

// recorder is an HTTP test server that records its requests; "/hello.txt"
// answers "hello\n" as text/plain, everything else 200 "ok".
func recorder(t *testing.T) (*httptest.Server, chan seen) {
	t.Helper()
	got := make(chan seen, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.RequestURI, string(b), r.Header.Clone()}
		if r.URL.Path == "/hello.txt" {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "hello\n")
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func next[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("no %s within %v", what, testTimeout)
		panic("unreachable")
	}
}

// bridgeExample is examples/bridge.json started, with its Callee and its
// reverse proxy pointed at api, its Subscriber at hook, and a WAMP client
// (the pages' autobahn-js snippets) joined over /ws.
type bridgeExample struct {
	base              string
	apiGot, hookGot   chan seen
	orders, github    chan *client.Event
	session           *client.Session
	slowCalls, slowed chan struct{}
}

func startBridgeExample(t *testing.T) *bridgeExample {
	api, apiGot := recorder(t)
	hook, hookGot := recorder(t)
	r := startExample(t, "bridge.json", func(cfg *config.Config) { pointBridge(t, cfg, api.URL, hook.URL) })
	addr := r.addr(t, "workers[0].transports[0]")
	ex := &bridgeExample{base: "http://" + addr, apiGot: apiGot, hookGot: hookGot,
		orders: make(chan *client.Event, 4), github: make(chan *client.Event, 4), slowed: make(chan struct{}, 1)}
	ex.session = must(t)(joinWS(t, "ws://"+addr+"/ws", client.Config{Realm: "realm1"}))
	ex.wampClient(t)
	return ex
}

// pointBridge points the example's upstream URLs at the test servers.
func pointBridge(t *testing.T, cfg *config.Config, api, hook string) {
	host, port, err := net.SplitHostPort(strings.TrimPrefix(api, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	web := cfg.Workers[0].(*config.RouterWorker).Transports[0].(*config.WebTransport)
	proxy := web.Paths["app"].(*config.ReverseProxyService)
	proxy.Host = host
	proxy.Port, _ = strconv.Atoi(port)
	comps := cfg.Workers[1].(*config.ContainerWorker).Components
	comps[0].RESTCallee.BaseURL = api
	comps[1].MessageForwarder.Subscriptions[0].URL = hook + "/orders"
}

// wampClient registers and subscribes what the pages' snippets do.
func (ex *bridgeExample) wampClient(t *testing.T) {
	_, err := ex.session.Register(testCtx(t), "com.example.add2", add2, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ex.session.Register(testCtx(t), "com.example.slow", func(ctx context.Context, _ *client.Invocation) (*client.Result, error) {
		<-ctx.Done() // canceled by the Caller's timeout
		ex.slowed <- struct{}{}
		return nil, ctx.Err()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	subscribe := func(topic wamp.URI, ch chan *client.Event, opts wamp.Dict) {
		if _, err := ex.session.Subscribe(testCtx(t), topic, func(ev *client.Event) { ch <- ev }, opts); err != nil {
			t.Fatal(err)
		}
	}
	subscribe("com.example.orders.", ex.orders, wamp.Dict{"match": "prefix"})
	subscribe("com.example.github", ex.github, nil)
}

// add2 is caller.md's com.example.add2.
func add2(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	if len(inv.Args) == 2 {
		a, okA := wamp.AsInt(inv.Args[0])
		b, okB := wamp.AsInt(inv.Args[1])
		if okA && okB {
			return &client.Result{Args: wamp.List{a + b}}, nil
		}
	}
	return nil, wamp.Errorf("com.example.error.not_a_number", "add2 takes two numbers")
}

// TestBridgeExampleCaller runs caller.md's commands.
func TestBridgeExampleCaller(t *testing.T) {
	ex := startBridgeExample(t)
	for _, c := range []curlCase{
		{`curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.add2","args":[2,3]}'`,
			200, `{"args":[5]}`},
		{`curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.add2","args":[2,"three"]}'`,
			200, `{"error":"com.example.error.not_a_number","args":["add2 takes two numbers"],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.nothing"}'`,
			200, `{"error":"wamp.error.no_such_procedure","args":["no callee registered for procedure \"com.example.nothing\""],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"org.other.proc"}'`,
			200, `{"error":"wamp.error.not_authorized","args":["session is not authorized to call \"org.other.proc\""],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/call -d '{"procedure":"com.example.add2","args":[2,3]}'`,
			400, `{"error":"Non-accepted content type. (must be 'application/json', not 'application/x-www-form-urlencoded')","args":[],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.slow","options":{"timeout":100}}'`,
			504, `{"error":"wamp.error.timeout","args":["canceled: no answer within 100ms"],"kwargs":{}}`},
	} {
		c.run(t, "caller.md", ex.base)
	}
	next(t, ex.slowed, "INTERRUPT of com.example.slow")

	resp, _ := send(t, curlRequest(t, "curl -s "+docBase+"/call", ex.base))
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST,PUT,OPTIONS" {
		t.Errorf("GET /call = %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestBridgeExampleSignedCaller runs caller.md's signed requests,
// computing the signature as the page's shell commands do.
func TestBridgeExampleSignedCaller(t *testing.T) {
	page := readPage(t, "caller.md")
	for _, line := range []string{
		`printf '%s' 'bazapp2011-10-14T16:59:51.123Z142{"topic":"a"}' | openssl dgst -sha256 -hmac foobar -binary | base64 | tr '+/' '-_'` + "\n# OLrA-qc63EavzktSdEPeLQ9_dHGIlxoYvEz9_6VhbPg=",
		`SIG=$(printf '%s' "$CALLER_KEY$TS$SEQ$NONCE$BODY" | openssl dgst -sha256 -hmac "$CALLER_SECRET" -binary | base64 | tr '+/' '-_')`,
		`URL="http://127.0.0.1:8080/signed?key=$CALLER_KEY&timestamp=$TS&seq=$SEQ&nonce=$NONCE&signature=$SIG"`,
	} {
		if !strings.Contains(page, line) {
			t.Errorf("caller.md does not show %s", line)
		}
	}
	if got := sign("foobar", "bazapp2011-10-14T16:59:51.123Z142"+`{"topic":"a"}`); got != "OLrA-qc63EavzktSdEPeLQ9_dHGIlxoYvEz9_6VhbPg=" {
		t.Errorf("test vector: %s", got)
	}

	ex := startBridgeExample(t)
	key, secret := exampleEnv["CALLER_KEY"], exampleEnv["CALLER_SECRET"]
	body := `{"procedure":"com.example.add2","args":[2,3]}`
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	nonce := strconv.FormatInt(time.Now().UnixNano()%(1<<32), 10)
	sig := sign(secret, key+ts+"1"+nonce+body)
	url := fmt.Sprintf("%s/signed?key=%s&timestamp=%s&seq=1&nonce=%s&signature=%s", ex.base, key, ts, nonce, sig)
	tests := []struct {
		url    string
		status int
		want   string
	}{
		{url, 200, `{"args":[5]}`},
		{url, 401, `{"error":"REST bridge signature was invalid (nonce already used).","args":[],"kwargs":{}}`},
		{ex.base + "/signed", 400, `{"error":"REST bridge signature was invalid (missing mandatory field - 'key' field missing).","args":[],"kwargs":{}}`},
		{strings.Replace(url, "nonce="+nonce, "nonce=1"+nonce, 1), 401, `{"error":"REST bridge signature secret not valid.","args":[],"kwargs":{}}`},
	}
	for _, tt := range tests {
		req, _ := http.NewRequestWithContext(testCtx(t), "POST", tt.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, got := send(t, req)
		if resp.StatusCode != tt.status || got != tt.want {
			t.Errorf("POST %s\n= %d %s\nwant %d %s", tt.url, resp.StatusCode, got, tt.status, tt.want)
		}
		var e struct{ Error string }
		if json.Unmarshal([]byte(tt.want), &e); !strings.Contains(page, tt.want) && !strings.Contains(page, "`"+e.Error+"`") {
			t.Errorf("caller.md does not show %s", tt.want)
		}
	}
}

// sign is the pages' "openssl dgst -sha256 -hmac SECRET -binary | base64
// | tr '+/' '-_'".
func sign(secret, message string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(message))
	return base64.URLEncoding.EncodeToString(m.Sum(nil))
}

// TestBridgeExamplePublisher runs publisher.md's and subscriber.md's
// commands: the event reaches a WAMP subscriber and, through the
// MessageForwarder, an HTTP endpoint.
func TestBridgeExamplePublisher(t *testing.T) {
	ex := startBridgeExample(t)
	publish := curlCase{cmd: `curl -s http://127.0.0.1:8080/publish -H 'Content-Type: application/json' -d '{"topic":"com.example.orders.new","args":[{"id":1}],"kwargs":{"rush":true}}'`, status: 200}
	if !strings.Contains(readPage(t, "subscriber.md"), publish.cmd+"\n") {
		t.Error("subscriber.md does not show the publish command")
	}
	_, body := publish.run(t, "publisher.md", ex.base)
	var res struct{ ID wamp.ID }
	if err := json.Unmarshal([]byte(body), &res); err != nil || body != fmt.Sprintf(`{"id":%d}`, res.ID) {
		t.Fatalf("publish answered %s", body)
	}
	ev := next(t, ex.orders, "event")
	if ev.Topic != "com.example.orders.new" || ev.Publication != res.ID || jsonOf(ev.Args)+" "+jsonOf(ev.Kwargs) != `[{"id":1}] {"rush":true}` {
		t.Errorf("event %s %d %v %v, want publication %d", ev.Topic, ev.Publication, ev.Args, ev.Kwargs, res.ID)
	}
	f := next(t, ex.hookGot, "forwarded event")
	if f.method != "POST" || f.uri != "/orders" || f.body != `{"args":[{"id":1}],"kwargs":{"rush":true}}` ||
		f.header.Get("Content-Type") != "application/json" || f.header.Get("X-Wamp-Topic") != "com.example.orders.new" ||
		f.header.Get("X-Wamp-Publication") != strconv.FormatUint(uint64(res.ID), 10) {
		t.Errorf("forwarded %+v, want publication %d", f, res.ID)
	}
	for _, line := range []string{"Content-Type: application/json\nX-Wamp-Topic: com.example.orders.new\n", "\n\n" + f.body + "\n```"} {
		if !strings.Contains(readPage(t, "subscriber.md"), line) {
			t.Errorf("subscriber.md does not show %q", line)
		}
	}
	curlCase{`curl -s http://127.0.0.1:8080/publish -H 'Content-Type: application/json' -d '{"topic":"org.other.news","args":["hello"]}'`,
		200, `{"error":"wamp.error.not_authorized","args":["session is not authorized to publish to \"org.other.news\""],"kwargs":{}}`,
	}.run(t, "publisher.md", ex.base)

	big := `{"topic":"com.example.orders.big","args":["` + strings.Repeat("x", 70000-len(`{"topic":"com.example.orders.big","args":[""]}`)) + `"]}`
	// With "Expect: 100-continue" (which curl also sends for large bodies),
	// the refusal comes before the body is sent: otherwise the server's
	// closing the connection on the unread body can reset the upload.
	req, _ := http.NewRequestWithContext(testCtx(t), "POST", ex.base+"/publish", strings.NewReader(big))
	req.Header.Set("Expect", "100-continue")
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, ExpectContinueTimeout: testTimeout}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	got := string(b)
	want := `{"error":"Request too long. (70000 is longer than accepted 65536)","args":[],"kwargs":{}}`
	if resp.StatusCode != 413 || got != want || !strings.Contains(readPage(t, "publisher.md"), "`Request too long. (70000 is longer than accepted 65536)`") {
		t.Errorf("70000 bytes: %d %s", resp.StatusCode, got)
	}
}

// TestBridgeExampleWebhook runs webhook.md's deliveries: a badly signed
// one is refused and not published, a GitHub-signed one is.
func TestBridgeExampleWebhook(t *testing.T) {
	page := readPage(t, "webhook.md")
	for _, line := range []string{
		`SIG=$(printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$GITHUB_WEBHOOK_SECRET" | awk '{print $NF}')`,
		"# 757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17\n",
		`curl -s http://127.0.0.1:8080/github -H "X-Hub-Signature-256: sha256=$SIG" -H 'X-GitHub-Event: ping' -d "$BODY"` + "\n# OK\n",
		`curl -s http://127.0.0.1:8080/github -H 'X-Hub-Signature-256: sha256=0000' -H 'X-GitHub-Event: ping' -d "$BODY"` + "\n# NOT OK\n",
	} {
		if !strings.Contains(page, line) {
			t.Errorf("webhook.md does not show %s", line)
		}
	}
	m := hmac.New(sha256.New, []byte(exampleEnv["GITHUB_WEBHOOK_SECRET"]))
	m.Write([]byte("Hello, World!"))
	sig := hex.EncodeToString(m.Sum(nil))
	if sig != "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" {
		t.Errorf("GitHub's vector: %s", sig)
	}

	ex := startBridgeExample(t)
	deliver := func(sig, body string) (int, string) {
		req, _ := http.NewRequestWithContext(testCtx(t), "POST", ex.base+"/github", strings.NewReader(body))
		req.Header.Set("X-Hub-Signature-256", "sha256="+sig)
		req.Header.Set("X-GitHub-Event", "ping")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer not-for-subscribers")
		resp, got := send(t, req)
		return resp.StatusCode, got
	}
	if code, got := deliver("0000", "Hello, World!"); code != 401 || got != "NOT OK" {
		t.Errorf("badly signed: %d %q", code, got)
	}
	if code, got := deliver(sig, "Hello, World?"); code != 401 || got != "NOT OK" {
		t.Errorf("signature of another body: %d %q", code, got)
	}
	if code, got := deliver(sig, "Hello, World!"); code != 202 || got != "OK" {
		t.Errorf("signed: %d %q", code, got)
	}
	ev := next(t, ex.github, "webhook event") // the first event: the refused ones were not published
	d, _ := wamp.AsDict(ev.Args[0])
	headers, _ := wamp.AsDict(d["headers"])
	if len(ev.Args) != 1 || d["body"] != "Hello, World!" || fmt.Sprint(headers["X-Github-Event"]) != "[ping]" ||
		fmt.Sprint(headers["X-Hub-Signature-256"]) != "[sha256="+sig+"]" || headers["Authorization"] != nil {
		t.Errorf("event %v", ev.Args)
	}
}

// TestBridgeExampleCallee runs callee.md's calls: through the Caller, and
// directly over WAMP, to the example's RESTCallee (baseurl: a test server).
func TestBridgeExampleCallee(t *testing.T) {
	ex := startBridgeExample(t)
	get := curlCase{cmd: `curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.upstream","kwargs":{"method":"GET","url":"hello.txt"}}'`, status: 200}
	_, body := get.run(t, "callee.md", ex.base)
	var res struct {
		Args []struct {
			Code    int
			Content string
			Headers map[string][]string
		}
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil || len(res.Args) != 1 || res.Args[0].Code != 200 ||
		res.Args[0].Content != "hello\n" || res.Args[0].Headers["Content-Type"][0] != "text/plain" {
		t.Errorf("GET hello.txt: %s", body)
	}
	if !strings.Contains(readPage(t, "callee.md"), `# {"args":[{"code":200,"content":"hello\n","headers":{"Content-Length":["6"],"Content-Type":["text/plain"]`) {
		t.Error("callee.md does not show the result")
	}
	if r := next(t, ex.apiGot, "API request"); r.method != "GET" || r.uri != "/hello.txt" {
		t.Errorf("API got %+v", r)
	}
	curlCase{`curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.upstream","kwargs":{"method":"GET","url":"../etc/passwd"}}'`,
		200, `{"error":"wamp.error.invalid_argument","args":["callee: url \"../etc/passwd\" refused: rest: target outside baseurl: \"../etc/passwd\" climbs above it"],"kwargs":{}}`,
	}.run(t, "callee.md", ex.base)

	kwargs := wamp.Dict{"method": "POST", "url": "orders", "body": `{"id":1}`,
		"headers": wamp.Dict{"Content-Type": wamp.List{"application/json"}}, "params": wamp.Dict{"dry_run": "1"}}
	out, err := ex.session.Call(testCtx(t), "com.example.upstream", nil, wamp.ObjectOf(kwargs))
	if err != nil {
		t.Fatalf("WAMP call: %v", err)
	}
	if d, _ := wamp.AsDict(out.Args[0]); fmt.Sprintf("%v %v", d["code"], d["content"]) != "200 ok" {
		t.Errorf("WAMP call result %v", out.Args)
	}
	r := next(t, ex.apiGot, "API request") // the refused url made none
	if r.method != "POST" || r.uri != "/orders?dry_run=1" || r.body != `{"id":1}` || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("API got %+v", r)
	}
}

// TestBridgeExampleReverseProxy runs reverseproxy.md's commands.
func TestBridgeExampleReverseProxy(t *testing.T) {
	ex := startBridgeExample(t)
	curlCase{`curl -s http://127.0.0.1:8080/app/hello.txt`, 200, `hello`}.run(t, "reverseproxy.md", ex.base)
	r := next(t, ex.apiGot, "upstream request")
	if r.method != "GET" || r.uri != "/hello.txt" || r.header.Get("X-Forwarded-For") != "127.0.0.1" {
		t.Errorf("upstream got %+v", r)
	}
	curlCase{`curl -s --path-as-is http://127.0.0.1:8080/app/../hello.txt`, 400, `{"error":"bad request","reason":"dot segment in path"}`}.run(t, "reverseproxy.md", ex.base)
	select {
	case r := <-ex.apiGot:
		t.Errorf("a dot segment reached the upstream: %+v", r)
	default:
	}
}

// jsonOf is v as JSON, payload dictionaries with their keys in order.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
