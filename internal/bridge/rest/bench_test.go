package rest

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkSubscriberForward measures events forwarded per second by one
// subscription to a local HTTP target. The publisher sends in windows and
// waits until the target has received each window, so that the
// subscriber's session never falls behind far enough to be disconnected as
// a slow consumer (which would lose the events published meanwhile).
func BenchmarkSubscriberForward(b *testing.B) {
	const window = 500
	b.ReportAllocs()
	var got, target atomic.Int64
	reached := make(chan struct{}, 1)
	srv := server(b, func(w http.ResponseWriter, r *http.Request) {
		if got.Add(1) == target.Load() {
			reached <- struct{}{}
		}
	})
	s, err := NewSubscriber(SubscriberOptions{QueueSize: window + 1,
		Subscriptions: []Subscription{{Topic: "com.example.bench", URL: srv.URL}}})
	if err != nil {
		b.Fatal(err)
	}
	e := newEnv(b)
	startComponent(b, e, s)
	pub, _ := e.client(b)
	kwargs := wamp.Dict{"temperature": 21.5, "unit": "C"}
	start := time.Now()
	b.ResetTimer()
	for sent := 0; sent < b.N; {
		n := min(window, b.N-sent)
		target.Store(int64(sent + n))
		for range n {
			if _, err := pub.Publish(testCtx(b), "com.example.bench", wamp.List{"sensor-1"}, wamp.ObjectOf(kwargs), ack); err != nil {
				b.Fatal(err)
			}
		}
		sent += n
		select {
		case <-reached:
		case <-time.After(time.Minute):
			b.Fatalf("forwarded %d of %d events; stats %+v", got.Load(), sent, s.Stats())
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkCalleeCall measures sequential calls per second through the
// Callee to a local target.
func BenchmarkCalleeCall(b *testing.B) {
	b.ReportAllocs()
	srv := server(b, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"ok":true}`)) })
	ce, err := NewCallee(CalleeOptions{Procedure: proc, BaseURL: srv.URL + "/api"})
	if err != nil {
		b.Fatal(err)
	}
	e := newEnv(b)
	startComponent(b, e, ce)
	caller, _ := e.client(b)
	kwargs := wamp.Dict{"method": "GET", "url": "items/1", "params": wamp.Dict{"q": "x"}}
	start := time.Now()
	b.ResetTimer()
	for range b.N {
		if _, err := caller.Call(testCtx(b), proc, nil, wamp.ObjectOf(kwargs)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}
