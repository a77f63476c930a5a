package rest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

const proc = "com.example.http"

// seen is one request a target received.
type seen struct {
	method, path, query, body string
	header                    http.Header
}

// recorder is a target that records its requests.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

func (rec *recorder) record(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(b), r.Header.Clone()})
	rec.mu.Unlock()
}

func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

func (rec *recorder) last() seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.reqs[len(rec.reqs)-1]
}

// calleeEnv starts a Callee with o (Procedure set to proc) and returns a
// caller client.
func calleeEnv(t *testing.T, o CalleeOptions) *client.Client {
	t.Helper()
	o.Procedure = proc
	ce, err := NewCallee(o)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	startComponent(t, e, ce)
	caller, _ := e.client(t)
	return caller
}

// call calls the Callee and returns its result dict.
func call(ctx context.Context, c *client.Client, kwargs wamp.Dict) (wamp.Dict, error) {
	res, err := c.Call(ctx, proc, nil, wamp.ObjectOf(kwargs))
	if err != nil {
		return nil, err
	}
	d, _ := wamp.AsDict(res.Args[0])
	return d, nil
}

// TestCalleeKwargs is the Callee's whole flow: a WAMP call with kwargs
// becomes an HTTP request, and the web response comes back as the result.
func TestCalleeKwargs(t *testing.T) {
	rec := &recorder{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		w.WriteHeader(201)
		io.WriteString(w, "héllo")
	})
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL + "/api/"})
	res, err := call(testCtx(t), caller, wamp.Dict{
		"method": "post", "url": "/items/1?x=1", "body": "payload",
		"headers": wamp.Dict{"X-List": wamp.List{"1", "2"}, "x-single": "s", "Content-Type": "text/plain"},
		"params":  wamp.Dict{"p": "v w", "n": int64(3), "f": 1.5, "l": wamp.List{"a", int64(2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.last()
	want := seen{method: "POST", path: "/api/items/1", query: "x=1&f=1.5&l=a&l=2&n=3&p=v+w", body: "payload"}
	if got.method != want.method || got.path != want.path || got.query != want.query || got.body != want.body {
		t.Errorf("request = %+v, want %+v", got, want)
	}
	if !reflect.DeepEqual(got.header["X-List"], []string{"1", "2"}) || got.header.Get("X-Single") != "s" ||
		got.header.Get("Content-Type") != "text/plain" {
		t.Errorf("request headers = %v", got.header)
	}
	if res["code"] != int64(201) || res["content"] != "héllo" {
		t.Errorf("result = %v", res)
	}
	if h, _ := wamp.AsDict(res["headers"]); !reflect.DeepEqual(h["X-Multi"], wamp.List{"a", "b"}) {
		t.Errorf("result headers = %v", res["headers"])
	}
}

func TestCalleePositionalAndDefaults(t *testing.T) {
	rec := &recorder{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { rec.record(r) })
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL + "/api"})
	res, err := caller.Call(testCtx(t), proc, wamp.List{"GET", "a/./b/../c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.last(); got.method != "GET" || got.path != "/api/a/c" || got.body != "" {
		t.Errorf("request = %+v", got)
	}
	if d := dict(res.Args[0]); d["code"] != int64(200) || d["content"] != "" {
		t.Errorf("result = %v", d)
	}
	// No url: the base itself.
	if _, err := call(testCtx(t), caller, wamp.Dict{"method": "DELETE"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.last(); got.method != "DELETE" || got.path != "/api" {
		t.Errorf("request = %+v", got)
	}
}

func TestCalleeBadArguments(t *testing.T) {
	rec := &recorder{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { rec.record(r) })
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL})
	tests := []struct {
		name   string
		kwargs wamp.Dict
	}{
		{"no method", wamp.Dict{"url": "x"}},
		{"method not a string", wamp.Dict{"method": int64(1)}},
		{"method not a token", wamp.Dict{"method": "GE T"}},
		{"unknown kwarg", wamp.Dict{"method": "GET", "timeout": int64(1)}},
		{"url not a string", wamp.Dict{"method": "GET", "url": int64(1)}},
		{"headers not a dict", wamp.Dict{"method": "GET", "headers": "x"}},
		{"header value not a string", wamp.Dict{"method": "GET", "headers": wamp.Dict{"X": wamp.List{int64(1)}}}},
		{"header value with CRLF", wamp.Dict{"method": "GET", "headers": wamp.Dict{"X": "a\r\nEvil: 1"}}},
		{"header name invalid", wamp.Dict{"method": "GET", "headers": wamp.Dict{"X Y": "a"}}},
		{"host header", wamp.Dict{"method": "GET", "headers": wamp.Dict{"host": "evil"}}},
		{"params not a dict", wamp.Dict{"method": "GET", "params": wamp.List{}}},
		{"param value a dict", wamp.Dict{"method": "GET", "params": wamp.Dict{"a": wamp.Dict{}}}},
		{"bad escape", wamp.Dict{"method": "GET", "url": "a%zz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(testCtx(t), caller, tt.kwargs)
			if uriOf(err) != wamp.ErrInvalidArgument {
				t.Errorf("err = %v, want invalid_argument", err)
			}
		})
	}
	if n := rec.count(); n != 0 {
		t.Errorf("target got %d requests, want 0", n)
	}
}

// TestCalleeConfinement: every way out of baseurl is refused before any
// request is made.
func TestCalleeConfinement(t *testing.T) {
	other := &recorder{}
	otherSrv := server(t, func(w http.ResponseWriter, r *http.Request) { other.record(r) })
	rec := &recorder{}
	var srvURL string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/to-other":
			http.Redirect(w, r, otherSrv.URL+"/api/x", http.StatusFound)
		case "/api/to-outside":
			http.Redirect(w, r, "/admin", http.StatusFound)
		case "/api/to-dotdot":
			http.Redirect(w, r, srvURL+"/api/%2e%2e/admin", http.StatusTemporaryRedirect)
		case "/api/to-dotparam":
			http.Redirect(w, r, srvURL+"/api/..;/admin", http.StatusFound)
		case "/api/to-scheme":
			http.Redirect(w, r, strings.Replace(srvURL, "http:", "https:", 1)+"/api/x", http.StatusFound)
		default:
			rec.record(r)
		}
	})
	srvURL = srv.URL
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL + "/api"})
	tests := []string{
		"..", "../admin", "a/../../admin", "./../admin", "%2e%2e/admin", "%2E%2e/admin", "a/%2e%2e/%2e%2e/admin",
		".%2e/admin", "a%2f..%2f..%2fadmin", "a%2F..", "%5c..%5cadmin",
		"http://evil.example/", "https://127.0.0.1/", "//evil.example/x", "///evil.example/x",
		"..\\admin", "a\\..\\..\\admin", "\\\\evil.example\\x", "javascript:alert(1)", "mailto:x",
		"to-other", "to-outside", "to-dotdot", "to-scheme", "to-dotparam",
		"..;/admin", "a/..;/..;/admin", "%2e%2e;/admin", "..%3b/admin", "%252e%252e/admin", "a%252f..%252f..%252fadmin",
	}
	for _, u := range tests {
		t.Run(u, func(t *testing.T) {
			_, err := call(testCtx(t), caller, wamp.Dict{"method": "GET", "url": u})
			if uriOf(err) != wamp.ErrInvalidArgument {
				t.Errorf("err = %v, want invalid_argument", err)
			}
		})
	}
	if n := rec.count(); n != 0 {
		t.Errorf("target got %d requests outside the redirectors, want 0: %+v", n, rec.last())
	}
	if n := other.count(); n != 0 {
		t.Errorf("other host got %d requests, want 0", n)
	}
}

func TestCalleeRedirectInside(t *testing.T) {
	rec := &recorder{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/old" {
			http.Redirect(w, r, "/api/new", http.StatusMovedPermanently)
			return
		}
		rec.record(r)
		io.WriteString(w, "moved here")
	})
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL + "/api"})
	res, err := call(testCtx(t), caller, wamp.Dict{"method": "GET", "url": "old"})
	if err != nil {
		t.Fatal(err)
	}
	if res["content"] != "moved here" || rec.last().path != "/api/new" {
		t.Errorf("result = %v, request = %+v", res, rec.last())
	}
}

func TestCalleeStatusIsAResult(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	})
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL})
	for url, want := range map[string]int64{"missing": 404, "fail": 500} {
		res, err := call(testCtx(t), caller, wamp.Dict{"method": "GET", "url": url})
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if res["code"] != want || res["content"] == "" {
			t.Errorf("%s: result = %v, want code %d", url, res, want)
		}
	}
}

func TestCalleeTimeout(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL, Timeout: 50 * time.Millisecond})
	_, err := call(testCtx(t), caller, wamp.Dict{"method": "GET"})
	if uriOf(err) != wamp.ErrTimeout || !strings.Contains(err.Error(), "no complete response") {
		t.Errorf("err = %v, want wamp.error.timeout", err)
	}
}

func TestCalleeTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	caller := calleeEnv(t, CalleeOptions{BaseURL: url})
	_, err := call(testCtx(t), caller, wamp.Dict{"method": "GET"})
	if uriOf(err) != wamp.ErrRuntimeError {
		t.Errorf("err = %v, want wamp.error.runtime_error", err)
	}
}

func TestCalleeResponseLimit(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, strings.Repeat("x", 101)) })
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL, ResponseLimit: 100})
	_, err := call(testCtx(t), caller, wamp.Dict{"method": "GET"})
	if uriOf(err) != wamp.ErrRuntimeError || !strings.Contains(err.Error(), "too large") {
		t.Errorf("err = %v, want runtime_error too large", err)
	}
}

// TestCalleeInterrupt: canceling the WAMP call cancels the HTTP request.
func TestCalleeInterrupt(t *testing.T) {
	arrived, canceled := make(chan struct{}), make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		close(canceled)
	})
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := call(ctx, caller, wamp.Dict{"method": "GET"})
		errc <- err
	}()
	recv(t, testCtx(t), arrived)
	cancel()
	recv(t, testCtx(t), canceled)
	if err := recv(t, testCtx(t), errc); err == nil {
		t.Error("canceled call succeeded")
	}
}

// TestCalleeConcurrent: calls are served in parallel; the target answers
// only once all of them are in, so serial service would never finish.
func TestCalleeConcurrent(t *testing.T) {
	const n = 6
	var arrived atomic.Int32
	all := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-r.Context().Done():
		}
	})
	caller := calleeEnv(t, CalleeOptions{BaseURL: srv.URL})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := call(testCtx(t), caller, wamp.Dict{"method": "GET"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestCalleeAnyURL: baseurl "" takes any absolute http(s) URL, nothing else.
func TestCalleeAnyURL(t *testing.T) {
	rec := &recorder{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { rec.record(r) })
	caller := calleeEnv(t, CalleeOptions{})
	if _, err := call(testCtx(t), caller, wamp.Dict{"method": "GET", "url": srv.URL + "/any/where"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.last().path; got != "/any/where" {
		t.Errorf("path = %q", got)
	}
	for _, u := range []string{"", "relative/path", "/abs/path", "ftp://127.0.0.1/x", "file:///etc/passwd", "//127.0.0.1/x"} {
		if _, err := call(testCtx(t), caller, wamp.Dict{"method": "GET", "url": u}); uriOf(err) != wamp.ErrInvalidArgument {
			t.Errorf("url %q: err = %v, want invalid_argument", u, err)
		}
	}
}

func TestCalleeCharset(t *testing.T) {
	tests := []struct {
		ctype string
		body  []byte
		want  string
	}{
		{"", []byte("h\xc3\xa9"), "hé"},
		{"text/plain; charset=ISO-8859-1", []byte("h\xe9"), "hé"},
		{"text/plain; charset=\"latin1\"", []byte("\xff"), "ÿ"},
		{"text/html; charset=utf-8", []byte("a\xffb"), "a\uFFFDb"},
		{"text/plain; charset=koi8-r", []byte("ok"), "ok"},
		{"application/json", []byte(`{"a":"é"}`), `{"a":"é"}`},
	}
	for _, tt := range tests {
		if got := decodeContent(tt.body, tt.ctype); got != tt.want {
			t.Errorf("decodeContent(%q, %q) = %q, want %q", tt.body, tt.ctype, got, tt.want)
		}
	}
}

func TestCalleeStopWaitsAndCancels(t *testing.T) {
	arrived := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	})
	ce, err := NewCallee(CalleeOptions{Procedure: proc, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	c, _ := e.client(t)
	if err := ce.Start(testCtx(t), c); err != nil {
		t.Fatal(err)
	}
	caller, _ := e.client(t)
	errc := make(chan error, 1)
	go func() {
		_, err := call(testCtx(t), caller, wamp.Dict{"method": "GET"})
		errc <- err
	}()
	recv(t, testCtx(t), arrived)
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel() // give up at once: the call in flight is canceled
	if err := ce.Stop(ctx); err == nil {
		t.Error("Stop with an ended ctx and a call in flight returned nil")
	}
	if err := recv(t, testCtx(t), errc); uriOf(err) != wamp.ErrCanceled {
		t.Errorf("call err = %v, want canceled", err)
	}
}

// TestCalleeShared: two Callees with Invoke roundrobin register the same
// procedure (a single one would refuse the second) and take turns; an
// unknown policy is refused by NewCallee.
func TestCalleeShared(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"a", "b"} {
		target := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, name) })
		ce, err := NewCallee(CalleeOptions{Procedure: proc, BaseURL: target.URL, Invoke: wamp.InvokeRoundRobin})
		if err != nil {
			t.Fatal(err)
		}
		startComponent(t, e, ce)
	}
	c, _ := e.client(t)
	served := map[any]bool{}
	for range 2 {
		res, err := call(testCtx(t), c, wamp.Dict{"method": "GET"})
		if err != nil {
			t.Fatal(err)
		}
		served[res["content"]] = true
	}
	if !served["a"] || !served["b"] {
		t.Errorf("two calls served by %v, want both callees", served)
	}
	if _, err := NewCallee(CalleeOptions{Procedure: proc, Invoke: "everyone"}); err == nil || !strings.Contains(err.Error(), `invalid invocation policy "everyone"`) {
		t.Errorf("invoke everyone: %v", err)
	}
}
