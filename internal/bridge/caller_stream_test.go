package bridge

import (
	"bufio"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// postStream posts body to the Caller at url asking for an event stream,
// and returns the answer, checked to be one.
func postStream(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Fatalf("answer %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}

// readAll reads every event of an answer until its end.
func readAllEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var evs []sseEvent
	br := bufio.NewReader(r)
	for {
		ev, err := readSSE(br)
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

// countTo sends 1..n (kwargs n) as progressive results, then "done".
func countTo(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	n, _ := wamp.AsInt(inv.Args[0])
	for i := range n {
		if err := inv.SendProgress(&client.Result{Args: wamp.List{i + 1}}); err != nil {
			return nil, err
		}
	}
	return &client.Result{Args: wamp.List{"done"}, Kwargs: wamp.Object{{Key: "n", Value: n}}}, nil
}

// The progressive results come as "progress" events, in order, then the
// final result or error as the last event, the stream's end.
func TestCallerStream(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.count", countTo)
	e.register("com.example.fail", func(context.Context, *client.Invocation) (*client.Result, error) {
		return nil, wamp.Errorf("com.example.error.nope", "no %s", "way")
	})
	e.register("com.example.wait", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	nanInterrupted := make(chan struct{}, 1)
	e.register("com.example.nan", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		if err := inv.SendProgress(&client.Result{Args: wamp.List{math.NaN()}}); err != nil {
			return nil, err
		}
		<-ctx.Done() // the bridge cancels the call
		nanInterrupted <- struct{}{}
		return nil, ctx.Err()
	})
	srv := httptest.NewServer(newCaller(t, e.bridge, CallerOptions{CallTimeout: time.Second}))
	t.Cleanup(srv.Close)
	progress := func(data string) sseEvent { return sseEvent{event: "progress", data: data} }
	tests := []struct {
		name, body string
		want       []sseEvent
	}{
		{"progress", `{"procedure": "com.example.count", "args": [3]}`, []sseEvent{
			progress(`{"args":[1],"kwargs":{}}`), progress(`{"args":[2],"kwargs":{}}`), progress(`{"args":[3],"kwargs":{}}`),
			{event: "result", data: `{"args":["done"],"kwargs":{"n":3}}`}}},
		{"no progress", `{"procedure": "com.example.count", "args": [0]}`, []sseEvent{
			{event: "result", data: `{"args":["done"],"kwargs":{"n":0}}`}}},
		{"application error", `{"procedure": "com.example.fail"}`, []sseEvent{
			{event: "error", data: `{"error":"com.example.error.nope","args":["no way"],"kwargs":{}}`}}},
		{"no such procedure", `{"procedure": "com.example.none"}`, []sseEvent{
			{event: "error", data: `{"error":"wamp.error.no_such_procedure","args":["no callee registered for procedure \"com.example.none\""],"kwargs":{}}`}}},
		{"timeout", `{"procedure": "com.example.wait", "options": {"timeout": 10}}`, []sseEvent{
			{event: "error", data: `{"error":"wamp.error.timeout","args":["canceled: no answer within 10ms"],"kwargs":{}}`}}},
		{"not JSON", `{"procedure": "com.example.nan"}`, []sseEvent{
			{event: "error", data: `{"error":"Unhandled exception in the REST bridge.","args":[],"kwargs":{}}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postStream(t, context.Background(), srv.URL, tt.body)
			got := readAllEvents(t, resp.Body)
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v,\nwant %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("event %d: got %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
	waitFor(t, nanInterrupted, "INTERRUPT of the call whose result is not JSON")
}

// A client that goes away mid-stream cancels the call: the callee is
// interrupted, in the kill and killnowait modes.
func TestCallerStreamDisconnectCancels(t *testing.T) {
	for _, mode := range []string{"", wamp.CancelKill, wamp.CancelKillNoWait} {
		t.Run("mode "+mode, func(t *testing.T) {
			e := newEnv(t)
			interrupted := make(chan error, 1)
			e.register("com.example.long", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
				if err := inv.SendProgress(&client.Result{Args: wamp.List{"started"}}); err != nil {
					return nil, err
				}
				<-ctx.Done()
				interrupted <- ctx.Err()
				return nil, ctx.Err()
			})
			srv := httptest.NewServer(newCaller(t, e.bridge, CallerOptions{CancelMode: mode}))
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp := postStream(t, ctx, srv.URL, `{"procedure": "com.example.long"}`)
			ev, err := readSSE(bufio.NewReader(resp.Body))
			if err != nil || ev.data != `{"args":["started"],"kwargs":{}}` {
				t.Fatalf("first event %+v %v", ev, err)
			}
			cancel() // the client goes away
			if err := waitFor(t, interrupted, "INTERRUPT at the callee"); err == nil {
				t.Error("the callee's context ended without an error")
			}
		})
	}
}

func TestAcceptsEventStream(t *testing.T) {
	tests := []struct {
		accept []string
		want   bool
	}{
		{nil, false},
		{[]string{"application/json"}, false},
		{[]string{"text/event-stream"}, true},
		{[]string{"Text/Event-Stream; charset=utf-8"}, true},
		{[]string{"application/json, text/event-stream;q=0.5"}, true},
		{[]string{"application/json", "text/event-stream"}, true},
		{[]string{"text/event-stream;q=0"}, false},
		{[]string{"text/event-stream; q=0.000"}, false},
		{[]string{"text/event-stream; q=0.001"}, true},
		{[]string{"text/*"}, false},
		{[]string{"text/event-streams"}, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.accept != nil {
			h["Accept"] = tt.accept
		}
		if got := acceptsEventStream(h); got != tt.want {
			t.Errorf("Accept %q: %v, want %v", tt.accept, got, tt.want)
		}
	}
}

func FuzzAcceptsEventStream(f *testing.F) {
	for _, s := range []string{"text/event-stream", "a/b, text/event-stream;q=0", "TEXT/EVENT-STREAM ; q = 1", ";;,,=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if acceptsEventStream(http.Header{"Accept": {v}}) && !strings.Contains(strings.ToLower(v), "text/event-stream") {
			t.Fatalf("%q accepted", v)
		}
	})
}

// The CANCEL mode is checked.
func TestCallerCancelMode(t *testing.T) {
	if _, err := NewCaller(newFake(t), CallerOptions{CancelMode: "abort"}); err == nil || !strings.Contains(err.Error(), "cancel_mode") {
		t.Errorf("got %v", err)
	}
}

// A streamed call runs for the request's identity, as a plain one; a
// refusal of its credentials is a plain 401, before any stream.
func TestCallerStreamIdentity(t *testing.T) {
	e := newActsForEnv(t)
	e.register("com.user.whoami", whoami)
	h := newCaller(t, e.bridge, CallerOptions{Access: Access{Identity: apiKeys(t)}})
	header := bearer("k-alice")
	header.Set("Accept", "text/event-stream")
	w := do(h, httpReq{body: `{"procedure":"com.user.whoami"}`, header: header})
	if want := "event: result\ndata: {\"args\":[\"alice\",\"user\"]}\n\n"; w.Code != 200 || w.Body.String() != want {
		t.Errorf("got %d %q, want %q", w.Code, w.Body, want)
	}
	header = bearer("k-eve")
	header.Set("Accept", "text/event-stream")
	w = do(h, httpReq{body: `{"procedure":"com.user.whoami"}`, header: header})
	if w.Code != 401 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Errorf("unknown key: %d %s %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
}
