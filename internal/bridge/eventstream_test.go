package bridge

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// Events come in publication order, each with its publication ID, its
// topic and its payload, kwargs in the publisher's key order.
func TestEventStreamOrder(t *testing.T) {
	se := newStreamEnv(t, EventStreamOptions{})
	c := se.open("topic=com.example.t")
	const n = 200
	ids := make([]wamp.ID, n)
	for i := range n {
		ids[i] = se.publish("com.example.t", wamp.List{i}, wamp.Object{{Key: "z", Value: i}, {Key: "a", Value: "x"}}, nil)
	}
	for i := range n {
		ev := c.next()
		want := sseEvent{id: strconv.FormatUint(uint64(ids[i]), 10), event: "com.example.t",
			data: fmt.Sprintf(`{"args":[%d],"kwargs":{"z":%d,"a":"x"}}`, i, i)}
		if ev != want {
			t.Fatalf("event %d: got %+v, want %+v", i, ev, want)
		}
	}
	se.publish("com.example.t", nil, nil, nil)
	if ev := c.next(); ev.data != `{"args":[],"kwargs":{}}` {
		t.Errorf("empty payload: %q", ev.data)
	}
}

// A prefix or wildcard stream names each event by its own topic; a
// repeated "topic" subscribes to each.
func TestEventStreamMatch(t *testing.T) {
	se := newStreamEnv(t, EventStreamOptions{})
	tests := []struct {
		query     string
		published []wamp.URI // in order; the stream gets those in want
		want      []string
	}{
		{"topic=com.example.p&match=prefix", []wamp.URI{"com.example.q", "com.example.p.a", "com.example.pb"},
			[]string{"com.example.p.a", "com.example.pb"}},
		{"topic=com.example..x&match=wildcard", []wamp.URI{"com.example.a.y", "com.example.a.x", "com.example.b.x"},
			[]string{"com.example.a.x", "com.example.b.x"}},
		{"topic=com.example.one&topic=com.example.two;topic=com.example.one", []wamp.URI{"com.example.one", "com.example.three", "com.example.two"},
			[]string{"com.example.one", "com.example.two"}},
		{"topic=com.example.e&match=exact", []wamp.URI{"com.example.e.f", "com.example.e"},
			[]string{"com.example.e"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			c := se.open(tt.query)
			for _, topic := range tt.published {
				se.publish(topic, nil, nil, nil)
			}
			se.publish("com.example.end", nil, nil, nil) // not streamed: what was is in c now
			for _, want := range tt.want {
				if ev := c.next(); ev.event != want {
					t.Fatalf("got event %q, want %q", ev.event, want)
				}
			}
		})
	}
}

// get_retained sends the topic's retained event first, to that stream
// alone: the streams that did not ask, or had theirs, do not get it again.
func TestEventStreamRetained(t *testing.T) {
	se := newStreamEnv(t, EventStreamOptions{})
	retain := wamp.Dict{wamp.OptRetain: true}
	se.publish("com.example.r", wamp.List{"old"}, nil, retain)
	a := se.open("topic=com.example.r&get_retained=true")
	b := se.open("topic=com.example.r")
	se.publish("com.example.r", wamp.List{"new"}, nil, retain)
	c := se.open("topic=com.example.r&get_retained=true")
	se.publish("com.example.r", wamp.List{"live"}, nil, nil)
	for name, tt := range map[string]struct {
		c    *sseClient
		want []string
	}{"a": {a, []string{"old", "new", "live"}}, "b": {b, []string{"new", "live"}}, "c": {c, []string{"new", "live"}}} {
		for _, want := range tt.want {
			if ev := tt.c.next(); ev.data != `{"args":["`+want+`"],"kwargs":{}}` {
				t.Errorf("stream %s: got %s, want %s", name, ev.data, want)
			}
		}
	}
}

// A client that stops reading is closed once its queue is full: the queue
// never holds more than its bound, the client is counted and logged, and
// the other streams go on.
func TestEventStreamSlowClient(t *testing.T) {
	var log logtest.Log
	const maxBytes = 64 << 10
	se := newStreamEnv(t, EventStreamOptions{QueueBytes: maxBytes, Logger: log.Logger(0)})
	conn := openRaw(t, se.srv.Listener.Addr().String(), "topic=com.example.s")
	fast := se.open("topic=com.example.s")
	big := wamp.List{strings.Repeat("x", 16<<10)}
	sent := 0
	for se.es.StreamStats().SlowClosed == 0 {
		if sent == 100000 {
			t.Fatal("the client that does not read was never closed")
		}
		se.publish("com.example.s", big, nil, nil)
		sent++
		fast.next()
	}
	// The server closes the connection: reading it to the end ends.
	if err := conn.SetReadDeadline(time.Now().Add(streamReadLimit)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, conn); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("slow client's connection: %v", err)
	}
	lines := log.Lines(t, "bridge: slow event stream client closed")
	if len(lines) != 1 {
		t.Fatalf("got %d slow client lines, want 1:\n%s", len(lines), log.String())
	}
	if q := lines[0]["queued_bytes"].(float64); q > maxBytes || q == 0 {
		t.Errorf("queued_bytes %v, want in (0, %d]", q, maxBytes)
	}
	se.publish("com.example.s", wamp.List{1}, nil, nil)
	if ev := fast.next(); ev.data != `{"args":[1],"kwargs":{}}` {
		t.Errorf("the other stream: %s", ev.data)
	}
	// The slow stream's handler may still be unsubscribing as its
	// client reads the end.
	deadline := time.Now().Add(streamReadLimit)
	for st := se.es.StreamStats(); st.Open != 1 || st.SlowClosed != 1; st = se.es.StreamStats() {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v, want 1 open and 1 closed as slow", st)
		}
		<-time.After(5 * time.Millisecond) // polling the counters with a deadline
	}
}

// openRaw opens a stream over a plain connection and reads its head; the
// test then reads the rest itself, or not at all.
func openRaw(t testing.TB, addr, query string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /?%s HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n", query)
	if err := conn.SetReadDeadline(time.Now().Add(streamReadLimit)); err != nil {
		t.Fatal(err)
	}
	// Read the head byte by byte, so that nothing of the body is buffered.
	var head []byte
	one := make([]byte, 1)
	for !strings.HasSuffix(string(head), "\r\n\r\n") {
		if _, err := conn.Read(one); err != nil {
			t.Fatalf("head: %v (%q)", err, head)
		}
		head = append(head, one[0])
	}
	if !strings.HasPrefix(string(head), "HTTP/1.1 200 ") {
		t.Fatalf("head %q", head)
	}
	return conn
}

// A thousand streams at once each get every event, in order.
func TestEventStreamThousandClients(t *testing.T) {
	se := newStreamEnv(t, EventStreamOptions{})
	const clients, events = 1000, 5
	readers := make([]*bufio.Reader, clients)
	for i := range clients {
		conn := openRaw(t, se.srv.Listener.Addr().String(), "topic=com.example.many")
		readers[i] = bufio.NewReader(httputil.NewChunkedReader(bufio.NewReader(conn)))
	}
	if n := se.es.StreamStats().Open; n != clients {
		t.Fatalf("%d streams open, want %d", n, clients)
	}
	for i := range events {
		se.publish("com.example.many", wamp.List{i}, nil, nil)
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i, r := range readers {
		wg.Go(func() {
			for j := range events {
				ev, err := readSSE(r)
				if err != nil || ev.data != fmt.Sprintf(`{"args":[%d],"kwargs":{}}`, j) {
					errs <- fmt.Errorf("client %d event %d: %+v %v", i, j, ev, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Shutdown ends every stream cleanly and refuses new ones.
func TestEventStreamShutdown(t *testing.T) {
	se := newStreamEnv(t, EventStreamOptions{})
	c := se.open("topic=com.example.t")
	se.es.Shutdown()
	if _, err := io.ReadAll(c.r); err != nil {
		t.Fatalf("the stream did not end cleanly: %v", err)
	}
	resp, err := http.Get(se.srv.URL + "/?topic=com.example.t")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Shutdown: %d, want 503", resp.StatusCode)
	}
	if st := se.es.StreamStats(); st.Open != 0 {
		t.Errorf("stats %+v", st)
	}
}

// An idle stream gets heartbeat comments.
func TestEventStreamHeartbeat(t *testing.T) {
	se := newStreamEnv(t, EventStreamOptions{Heartbeat: time.Millisecond})
	c := se.open("topic=com.example.t")
	for range 2 {
		ev, err := readSSE(c.r)
		if err != nil || !ev.comment {
			t.Fatalf("got %+v %v, want a heartbeat", ev, err)
		}
	}
}

// A stream that the session loses (the router killed it) ends: the
// client reconnects to the next session.
func TestEventStreamSessionEnds(t *testing.T) {
	se := newStreamEnv(t, EventStreamOptions{})
	c := se.open("topic=com.example.t")
	se.bridge.Session().Close()
	if _, err := io.ReadAll(c.r); err != nil {
		t.Fatalf("the stream did not end cleanly: %v", err)
	}
}

// Requests that open no stream get the JSON error answer of the bridge.
func TestEventStreamRefusals(t *testing.T) {
	e := newEnv(t)
	fake := &fakeSession{live: e.bridge}
	es, err := NewEventStream(fake.live, EventStreamOptions{RequireIP: MustParseIPRules("10.0.0.0/8")})
	if err != nil {
		t.Fatal(err)
	}
	open, err := NewEventStream(fake.live, EventStreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	down := &fakeSession{live: fake.live, down: true}
	unavailable, err := NewEventStream(down, EventStreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		h      http.Handler
		q      httpReq
		status int
		body   string // its beginning
	}{
		{"ip", es, httpReq{method: "GET", query: "topic=com.example.t"}, 403, `{"error":"Request denied based on IP address."`},
		{"method", open, httpReq{method: "POST", query: "topic=com.example.t"}, 405, `{"error":"Method not accepted by the event stream. (POST not allowed, only GET)"`},
		{"no topic", open, httpReq{method: "GET", query: "match=prefix"}, 400, `{"error":"Missing query parameter 'topic'."`},
		{"empty topic", open, httpReq{method: "GET", query: "topic="}, 400, `{"error":"Query parameter 'topic' must not be empty."`},
		{"match", open, httpReq{method: "GET", query: "topic=a&match=regex"}, 400, `{"error":"Query parameter 'match' must be exact, prefix or wildcard, not 'regex'."`},
		{"get_retained", open, httpReq{method: "GET", query: "topic=a&get_retained=yes"}, 400, `{"error":"Query parameter 'get_retained' must be true or false, not 'yes'."`},
		{"not authorized", open, httpReq{method: "GET", query: "topic=org.other.t"}, 403, `{"error":"wamp.error.not_authorized","args":[`},
		{"second topic not authorized", open, httpReq{method: "GET", query: "topic=com.example.t&topic=org.other.t"}, 403, `{"error":"wamp.error.not_authorized","args":[`},
		{"invalid URI", open, httpReq{method: "GET", query: "topic=com.example..t"}, 400, `{"error":"wamp.error.invalid_uri","args":[`},
		{"session down", unavailable, httpReq{method: "GET", query: "topic=com.example.t"}, 503, `{"error":"junction.error.unavailable"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(tt.h, tt.q)
			if w.Code != tt.status || !strings.HasPrefix(w.Body.String(), tt.body) {
				t.Errorf("got %d %s,\nwant %d %s...", w.Code, w.Body, tt.status, tt.body)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("Access-Control-Allow-Origin %q", got)
			}
			if tt.status == 405 && w.Header().Get("Allow") != "GET,OPTIONS" {
				t.Errorf("Allow %q", w.Header().Get("Allow"))
			}
		})
	}
	// The subscription made before the refused one is gone again.
	res, err := e.backend.Call(context.Background(), "wamp.subscription.lookup", wamp.List{"com.example.t"}, nil)
	if err != nil || len(res.Args) != 1 || res.Args[0] != nil {
		t.Errorf("subscription of a refused stream: %v %v", res, err)
	}
	w := do(open, httpReq{method: "OPTIONS", header: http.Header{"Origin": {"https://app.example"}}})
	if w.Code != 200 || w.Header().Get("Access-Control-Allow-Methods") != "GET,OPTIONS" ||
		w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("preflight: %d %v", w.Code, w.Header())
	}
}

// With Debug, a stream's opening and its end (with why) are logged.
func TestEventStreamDebugLog(t *testing.T) {
	var log logtest.Log
	se := newStreamEnv(t, EventStreamOptions{Debug: true, Logger: log.Logger(slog.LevelDebug)})
	c := se.open("topic=com.example.t")
	se.es.Shutdown()
	if _, err := io.ReadAll(c.r); err != nil {
		t.Fatal(err)
	}
	// The handler has returned once the answer ended; its log lines are
	// written before.
	if got := log.Lines(t, "bridge: request accepted"); len(got) != 1 || got[0]["stream"] != true {
		t.Errorf("opening lines %v", got)
	}
	if got := log.Lines(t, "bridge: event stream ended"); len(got) != 1 || got[0]["why"] != "shutdown" {
		t.Errorf("end lines %v", got)
	}
}
