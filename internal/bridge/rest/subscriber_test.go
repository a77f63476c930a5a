package rest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

var ack = wamp.Dict{wamp.OptAcknowledge: true}

// subscriberEnv starts a Subscriber with o (small backoffs unless set)
// and returns it with a publisher client.
func subscriberEnv(t *testing.T, o SubscriberOptions) (*Subscriber, *client.Client) {
	t.Helper()
	if o.MinBackoff == 0 {
		o.MinBackoff, o.MaxBackoff = time.Millisecond, 5*time.Millisecond
	}
	s, err := NewSubscriber(o)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	startComponent(t, e, s)
	pub, _ := e.client(t)
	return s, pub
}

// publish publishes with acknowledge and returns the publication ID.
func publish(t testing.TB, pub *client.Client, topic wamp.URI, args wamp.List, kwargs wamp.Dict) wamp.ID {
	t.Helper()
	id, err := pub.Publish(testCtx(t), topic, args, wamp.ObjectOf(kwargs), ack)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// sink is a target that sends each request it accepts on a channel.
func sink(t *testing.T) (*recorderChan, string) {
	rc := &recorderChan{ch: make(chan seen, 2000)}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { rc.accept(r) })
	return rc, srv.URL
}

type recorderChan struct{ ch chan seen }

func (rc *recorderChan) accept(r *http.Request) {
	rec := &recorder{}
	rec.record(r)
	rc.ch <- rec.last()
}

func TestSubscriberBodyAndHeaders(t *testing.T) {
	rc, url := sink(t)
	_, pub := subscriberEnv(t, SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.t", URL: url + "/hook?x=1"}}})
	tests := []struct {
		name   string
		args   wamp.List
		kwargs wamp.Dict
		want   string
	}{
		{"both", wamp.List{int64(1), "a<b>&", wamp.Dict{"x": nil}}, wamp.Dict{"k": "ü", "a": 1.5},
			`{"args":[1,"a<b>&",{"x":null}],"kwargs":{"a":1.5,"k":"ü"}}`},
		{"none", nil, nil, `{"args":[],"kwargs":{}}`},
		{"kwargs only", nil, wamp.Dict{"b": true}, `{"args":[],"kwargs":{"b":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := publish(t, pub, "com.example.t", tt.args, tt.kwargs)
			got := recv(t, testCtx(t), rc.ch)
			if got.body != tt.want {
				t.Errorf("body = %s, want %s", got.body, tt.want)
			}
			if got.method != "POST" || got.path != "/hook" || got.query != "x=1" {
				t.Errorf("request = %s %s?%s", got.method, got.path, got.query)
			}
			h := got.header
			if h.Get("Content-Type") != "application/json" || h.Get("X-Wamp-Topic") != "com.example.t" ||
				h.Get("X-Wamp-Publication") != strconv.FormatUint(uint64(id), 10) {
				t.Errorf("headers = %v, publication %d", h, id)
			}
		})
	}
}

func TestSubscriberMatchPolicies(t *testing.T) {
	prefix, purl := sink(t)
	wild, wurl := sink(t)
	_, pub := subscriberEnv(t, SubscriberOptions{Method: "PUT", Subscriptions: []Subscription{
		{Topic: "com.example.", URL: purl, Match: "prefix"},
		{Topic: "com..event", URL: wurl, Match: "wildcard"},
	}})
	publish(t, pub, "com.example.a.b", nil, nil)
	publish(t, pub, "com.other.event", nil, nil)
	if got := recv(t, testCtx(t), prefix.ch); got.header.Get("X-Wamp-Topic") != "com.example.a.b" || got.method != "PUT" {
		t.Errorf("prefix: %s topic %q", got.method, got.header.Get("X-Wamp-Topic"))
	}
	if got := recv(t, testCtx(t), wild.ch); got.header.Get("X-Wamp-Topic") != "com.other.event" {
		t.Errorf("wildcard: topic %q", got.header.Get("X-Wamp-Topic"))
	}
}

// seq reads the "i" kwarg of a forwarded body.
func seq(t *testing.T, s seen) int {
	var b struct{ Kwargs struct{ I int } }
	if err := json.Unmarshal([]byte(s.body), &b); err != nil {
		t.Fatalf("body %q: %v", s.body, err)
	}
	return b.Kwargs.I
}

func TestSubscriberOrderUnderLoad(t *testing.T) {
	const n = 1000
	rc, url := sink(t)
	s, pub := subscriberEnv(t, SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.load", URL: url}},
		QueueSize: n})
	for i := range n {
		if _, err := pub.Publish(testCtx(t), "com.example.load", nil, wamp.ObjectOf(wamp.Dict{"i": i}), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if got := seq(t, recv(t, testCtx(t), rc.ch)); got != i {
			t.Fatalf("event %d arrived as number %d", got, i)
		}
	}
	if st := s.Stats(); st.Dropped != 0 || st.QueueFull != 0 {
		t.Errorf("stats = %+v", st)
	}
}

// flaky is a target that fails its first `fails` requests, by status or by
// closing the connection, then accepts.
func flaky(t *testing.T, fails int, hangUp bool) (*recorderChan, string) {
	rc := &recorderChan{ch: make(chan seen, 100)}
	var mu sync.Mutex
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fail := fails > 0
		fails--
		mu.Unlock()
		switch {
		case !fail:
			rc.accept(r)
		case hangUp:
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	return rc, srv.URL
}

// TestSubscriberRecovery: a target down for a while (within the retry
// budget) then back receives every event, in order.
func TestSubscriberRecovery(t *testing.T) {
	for _, hangUp := range []bool{false, true} {
		t.Run("hangup="+strconv.FormatBool(hangUp), func(t *testing.T) {
			const n = 20
			rc, url := flaky(t, 4, hangUp)
			s, pub := subscriberEnv(t, SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.r", URL: url}},
				Retries: 4})
			for i := range n {
				publish(t, pub, "com.example.r", nil, wamp.Dict{"i": i})
			}
			for i := range n {
				if got := seq(t, recv(t, testCtx(t), rc.ch)); got != i {
					t.Fatalf("event %d arrived as number %d", got, i)
				}
			}
			if st := s.Stats(); st.Retried != 4 || st.Dropped != 0 {
				t.Errorf("stats = %+v, want 4 retries and no drop", st)
			}
		})
	}
}

// TestSubscriberDeadTarget: a target that never answers cannot make the
// queue grow past its bound; the overflow is counted, and Stop gives up.
func TestSubscriberDeadTarget(t *testing.T) {
	arrived := make(chan struct{}, 1)
	dead := server(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // or the server never notices the client going
		arrived <- struct{}{}
		<-r.Context().Done()
	})
	marker, murl := sink(t)
	s, err := NewSubscriber(SubscriberOptions{QueueSize: 10, Subscriptions: []Subscription{
		{Topic: "com.example.dead", URL: dead.URL}, {Topic: "com.example.marker", URL: murl}}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	c, _ := e.client(t)
	if err := s.Start(testCtx(t), c); err != nil {
		t.Fatal(err)
	}
	pub, _ := e.client(t)
	publish(t, pub, "com.example.dead", nil, nil)
	recv(t, testCtx(t), arrived) // the first event is in flight
	for range 99 {
		publish(t, pub, "com.example.dead", nil, nil)
	}
	publish(t, pub, "com.example.marker", nil, nil)
	recv(t, testCtx(t), marker.ch) // events are dispatched in order: all 99 were pushed
	if st := s.Stats(); st.QueueFull != 89 {
		t.Errorf("stats = %+v, want 89 dropped as queue full", st)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 20*time.Millisecond)
	defer cancel()
	if err := s.Stop(ctx); err == nil {
		t.Error("Stop returned nil with a dead target")
	}
	if st := s.Stats(); st.Dropped != 11 {
		t.Errorf("stats = %+v, want 11 dropped (in flight and queued)", st)
	}
}

// TestSubscriberExpectedCode: a status other than expectedcode is retried,
// then dropped.
func TestSubscriberExpectedCode(t *testing.T) {
	reqs := make(chan seen, 10)
	release := make(chan struct{}) // holds the answer to event 1 until the stats are read
	defer close(release)
	var n atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{}
		rec.record(r)
		reqs <- rec.last()
		if n.Add(1) == 4 { // event 1, after three attempts of event 0
			<-release
		}
	}) // answers 200
	s, pub := subscriberEnv(t, SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.x", URL: srv.URL}},
		ExpectedCode: 201, Retries: 2})
	publish(t, pub, "com.example.x", nil, wamp.Dict{"i": 0})
	publish(t, pub, "com.example.x", nil, wamp.Dict{"i": 1})
	for range 3 {
		if got := seq(t, recv(t, testCtx(t), reqs)); got != 0 {
			t.Fatalf("got event %d, want 3 attempts of event 0", got)
		}
	}
	if got := seq(t, recv(t, testCtx(t), reqs)); got != 1 {
		t.Fatalf("got event %d, want event 1", got)
	}
	if st := s.Stats(); st.Retried != 2 || st.Dropped != 1 || st.Delivered != 0 {
		t.Errorf("stats = %+v, want 2 retries, 1 dropped", st)
	}
}

func TestSubscriberClientErrorNotRetried(t *testing.T) {
	reqs := make(chan int, 10)
	release := make(chan struct{}) // the second event's answer waits for it
	var n atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		reqs <- 1
		if n.Add(1) == 2 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(http.StatusBadRequest)
	})
	s, pub := subscriberEnv(t, SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.x", URL: srv.URL}}})
	publish(t, pub, "com.example.x", nil, nil)
	publish(t, pub, "com.example.x", nil, nil)
	recv(t, testCtx(t), reqs)
	recv(t, testCtx(t), reqs) // the second event: the first was not retried
	st := s.Stats()
	close(release)
	if st.Retried != 0 || st.Dropped != 1 {
		t.Errorf("stats = %+v, want the first event dropped without a retry", st)
	}
}

// TestSubscriberStopDelivers: Stop delivers what is queued before returning.
func TestSubscriberStopDelivers(t *testing.T) {
	release := make(chan struct{})
	rc := &recorderChan{ch: make(chan seen, 10)}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		rc.accept(r)
	})
	marker, murl := sink(t)
	s, err := NewSubscriber(SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.s", URL: srv.URL},
		{Topic: "com.example.marker", URL: murl}}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	c, _ := e.client(t)
	if err := s.Start(testCtx(t), c); err != nil {
		t.Fatal(err)
	}
	pub, _ := e.client(t)
	for i := range 3 {
		publish(t, pub, "com.example.s", nil, wamp.Dict{"i": i})
	}
	publish(t, pub, "com.example.marker", nil, nil)
	recv(t, testCtx(t), marker.ch) // the 3 events are queued: dispatch keeps order
	close(release)
	if err := s.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if len(rc.ch) != 3 || s.Stats().Delivered != 4 {
		t.Errorf("delivered %d (stats %+v), want 3 and the marker", len(rc.ch), s.Stats())
	}
}

// TestSubscriberRedirects: 307 and 308 keep method and body and are
// followed; 302 would turn the POST into a GET and is a failure.
func TestSubscriberRedirects(t *testing.T) {
	rc, url := sink(t)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusTemporaryRedirect
		if r.URL.Path == "/found" {
			code = http.StatusFound
		}
		http.Redirect(w, r, url+"/moved", code)
	})
	_, pub := subscriberEnv(t, SubscriberOptions{Retries: NoRetries, Subscriptions: []Subscription{
		{Topic: "com.example.a", URL: srv.URL + "/found"}, {Topic: "com.example.a", URL: srv.URL + "/temp"}}})
	publish(t, pub, "com.example.a", wamp.List{"x"}, nil)
	if got := recv(t, testCtx(t), rc.ch); got.method != "POST" || got.body != `{"args":["x"],"kwargs":{}}` {
		t.Errorf("307: got %s %s", got.method, got.body)
	}
	select {
	case got := <-rc.ch:
		t.Errorf("302 was followed: %s %s", got.method, got.path)
	default:
	}
}

// TestSubscriberNeverBlocksDispatch: with a queue of 1 and a target that
// never answers, events are dropped rather than slow the session down.
func TestSubscriberNeverBlocksDispatch(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // accepts nothing: connections wait in the backlog
	marker, murl := sink(t)
	s, pub := subscriberEnv(t, SubscriberOptions{QueueSize: 1, Timeout: 50 * time.Millisecond,
		Subscriptions: []Subscription{{Topic: "com.example.q", URL: "http://" + ln.Addr().String()},
			{Topic: "com.example.marker", URL: murl}}})
	for range 200 {
		publish(t, pub, "com.example.q", nil, nil)
	}
	publish(t, pub, "com.example.marker", nil, nil)
	recv(t, testCtx(t), marker.ch)
	if st := s.Stats(); st.QueueFull < 190 {
		t.Errorf("stats = %+v, want about 198 events dropped as queue full", st)
	}
}

// TestSubscriberDropsPassthru: an event with a passthru payload (opaque
// bytes, no arguments) is not posted: it is counted as dropped, and the
// next event goes out.
func TestSubscriberDropsPassthru(t *testing.T) {
	rc, url := sink(t)
	s, pub := subscriberEnv(t, SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.p", URL: url}}})
	opts := wamp.Dict{wamp.OptAcknowledge: true, wamp.OptEncAlgo: "mqtt"}
	if _, err := pub.PublishPassthru(testCtx(t), "com.example.p", []byte{1}, opts); err != nil {
		t.Fatal(err)
	}
	publish(t, pub, "com.example.p", wamp.List{"after"}, nil)
	if got := recv(t, testCtx(t), rc.ch); got.body != `{"args":["after"],"kwargs":{}}` {
		t.Errorf("body = %s, want the second event's", got.body)
	}
	if st := s.Stats(); st.Dropped != 1 {
		t.Errorf("stats = %+v, want the passthru event dropped", st)
	}
}
