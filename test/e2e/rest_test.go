package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
)

// Components of the container node, and their JSON paths in its log.
const (
	restProcedure = "com.e2e.rest.api"
	restTopic     = "com.e2e.rest.topic"
	calleePath    = "workers[0].components[0]"
	forwarderPath = "workers[0].components[1]"
)

// TestRESTComponents runs the specification's flows through two junction
// processes: a router node (caller, publisher) and a container node whose
// RESTCallee and MessageForwarder connect to it over WebSocket. Then the
// router node is stopped (SIGTERM) and started again on the port the OS
// gave it the first time: both components must reconnect and the flows
// work again, with the container left running.
func TestRESTComponents(t *testing.T) {
	harness.RequireBinary(t)
	up := newUpstream(t)
	paths := obj{
		"call":    bridgeService("caller", "bridge", nil),
		"publish": bridgeService("publisher", "bridge", nil),
	}
	router := startNode(t, "router", routerConfig(0, paths))
	port := addrPort(t, listenAddr(t, router, 0))
	cfg := routerConfig(port, paths)
	container := startNode(t, "container", containerConfig(port,
		obj{"classname": "router.adapter.rest.RESTCallee",
			"extra": obj{"procedure": restProcedure, "baseurl": up.srv.URL + "/api"}},
		obj{"classname": "crossbar.adapter.rest.MessageForwarder",
			"extra": obj{"subscriptions": []obj{{"topic": restTopic, "url": up.srv.URL + "/events"}}}},
	), "client: connect failed")
	// A container's components connect after "node started".
	container.WaitLog(t, "the RESTCallee's registration", 1, nodeproc.MsgIs("rest: callee registered", "component", calleePath))
	container.WaitLog(t, "the MessageForwarder's subscription", 1, nodeproc.MsgIs("rest: subscriber started", "component", forwarderPath))
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	t.Run("before-restart", func(t *testing.T) { checkRESTFlows(t, base, up, "first") })
	if t.Failed() {
		return
	}

	router.Stop(t)
	for _, c := range []string{calleePath, forwarderPath} {
		container.WaitLog(t, c+" losing its session", 1, nodeproc.MsgIs("client: session ended", "component", c))
	}
	startNode(t, "router (restarted)", cfg)
	for _, c := range []string{calleePath, forwarderPath} {
		container.WaitLog(t, c+" joining again", 2, nodeproc.MsgIs("client: joined", "component", c))
	}
	t.Run("after-restart", func(t *testing.T) { checkRESTFlows(t, base, up, "second") })
}

// addrPort is the port of a "host:port" address.
func addrPort(t *testing.T, addr string) int {
	t.Helper()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return int(ap.Port())
}

// checkRESTFlows runs the flows once; mark tells the runs apart.
func checkRESTFlows(t *testing.T, base string, up *upstream, mark string) {
	t.Run("callee", func(t *testing.T) { checkCalleeFlow(t, base, mark) })
	t.Run("callee-non-2xx", func(t *testing.T) {
		r := postJSON(t, base+"/call", `{"procedure": "`+restProcedure+`", "kwargs": {"method": "GET", "url": "notfound"}}`)
		res := restResult(t, r)
		if res.Code != 404 || res.Content != "no such thing\n" {
			t.Errorf("result code %d content %q, want the upstream's 404 as a result", res.Code, res.Content)
		}
	})
	t.Run("callee-outside-baseurl", func(t *testing.T) {
		r := postJSON(t, base+"/call", `{"procedure": "`+restProcedure+`", "kwargs": {"method": "GET", "url": "../secret"}}`)
		checkError(t, r, 200, "wamp.error.invalid_argument")
	})
	t.Run("forwarder", func(t *testing.T) { checkForwarderFlow(t, base, up, mark) })
}

// restCallResult is the RESTCallee's result: one positional argument.
type restCallResult struct {
	Code    int                 `json:"code"`
	Content string              `json:"content"`
	Headers map[string][]string `json:"headers"`
}

func restResult(t *testing.T, r response) restCallResult {
	t.Helper()
	var body struct {
		Args []restCallResult `json:"args"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &body) != nil || len(body.Args) != 1 {
		t.Fatalf("status %d body %s, want 200 {\"args\": [{code, content, headers}]}", r.status, r.body)
	}
	return body.Args[0]
}

// checkCalleeFlow: HTTP POST to the Caller naming the RESTCallee's
// procedure with kwargs -> the RESTCallee's HTTP request -> the upstream's
// response back in the Caller's answer.
func checkCalleeFlow(t *testing.T, base, mark string) {
	body := fmt.Sprintf(`{"procedure": %q, "kwargs": {"method": "POST", "url": "items/7",
		"params": {"q": "x y", "n": 3}, "headers": {"X-Test": ["%s"]}, "body": "{\"mark\": \"%s\"}"}}`,
		restProcedure, mark, mark)
	res := restResult(t, postJSON(t, base+"/call", body))
	if res.Code != 200 || !reflect.DeepEqual(res.Headers["X-Upstream"], []string{"e2e"}) {
		t.Errorf("result code %d headers %v, want 200 with X-Upstream: e2e", res.Code, res.Headers)
	}
	var e echoed
	if err := json.Unmarshal([]byte(res.Content), &e); err != nil {
		t.Fatalf("result content %q is not the upstream's echo: %v", res.Content, err)
	}
	// The params in the order of the body, through the Caller, the router
	// and the RESTCallee.
	want := echoed{Method: "POST", Path: "/api/items/7", Query: "q=x+y&n=3", Body: `{"mark": "` + mark + `"}`}
	if e.Method != want.Method || e.Path != want.Path || e.Query != want.Query || e.Body != want.Body {
		t.Errorf("upstream got %s %s ?%s body %q, want %s %s ?%s body %q",
			e.Method, e.Path, e.Query, e.Body, want.Method, want.Path, want.Query, want.Body)
	}
	if !reflect.DeepEqual(e.Header["X-Test"], []string{mark}) {
		t.Errorf("upstream got X-Test %q, want [%q]", e.Header["X-Test"], mark)
	}
}

// checkForwarderFlow: HTTP POST to the Publisher -> event -> the
// MessageForwarder's POST of {"args", "kwargs"} to the upstream.
func checkForwarderFlow(t *testing.T, base string, up *upstream, mark string) {
	id := publicationID(t, postJSON(t, base+"/publish",
		`{"topic": "`+restTopic+`", "args": ["`+mark+`", 1], "kwargs": {"k": "v"}}`))
	var f forwarded
	select {
	case f = <-up.events:
	case <-time.After(eventBound):
		t.Fatalf("the upstream got no forwarded event within %s", eventBound)
	}
	want := `{"args": ["` + mark + `", 1], "kwargs": {"k": "v"}}`
	got := decodeJSON(t, "forwarded body", []byte(f.body))
	if f.method != "POST" || !reflect.DeepEqual(got, decodeJSON(t, "wanted body", []byte(want))) {
		t.Errorf("forwarded %s %q, want POST %s", f.method, f.body, want)
	}
	if f.header.Get("Content-Type") != "application/json" || f.header.Get("X-Wamp-Topic") != restTopic ||
		f.header.Get("X-Wamp-Publication") != strconv.FormatUint(id, 10) {
		t.Errorf("forwarded headers %v, want application/json, topic %s, publication %d", f.header, restTopic, id)
	}
}
