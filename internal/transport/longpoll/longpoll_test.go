package longpoll

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

func newHandler(t *testing.T, a Attacher, o Options) *Handler {
	t.Helper()
	o.Attacher = a
	h, err := NewHandler(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// do serves one request on h, in memory.
func do(h http.Handler, method, path string, body []byte) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(method, path, bytes.NewReader(body))
	h.ServeHTTP(w, r)
	return w
}

// openJSON serves a handler of o and opens a JSON transport on it; it
// returns the handler, the transport's ID and its session, released at
// the end of the test.
func openJSON(t *testing.T, o Options) (*Handler, string, *transporttest.Session) {
	t.Helper()
	a := transporttest.NewAttacher()
	h := newHandler(t, a, o)
	tid := open(t, h, "wamp.2.json")
	s := <-a.Sessions
	t.Cleanup(func() { close(s.Release) })
	return h, tid, s
}

// open opens a transport speaking proto and returns its ID.
func open(t *testing.T, h http.Handler, proto string) string {
	t.Helper()
	w := do(h, http.MethodPost, "/open", []byte(`{"protocols": ["`+proto+`"]}`))
	var ans struct{ Transport, Protocol string }
	if err := json.Unmarshal(w.Body.Bytes(), &ans); w.Code != 200 || err != nil || ans.Protocol != proto {
		t.Fatalf("open: %d %s", w.Code, w.Body)
	}
	return ans.Transport
}

// TestRoundTrip: every protocol, plain and batched, through a Client and
// an echoing session over HTTP.
func TestRoundTrip(t *testing.T) {
	for _, proto := range codec.Subprotocols() {
		t.Run(proto, func(t *testing.T) {
			echo := transporttest.NewEcho()
			srv := httptest.NewServer(newHandler(t, echo, Options{}))
			defer srv.Close()
			c, err := Dial(context.Background(), srv.URL, proto, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			transporttest.CheckRoundTrip(t, c, echo)
		})
	}
}

// TestConcurrentSend: server Sends from many goroutines reach the client
// in each goroutine's order.
func TestConcurrentSend(t *testing.T) {
	for _, proto := range []string{"wamp.2.json", "wamp.2.msgpack.batched"} {
		t.Run(proto, func(t *testing.T) {
			a := transporttest.NewAttacher()
			srv := httptest.NewServer(newHandler(t, a, Options{QueueLimitMessages: -1, QueueLimitBytes: -1}))
			defer srv.Close()
			c, err := Dial(context.Background(), srv.URL, proto, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s := <-a.Sessions
			defer close(s.Release)
			transporttest.CheckConcurrentSend(t, s.Peer, c)
		})
	}
}

// TestRequests: each request's answer, errors included, with the CORS
// headers Crossbar sends.
func TestRequests(t *testing.T) {
	a := transporttest.NewAttacher()
	h := newHandler(t, a, Options{MaxBodySize: 64})
	tid := open(t, h, "wamp.2.json")
	s := <-a.Sessions
	defer close(s.Release)
	tests := []struct {
		name, method, path, body string
		status                   int
		contains                 string
	}{
		{"notice", "GET", "/", "", 200, "WAMP-over-Longpoll"},
		{"open not JSON", "POST", "/open", `{`, 400, `"error"`},
		{"open without protocols", "POST", "/open", `{}`, 400, "protocols"},
		{"open, no common protocol", "POST", "/open", `{"protocols": ["wamp.2.xml"]}`, 400, "no common protocol"},
		{"open, body too large", "POST", "/open", `{"protocols": ["` + strings.Repeat("x", 64) + `"]}`, 413, "too large"},
		{"unknown transport", "POST", "/nosuch/send", `[1]`, 404, "no such transport"},
		{"unknown operation", "POST", "/" + tid + "/poke", ``, 404, "no such long-poll operation"},
		{"GET send", "GET", "/" + tid + "/send", ``, 405, "POST"},
		{"bad message", "POST", "/" + tid + "/send", `[1, "realm1"`, 400, "could not unserialize"},
		{"not a message", "POST", "/" + tid + "/send", `{"a": 1}`, 400, "could not unserialize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(h, tt.method, tt.path, []byte(tt.body))
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.contains) {
				t.Errorf("%d %q, want %d containing %q", w.Code, w.Body, tt.status, tt.contains)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("Access-Control-Allow-Origin %q", got)
			}
		})
	}
}

// TestPreflight: an OPTIONS preflight from a page of another origin is
// allowed, with credentials and the headers it asks for.
func TestPreflight(t *testing.T) {
	h := newHandler(t, transporttest.NewAttacher(), Options{})
	r := httptest.NewRequest("OPTIONS", "/open", nil)
	r.Header.Set("Origin", "https://app.example")
	r.Header.Set("Access-Control-Request-Headers", "content-type")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	want := map[string]string{"Access-Control-Allow-Origin": "https://app.example", "Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Headers": "content-type", "Access-Control-Allow-Methods": "POST, OPTIONS"}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s %q, want %q", k, got, v)
		}
	}
	if w.Code != http.StatusNoContent {
		t.Errorf("status %d", w.Code)
	}
}

// TestSendReceive: a send is 204 and reaches the session; a plain
// receive answers one message, a batched one all of them, framed.
func TestSendReceive(t *testing.T) {
	a := transporttest.NewAttacher()
	h := newHandler(t, a, Options{})
	plain := open(t, h, "wamp.2.json")
	sp := <-a.Sessions
	batched := open(t, h, "wamp.2.json.batched")
	sb := <-a.Sessions
	defer close(sp.Release)
	defer close(sb.Release)
	sent := make(chan *httptest.ResponseRecorder)
	go func() { sent <- do(h, "POST", "/"+batched+"/send", []byte("[1,\"a\",{}]\x18[1,\"b\",{}]\x18")) }()
	for _, realm := range []string{"a", "b"} {
		m, err := sb.Peer.Recv()
		if err != nil || m.(*wamp.Hello).Realm != wamp.URI(realm) {
			t.Fatalf("Recv %v %v", m, err)
		}
	}
	if w := <-sent; w.Code != 204 {
		t.Fatalf("send: %d %s", w.Code, w.Body)
	}
	for _, s := range []*transporttest.Session{sp, sb} {
		for i := range 2 {
			if err := s.Peer.Send(&wamp.Published{Request: wamp.ID(i + 1), Publication: 9}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if w := do(h, "POST", "/"+plain+"/receive", nil); w.Body.String() != "[17,1,9]" || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("plain receive %q %q", w.Body, w.Header().Get("Content-Type"))
	}
	if w := do(h, "POST", "/"+batched+"/receive", nil); w.Body.String() != "[17,1,9]\x18[17,2,9]\x18" {
		t.Errorf("batched receive %q", w.Body)
	}
}

// TestRequestTimeout: a receive with nothing to deliver answers 200,
// empty, after the request timeout; a message queued while it is held
// answers it at once.
func TestRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, tid, s := openJSON(t, Options{RequestTimeout: 5 * time.Second, SessionTimeout: -1})
		start := time.Now()
		w := do(h, "POST", "/"+tid+"/receive", nil)
		if w.Code != 200 || w.Body.Len() != 0 || time.Since(start) != 5*time.Second {
			t.Errorf("idle receive: %d %q after %v", w.Code, w.Body, time.Since(start))
		}
		got := make(chan *httptest.ResponseRecorder)
		go func() { got <- do(h, "POST", "/"+tid+"/receive", nil) }()
		time.Sleep(time.Second)
		synctest.Wait()
		s.Peer.Send(&wamp.Published{Request: 1, Publication: 2})
		if w := <-got; w.Body.String() != "[17,1,2]" || time.Since(start) != 6*time.Second {
			t.Errorf("receive: %q after %v", w.Body, time.Since(start))
		}
	})
}

// TestSendBeforeHold: a message queued between a receive's first look at
// the queue and its wait (when there is no waiter to wake yet) answers it
// at once, not after the request timeout.
func TestSendBeforeHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, tid, s := openJSON(t, Options{RequestTimeout: 5 * time.Second, SessionTimeout: -1})
		hook := func() { s.Peer.Send(&wamp.Published{Request: 1, Publication: 2}) }
		beforeHold.Store(&hook)
		defer beforeHold.Store(nil)
		start := time.Now()
		if w := do(h, "POST", "/"+tid+"/receive", nil); w.Body.String() != "[17,1,2]" || time.Since(start) != 0 {
			t.Errorf("receive: %q after %v, want the message at once", w.Body, time.Since(start))
		}
	})
}

// TestSupersede: a second receive answers the held one empty.
func TestSupersede(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, tid, s := openJSON(t, Options{RequestTimeout: -1, SessionTimeout: -1})
		first := make(chan *httptest.ResponseRecorder)
		go func() { first <- do(h, "POST", "/"+tid+"/receive", nil) }()
		synctest.Wait()
		second := make(chan *httptest.ResponseRecorder)
		go func() { second <- do(h, "POST", "/"+tid+"/receive", nil) }()
		if w := <-first; w.Code != 200 || w.Body.Len() != 0 {
			t.Errorf("first: %d %q", w.Code, w.Body)
		}
		s.Peer.Send(&wamp.Published{Request: 1, Publication: 2})
		if w := <-second; w.Body.String() != "[17,1,2]" {
			t.Errorf("second: %q", w.Body)
		}
	})
}

// TestSessionTimeout: a transport with no request for the session
// timeout is closed (its session's Recv ends with ErrSessionTimeout and
// it is forgotten); a held receive and each request keep it alive.
func TestSessionTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		echo := transporttest.NewEcho()
		h := newHandler(t, echo, Options{RequestTimeout: 20 * time.Second, SessionTimeout: 30 * time.Second})
		tid := open(t, h, "wamp.2.json")
		start := time.Now()
		do(h, "POST", "/"+tid+"/receive", nil) // held 20 s, answered empty
		time.Sleep(29 * time.Second)
		do(h, "POST", "/"+tid+"/send", []byte(`[1,"realm1",{}]`))
		do(h, "POST", "/"+tid+"/receive", nil) // the echo
		if err := <-echo.Errs; !errors.Is(err, ErrSessionTimeout) || time.Since(start) != 79*time.Second {
			t.Errorf("session ended with %v after %v, want ErrSessionTimeout after 79s", err, time.Since(start))
		}
		synctest.Wait()
		if h.Len() != 0 {
			t.Errorf("%d transports left", h.Len())
		}
		if w := do(h, "POST", "/"+tid+"/receive", nil); w.Code != 404 {
			t.Errorf("receive after timeout: %d", w.Code)
		}
	})
}

// TestQueueLimits: past queue_limit_messages or queue_limit_bytes the
// session is closed as a slow consumer; what was queued can still be
// received, then the transport is gone.
func TestQueueLimits(t *testing.T) {
	big := &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{strings.Repeat("x", 600)}}
	tests := []struct {
		name string
		o    Options
		msg  wamp.Message
		fits int
	}{
		{"messages", Options{QueueLimitMessages: 3}, &wamp.Published{Request: 1, Publication: 2}, 3},
		{"bytes", Options{QueueLimitBytes: 1000}, big, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := transporttest.NewAttacher()
			h := newHandler(t, a, tt.o)
			tid := open(t, h, "wamp.2.json.batched")
			s := <-a.Sessions
			defer close(s.Release)
			for i := range tt.fits {
				if err := s.Peer.Send(tt.msg); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
			}
			if err := s.Peer.Send(tt.msg); !errors.Is(err, wamp.ErrSlowConsumer) {
				t.Fatalf("send past the limit: %v", err)
			}
			if _, err := s.Peer.Recv(); !errors.Is(err, wamp.ErrSlowConsumer) {
				t.Errorf("Recv: %v", err)
			}
			w := do(h, "POST", "/"+tid+"/receive", nil)
			if n := bytes.Count(w.Body.Bytes(), []byte{0x18}); n != tt.fits {
				t.Errorf("received %d messages, want %d", n, tt.fits)
			}
			if w := do(h, "POST", "/"+tid+"/receive", nil); w.Code != 404 {
				t.Errorf("receive after the queue drained: %d", w.Code)
			}
		})
	}
}

// TestCloseKeepsQueue: messages queued when the session closes (the
// router's GOODBYE) are received, then the transport is gone; a client's
// close ends the session with io.EOF.
func TestCloseKeepsQueue(t *testing.T) {
	a := transporttest.NewAttacher()
	h := newHandler(t, a, Options{})
	tid := open(t, h, "wamp.2.json")
	s := <-a.Sessions
	s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
	close(s.Release)
	<-s.Ended
	if w := do(h, "POST", "/"+tid+"/receive", nil); !strings.Contains(w.Body.String(), "wamp.close.normal") {
		t.Errorf("receive after close: %d %q", w.Code, w.Body)
	}
	if w := do(h, "POST", "/"+tid+"/receive", nil); w.Code != 404 {
		t.Errorf("then: %d", w.Code)
	}

	echo := transporttest.NewEcho()
	h = newHandler(t, echo, Options{})
	tid = open(t, h, "wamp.2.cbor")
	if w := do(h, "POST", "/"+tid+"/close", nil); w.Code != 204 {
		t.Errorf("close: %d", w.Code)
	}
	if err := <-echo.Errs; err.Error() != "EOF" {
		t.Errorf("session ended with %v", err)
	}
}

// TestShutdown: Shutdown answers a held receive at once.
func TestShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, tid, _ := openJSON(t, Options{RequestTimeout: -1})
		got := make(chan int)
		go func() { got <- do(h, "POST", "/"+tid+"/receive", nil).Code }()
		synctest.Wait()
		h.Shutdown()
		if code := <-got; code != 200 {
			t.Errorf("held receive: %d", code)
		}
	})
}

// TestSendUnencodable: a message JSON cannot encode is refused by Send
// with a *wamp.EncodeError (wamp.ErrUnencodable), nothing queued, and the
// transport stays open for the next.
func TestSendUnencodable(t *testing.T) {
	a := transporttest.NewAttacher()
	h := newHandler(t, a, Options{})
	id := open(t, h, "wamp.2.json")
	s := <-a.Sessions
	defer close(s.Release)
	err := s.Peer.Send(&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{math.NaN()}})
	if ee, ok := errors.AsType[*wamp.EncodeError](err); !ok || ee.Type != wamp.TypeEvent {
		t.Fatalf("Send = %v, want a *wamp.EncodeError for the EVENT", err)
	}
	if err := s.Peer.Send(&wamp.Published{Request: 1, Publication: 9}); err != nil {
		t.Fatal(err)
	}
	if w := do(h, "POST", "/"+id+"/receive", nil); w.Body.String() != "[17,1,9]" {
		t.Errorf("receive %q, want the PUBLISHED alone", w.Body)
	}
}
