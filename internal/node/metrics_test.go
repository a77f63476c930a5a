package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// metricsDoc is a node with every kind of counted thing: WebSocket
// clients (anonymous and ticket), the Caller and Publisher, a REST callee
// and a subscriber whose target is target, and the metrics, health and
// ready services.
func metricsDoc(target string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [{"uri": "", "match": "prefix",
			"allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "auth": {"anonymous": {"type": "static", "role": "anonymous"},
				"ticket": {"type": "static", "principals": {"joe": {"ticket": "right", "role": "anonymous"}}}}},
			"call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
			"publish": {"type": "publisher", "realm": "realm1", "role": "anonymous"},
			"metrics": {"type": "metrics"},
			"healthz": {"type": "health"},
			"readyz": {"type": "ready"}}}],
		"components": [
			{"type": "class", "classname": "router.adapter.rest.MessageForwarder", "realm": "realm1", "role": "anonymous",
			 "extra": {"subscriptions": [{"topic": "com.t", "url": "` + target + `/hook"}]}},
			{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1", "role": "anonymous",
			 "extra": {"procedure": "com.http", "baseurl": "` + target + `/"}}]}]}`
}

// series are a scrape's samples by series ("name{label="v",...}").
type series map[string]float64

// scrape reads the metrics at url (text exposition format).
func scrape(t *testing.T, url string) series {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return parseSeries(t, resp.Body)
}

func parseSeries(t *testing.T, r io.Reader) series {
	t.Helper()
	s := series{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		s[line[:i]] = v
	}
	return s
}

// eventually re-checks until check reports nothing, or fails the test
// with its last report after testTimeout: counters are read while the
// last requests' handlers may still be returning.
func eventually(t *testing.T, check func() []string) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		problems := check()
		if len(problems) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(strings.Join(problems, "\n"))
		}
		<-time.After(5 * time.Millisecond)
	}
}

// TestMetricsAfterWorkload scrapes /metrics before and after a known
// workload: each counter moved by exactly what the workload did, each
// gauge is what it left behind.
func TestMetricsAfterWorkload(t *testing.T) {
	hooks := make(chan struct{}, 4)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hook" {
			hooks <- struct{}{}
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer target.Close()
	n := start(t, parse(t, metricsDoc(target.URL), nil), t.TempDir())
	base := "http://" + address(t, n, web0)
	// The node's own sessions joined, registered and subscribed before
	// Start returned, but a message is counted once sent, which may be
	// just after its receiver saw it: take the counts before the workload
	// once each of their WELCOMEs, REGISTEREDs and SUBSCRIBEDs is.
	var before series
	eventually(t, func() []string {
		before = scrape(t, base+"/metrics")
		var bad []string
		for msg, gauge := range map[string]string{"WELCOME": "sessions", "REGISTERED": "registrations", "SUBSCRIBED": "subscriptions"} {
			sent, live := before[`junction_messages_sent_total{type="`+msg+`"}`], before[`junction_`+gauge+`{realm="realm1"}`]
			if sent < live {
				bad = append(bad, fmt.Sprintf("%s sent %v, %s %v", msg, sent, gauge, live))
			}
		}
		return bad
	})

	ws := base[len("http"):]
	ws = "ws" + ws + "/ws"
	anon := client.Config{Realm: "realm1"}
	callee := mustWS(t, ws, websocket.DialOptions{}, anon)
	sub := mustWS(t, ws, websocket.DialOptions{}, anon)
	caller := mustWS(t, ws, websocket.DialOptions{}, anon)
	echo(t, callee, "com.echo")
	if _, err := callee.Register(testCtx(t), "com.fail", func(context.Context, *client.Invocation) (*client.Result, error) {
		return nil, &wamp.RequestError{URI: "com.example.failed"}
	}, nil); err != nil {
		t.Fatal(err)
	}
	events := make(chan struct{}, 2)
	if _, err := sub.Subscribe(testCtx(t), "com.t", func(*client.Event) { events <- struct{}{} }, nil); err != nil {
		t.Fatal(err)
	}
	callEcho(t, caller, "com.echo")
	callEcho(t, caller, "com.echo")
	if _, err := caller.Call(testCtx(t), "com.fail", nil, nil); wampURIOf(err) != "com.example.failed" {
		t.Fatalf("com.fail: %v", err)
	}
	if _, err := caller.Call(testCtx(t), "com.nope", nil, nil); wampURIOf(err) != wamp.ErrNoSuchProcedure {
		t.Fatalf("com.nope: %v", err)
	}
	if _, err := caller.Call(testCtx(t), "com.http", nil, wamp.ObjectOf(wamp.Dict{"method": "GET", "url": "x"})); err != nil {
		t.Fatalf("com.http: %v", err)
	}
	if code, _ := post(t, base+"/call", `{"procedure": "com.echo", "args": ["hi"]}`, nil); code != 200 {
		t.Fatalf("POST /call: %d", code)
	}
	if code, _ := post(t, base+"/call", `{"procedure": 1}`, nil); code != 400 {
		t.Fatalf("POST /call, bad body: %d", code)
	}
	for range 2 {
		if code, _ := post(t, base+"/publish", `{"topic": "com.t"}`, nil); code != 200 {
			t.Fatalf("POST /publish: %d", code)
		}
	}
	for range 2 {
		<-events
		<-hooks
	}
	if _, err := joinWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "joe",
		Auth: []client.Authenticator{client.Ticket("wrong")}}); err == nil {
		t.Fatal("a wrong ticket joined")
	}
	if _, err := joinWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "no.such.realm"}); err == nil {
		t.Fatal("an unknown realm joined")
	}

	// Counters: what the workload added.
	deltas := series{
		`junction_sessions_joined_total{authmethod="anonymous",realm="realm1"}`:           3,
		`junction_auth_failures_total{authmethod="ticket",realm="realm1"}`:                1,
		`junction_auth_failures_total{authmethod="anonymous",realm="other"}`:              1,
		`junction_messages_received_total{type="HELLO"}`:                                  5,
		`junction_messages_received_total{type="AUTHENTICATE"}`:                           1,
		`junction_messages_received_total{type="REGISTER"}`:                               2,
		`junction_messages_received_total{type="SUBSCRIBE"}`:                              1,
		`junction_messages_received_total{type="CALL"}`:                                   6,
		`junction_messages_received_total{type="YIELD"}`:                                  4,
		`junction_messages_received_total{type="ERROR"}`:                                  1,
		`junction_messages_received_total{type="PUBLISH"}`:                                2,
		`junction_messages_sent_total{type="WELCOME"}`:                                    3,
		`junction_messages_sent_total{type="CHALLENGE"}`:                                  1,
		`junction_messages_sent_total{type="ABORT"}`:                                      2,
		`junction_messages_sent_total{type="REGISTERED"}`:                                 2,
		`junction_messages_sent_total{type="SUBSCRIBED"}`:                                 1,
		`junction_messages_sent_total{type="INVOCATION"}`:                                 5,
		`junction_messages_sent_total{type="RESULT"}`:                                     4,
		`junction_messages_sent_total{type="ERROR"}`:                                      2,
		`junction_messages_sent_total{type="PUBLISHED"}`:                                  2,
		`junction_messages_sent_total{type="EVENT"}`:                                      4,
		`junction_call_errors_total{error="wamp.error.no_such_procedure"}`:                1,
		`junction_call_errors_total{error="application"}`:                                 1,
		`junction_call_duration_seconds_count`:                                            5,
		`junction_events_delivered_total`:                                                 4,
		`junction_slow_consumer_disconnects_total`:                                        0,
		`junction_bridge_requests_total{code="200",service="caller"}`:                     1,
		`junction_bridge_requests_total{code="400",service="caller"}`:                     1,
		`junction_bridge_requests_total{code="200",service="publisher"}`:                  2,
		`junction_bridge_requests_total{code="200",service="callee"}`:                     1,
		`junction_bridge_requests_total{code="200",service="subscriber"}`:                 2,
		`junction_bridge_request_duration_seconds_count{code="200",service="subscriber"}`: 2,
		`junction_subscriber_delivered_total`:                                             2,
		`junction_subscriber_retries_total`:                                               0,
		`junction_subscriber_dropped_total{reason="failed"}`:                              0,
		`junction_subscriber_dropped_total{reason="queue_full"}`:                          0,
	}
	// Gauges: what the workload left (the subscription to com.t was the
	// forwarder's already: the new subscriber shares it).
	gauges := series{
		`junction_sessions{realm="realm1"}`:        before[`junction_sessions{realm="realm1"}`] + 3,
		`junction_registrations{realm="realm1"}`:   before[`junction_registrations{realm="realm1"}`] + 2,
		`junction_subscriptions{realm="realm1"}`:   before[`junction_subscriptions{realm="realm1"}`],
		`junction_calls_in_flight{realm="realm1"}`: 0,
		`junction_subscriber_queue_depth`:          0,
	}
	var after series
	eventually(t, func() []string {
		after = scrape(t, base+"/metrics")
		var bad []string
		for _, k := range slices.Sorted(maps.Keys(deltas)) {
			if got := after[k] - before[k]; got != deltas[k] {
				bad = append(bad, fmt.Sprintf("%s rose by %v, want %v", k, got, deltas[k]))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(gauges)) {
			if got, ok := after[k]; !ok || got != gauges[k] {
				bad = append(bad, fmt.Sprintf("%s = %v (present %v), want %v", k, got, ok, gauges[k]))
			}
		}
		return bad
	})
	checkSeriesBounded(t, after)
	for _, k := range []string{"go_goroutines", "process_open_fds", `junction_call_duration_seconds_bucket{le="30"}`, `junction_call_duration_seconds_bucket{le="0.0001"}`} {
		if _, ok := after[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
}

// checkSeriesBounded: every realm label is a configured realm or "other",
// and no label holds a URI of the workload.
func checkSeriesBounded(t *testing.T, s series) {
	t.Helper()
	for k := range s {
		if strings.Contains(k, "realm=") && !strings.Contains(k, `realm="realm1"`) && !strings.Contains(k, `realm="other"`) {
			t.Errorf("unbounded realm label: %s", k)
		}
		for _, uri := range []string{"com.echo", "com.fail", "com.t", "no.such.realm", "com.example.failed"} {
			if strings.Contains(k, `"`+uri+`"`) {
				t.Errorf("a URI as a label: %s", k)
			}
		}
	}
}
