package rest

import (
	"net/http"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestRouterRestart: the router goes away and a new one takes its place;
// both components work again on their reconnected clients, unrestarted.
func TestRouterRestart(t *testing.T) {
	rc, url := sink(t)
	target := server(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) })
	ce, err := NewCallee(CalleeOptions{Procedure: proc, BaseURL: target.URL})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := NewSubscriber(SubscriberOptions{Subscriptions: []Subscription{{Topic: "com.example.e", URL: url}}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	_, calleeJoined := startComponent(t, e, ce)
	_, subJoined := startComponent(t, e, sub)
	other, otherJoined := e.client(t)

	check := func() {
		t.Helper()
		res, err := call(testCtx(t), other, wamp.Dict{"method": "GET"})
		if err != nil || res["content"] != "pong" {
			t.Fatalf("call: %v, %v", res, err)
		}
		publish(t, other, "com.example.e", wamp.List{"x"}, nil)
		if got := recv(t, testCtx(t), rc.ch); got.body != `{"args":["x"],"kwargs":{}}` {
			t.Fatalf("forwarded %q", got.body)
		}
	}
	check()
	for range 2 {
		e.restart()
		for _, joined := range []<-chan struct{}{calleeJoined, subJoined, otherJoined} {
			recv(t, testCtx(t), joined)
		}
		check()
	}
}
