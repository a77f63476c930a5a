package bridge

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// echoArgs returns its invocation's arguments.
func echoArgs(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
}

// waitFor fails the test when ch gives nothing within a generous bound, so
// that a bug shows as a failure rather than a hung test.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

func newCaller(t *testing.T, s Session, o CallerOptions) *Caller {
	t.Helper()
	c, err := NewCaller(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCallerEndToEnd(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.echoArgs", echoArgs)
	e.register("com.example.fail", func(context.Context, *client.Invocation) (*client.Result, error) {
		return nil, &wamp.RequestError{URI: "com.example.oops", Args: wamp.List{1, "x"}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": true})}
	})
	e.register("com.example.plain", func(context.Context, *client.Invocation) (*client.Result, error) {
		return nil, context.DeadlineExceeded
	})
	e.register("org.other.p", echoArgs)
	h := newCaller(t, e.bridge, CallerOptions{})
	tests := []struct{ name, body, want string }{
		{"empty result", `{"procedure":"com.example.echoArgs"}`, `{"args":[null]}`},
		{"one result", `{"procedure":"com.example.echoArgs","args":[1]}`, `{"args":[1]}`},
		{"list result", `{"procedure":"com.example.echoArgs","args":[[1,2]]}`, `{"args":[[1,2]]}`},
		{"two results", `{"procedure":"com.example.echoArgs","args":[1,"x"]}`, `{"args":[1,"x"]}`},
		{"kwargs only", `{"procedure":"com.example.echoArgs","kwargs":{"a":1.5}}`, `{"kwargs":{"a":1.5}}`},
		{"both", `{"procedure":"com.example.echoArgs","args":[null],"kwargs":{"a":"<&>"}}`, `{"args":[null],"kwargs":{"a":"<&>"}}`},
		{"big numbers", `{"procedure":"com.example.echoArgs","args":[9007199254740993,18446744073709551615,-1]}`, `{"args":[9007199254740993,18446744073709551615,-1]}`},
		{"application error", `{"procedure":"com.example.fail"}`, `{"error":"com.example.oops","args":[1,"x"],"kwargs":{"a":true}}`},
		{"runtime error", `{"procedure":"com.example.plain"}`, `{"error":"wamp.error.runtime_error","args":["context deadline exceeded"],"kwargs":{}}`},
		{"no such procedure", `{"procedure":"com.example.nothing"}`, ``},
		{"not authorized", `{"procedure":"org.other.p"}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(h, httpReq{body: tt.body, header: ct("application/json")})
			if w.Code != 200 {
				t.Fatalf("status %d %s", w.Code, w.Body)
			}
			switch tt.name {
			case "no such procedure":
				tt.want = `{"error":"wamp.error.no_such_procedure",`
			case "not authorized":
				tt.want = `{"error":"wamp.error.not_authorized",`
			}
			if got := w.Body.String(); got != tt.want && !(strings.HasSuffix(tt.want, ",") && strings.HasPrefix(got, tt.want)) {
				t.Fatalf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// slow registers a procedure that blocks until interrupted and reports its
// start and its interruption.
func slow(e *env, procedure wamp.URI) (started, interrupted <-chan struct{}) {
	s, i := make(chan struct{}, 1), make(chan struct{}, 1)
	e.register(procedure, func(ctx context.Context, _ *client.Invocation) (*client.Result, error) {
		s <- struct{}{}
		<-ctx.Done()
		i <- struct{}{}
		return nil, ctx.Err()
	})
	return s, i
}

func TestCallerTimeoutInterruptsCallee(t *testing.T) {
	e := newEnv(t)
	started, interrupted := slow(e, "com.example.slow")
	tests := []struct {
		name string
		opts CallerOptions
		body string
		want string
	}{
		{"configured", CallerOptions{CallTimeout: 20 * time.Millisecond}, `{"procedure":"com.example.slow"}`,
			`{"error":"wamp.error.timeout","args":["canceled: no answer within 20ms"],"kwargs":{}}`},
		{"requested", CallerOptions{}, `{"procedure":"com.example.slow","options":{"timeout":30}}`,
			`{"error":"wamp.error.timeout","args":["canceled: no answer within 30ms"],"kwargs":{}}`},
		{"request cannot extend", CallerOptions{CallTimeout: 20 * time.Millisecond}, `{"procedure":"com.example.slow","options":{"timeout":60000}}`,
			`{"error":"wamp.error.timeout","args":["canceled: no answer within 20ms"],"kwargs":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(newCaller(t, e.bridge, tt.opts), httpReq{body: tt.body})
			if w.Code != http.StatusGatewayTimeout || w.Body.String() != tt.want {
				t.Fatalf("got %d %s", w.Code, w.Body)
			}
			waitFor(t, started, "invocation")
			waitFor(t, interrupted, "INTERRUPT at the callee")
		})
	}
}

func TestCallerClientGoneInterruptsCallee(t *testing.T) {
	e := newEnv(t)
	started, interrupted := slow(e, "com.example.slow")
	srv := httptest.NewServer(newCaller(t, e.bridge, CallerOptions{CallTimeout: NoTimeout}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader(`{"procedure":"com.example.slow"}`))
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	waitFor(t, started, "invocation")
	cancel()
	if err := waitFor(t, done, "client return"); err == nil {
		t.Fatal("request succeeded")
	}
	waitFor(t, interrupted, "INTERRUPT at the callee")
}

func TestCallerSessionKilledThenRecovers(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.echoArgs", echoArgs)
	e.hold = make(chan struct{})
	h := newCaller(t, e.bridge, CallerOptions{})
	body := httpReq{body: `{"procedure":"com.example.echoArgs","args":[1]}`}
	if w := do(h, body); w.Code != 200 {
		t.Fatalf("before: %d %s", w.Code, w.Body)
	}
	id := e.bridge.Session().ID()
	if _, err := e.backend.Call(context.Background(), "wamp.session.kill", wamp.List{id}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, e.left, "session end")
	w := do(h, body)
	want := `{"error":"junction.error.unavailable","args":["WAMP session unavailable, retry later."],"kwargs":{}}`
	if w.Code != 503 || w.Body.String() != want {
		t.Fatalf("while down: %d %s", w.Code, w.Body)
	}
	close(e.hold)
	waitFor(t, e.joined, "rejoin")
	if w := do(h, body); w.Code != 200 || w.Body.String() != `{"args":[1]}` {
		t.Fatalf("after: %d %s", w.Code, w.Body)
	}
}

func TestCallerDiscloseMe(t *testing.T) {
	e := newEnv(t)
	got := make(chan wamp.Dict, 1)
	e.register("com.example.who", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		got <- inv.Details
		return nil, nil
	})
	h := newCaller(t, e.bridge, CallerOptions{})
	w := do(h, httpReq{body: `{"procedure":"com.example.who","options":{"disclose_me":true}}`})
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	d := waitFor(t, got, "invocation")
	if _, ok := d[wamp.OptCaller]; !ok {
		t.Fatalf("caller not disclosed: %v", d)
	}
}

// An answer carries its Content-Length and is never chunked: a short one
// sized by net/http, a long one by writeJSON.
func TestCallerAnswerLength(t *testing.T) {
	e := newEnv(t)
	e.register("com.example.echoArgs", echoArgs)
	srv := httptest.NewServer(newCaller(t, e.bridge, CallerOptions{}))
	defer srv.Close()
	for _, n := range []int{1, maxUnsizedAnswer - len(`{"args":[""]}`), maxUnsizedAnswer + 1, 3 * maxUnsizedAnswer} {
		body := `{"procedure":"com.example.echoArgs","args":["` + strings.Repeat("x", n) + `"]}`
		resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d bytes: %d %v", n, resp.StatusCode, err)
		}
		if resp.ContentLength != int64(len(got)) || len(resp.TransferEncoding) > 0 {
			t.Errorf("%d bytes: Content-Length %d, Transfer-Encoding %v for %d bytes", n, resp.ContentLength, resp.TransferEncoding, len(got))
		}
		if len(got) != n+len(`{"args":[""]}`) {
			t.Errorf("%d bytes: answer of %d bytes", n, len(got))
		}
	}
}
