package bridge

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// trackedServer serves a handler on loopback. A request's X-Test-Peer
// header stands for its client address, and ended receives that address
// once the handler has returned (its stream's place is given back then).
type trackedServer struct {
	t     *testing.T
	srv   *httptest.Server
	ended chan string
}

func newTrackedServer(t *testing.T, h http.Handler) *trackedServer {
	ts := &trackedServer{t: t, ended: make(chan string, 64)}
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.Header.Get("X-Test-Peer"); p != "" {
			r.RemoteAddr = p
		}
		h.ServeHTTP(w, r)
		ts.ended <- r.RemoteAddr
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

// do sends a request from peer; the answer's body is closed when the
// test ends, or by the caller.
func (ts *trackedServer) do(ctx context.Context, method, target, peer, body string, header http.Header) *http.Response {
	ts.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, ts.srv.URL+target, strings.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("X-Test-Peer", peer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// waitEnded returns once the handler of peer's request has returned.
func (ts *trackedServer) waitEnded(peer string) {
	ts.t.Helper()
	for {
		if got := waitFor(ts.t, ts.ended, "end of the handler of "+peer); got == peer {
			return
		}
	}
}

// checkFull checks a refusal over a stream cap: 503, Retry-After, the
// bridge's JSON error.
func checkFull(t *testing.T, resp *http.Response, text string) {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	want := `{"error":"` + text + `","args":[],"kwargs":{}}`
	if resp.StatusCode != http.StatusServiceUnavailable || string(b) != want || resp.Header.Get("Retry-After") != "1" ||
		resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("got %d %v %s,\nwant 503 with Retry-After %s", resp.StatusCode, resp.Header, b, want)
	}
}

// An event stream takes at most MaxStreams streams, and MaxStreamsPerIP
// from one address; past a cap a request gets 503, counted and logged.
// A stream that ends gives its place back.
func TestEventStreamMaxStreams(t *testing.T) {
	e := newEnv(t)
	var log logtest.Log
	es, err := NewEventStream(e.bridge, EventStreamOptions{StreamLimits: StreamLimits{MaxStreams: 3, MaxStreamsPerIP: 2}, Logger: log.Logger(0)})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTrackedServer(t, es)
	t.Cleanup(es.Shutdown) // before the server's Close, which waits for the streams
	ctx, cancel := context.WithTimeout(context.Background(), streamReadLimit)
	defer cancel()
	open := func(peer string) *http.Response {
		return ts.do(ctx, "GET", "/?topic=com.example.t", peer, "", nil)
	}
	ok := func(resp *http.Response) {
		t.Helper()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("got %d %s, want a stream", resp.StatusCode, b)
		}
	}
	a1 := open("192.0.2.1:1")
	ok(a1)
	ok(open("192.0.2.1:2"))
	checkFull(t, open("192.0.2.1:3"), textStreamsFullIP)
	ok(open("[::ffff:192.0.2.2]:1")) // an IPv4-mapped address is its IPv4 address
	checkFull(t, open("192.0.2.2:2"), textStreamsFull)
	if st := es.StreamStats(); st.Open != 3 || st.Refused != 2 {
		t.Errorf("stats %+v, want 3 open, 2 refused", st)
	}
	lines := log.Lines(t, "bridge: stream refused: max_streams_per_ip reached")
	if len(lines) != 1 || lines[0]["peer"] != "192.0.2.1:3" || lines[0]["max_streams_per_ip"] != float64(2) {
		t.Errorf("log %s", log.String())
	}

	a1.Body.Close()
	ts.waitEnded("192.0.2.1:1")
	ok(open("192.0.2.1:4"))
	if st := es.StreamStats(); st.Open != 3 {
		t.Errorf("stats %+v, want 3 open", st)
	}
}

// The Caller's streamed calls are capped as an event stream's streams;
// plain calls are not counted.
func TestCallerMaxStreams(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.echo", echoArgs)
	e.register("com.example.long", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		if err := inv.SendProgress(&client.Result{Args: wamp.List{"started"}}); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ts := newTrackedServer(t, newCaller(t, e.bridge, CallerOptions{StreamLimits: StreamLimits{MaxStreams: 1}}))
	ctx, cancel := context.WithTimeout(context.Background(), streamReadLimit)
	defer cancel()
	stream := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
	call := func(ctx context.Context, peer, procedure string, h http.Header) *http.Response {
		return ts.do(ctx, "POST", "/", peer, `{"procedure":"`+procedure+`"}`, h)
	}
	first, stop := context.WithCancel(ctx)
	resp := call(first, "192.0.2.1:1", "com.example.long", stream)
	if ev, err := readSSE(bufio.NewReader(resp.Body)); err != nil || ev.data != `{"args":["started"],"kwargs":{}}` {
		t.Fatalf("first event %+v %v", ev, err)
	}
	checkFull(t, call(ctx, "192.0.2.2:1", "com.example.long", stream), textStreamsFull)
	if resp := call(ctx, "192.0.2.2:2", "com.example.echo", http.Header{"Content-Type": {"application/json"}}); resp.StatusCode != 200 {
		t.Errorf("plain call: %d", resp.StatusCode)
	}
	stop()
	ts.waitEnded("192.0.2.1:1")
	if resp := call(ctx, "192.0.2.2:3", "com.example.echo", stream); resp.StatusCode != 200 ||
		resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Errorf("streamed call after the first ended: %d", resp.StatusCode)
	}
}

// Negative caps are refused.
func TestStreamLimitsValidate(t *testing.T) {
	s := newFake(t)
	for _, o := range []StreamLimits{{MaxStreams: -1}, {MaxStreamsPerIP: -1}} {
		if _, err := NewEventStream(s, EventStreamOptions{StreamLimits: o}); err == nil || !strings.Contains(err.Error(), "max_streams") {
			t.Errorf("event stream %+v: %v", o, err)
		}
		if _, err := NewCaller(s, CallerOptions{StreamLimits: o}); err == nil || !strings.Contains(err.Error(), "max_streams") {
			t.Errorf("caller %+v: %v", o, err)
		}
	}
}

// A streamed call that stays quiet gets heartbeat comments, as an event
// stream does.
func TestCallerStreamHeartbeat(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.quiet", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	srv := httptest.NewServer(newCaller(t, e.bridge, CallerOptions{Heartbeat: time.Millisecond}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), streamReadLimit)
	defer cancel()
	br := bufio.NewReader(postStream(t, ctx, srv.URL, `{"procedure":"com.example.quiet"}`).Body)
	for range 2 {
		ev, err := readSSE(br)
		if err != nil || !ev.comment {
			t.Fatalf("got %+v %v, want a heartbeat", ev, err)
		}
	}
}
