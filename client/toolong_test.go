package client_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/wamp"
)

// limited is the MaxMessageSize of the sessions these tests refuse long
// messages to, and long a payload longer than that.
const limited = 1024

var long = strings.Repeat("x", 4*limited)

// TestTooLongForReceiver: a RESULT, INVOCATION or EVENT longer than its
// receiver's DialOptions.MaxMessageSize is never silently lost. Over
// RawSocket the client announces its limit and the router does not send
// such a message: the call fails with wamp.error.payload_size_exceeded,
// the subscriber misses the event, and every session stays open. Over
// WebSocket the router does not know the limit: the receiver closes its
// connection, and the router answers the others as for a session that
// left.
func TestTooLongForReceiver(t *testing.T) {
	tr := newTestRouter(t)
	for _, scheme := range []string{"rs", "ws"} {
		url := tr.urls[scheme]
		t.Run(scheme+"/result", func(t *testing.T) { testResultTooLong(t, url, scheme) })
		t.Run(scheme+"/invocation", func(t *testing.T) { testInvocationTooLong(t, url, scheme) })
		t.Run(scheme+"/event", func(t *testing.T) { testEventTooLong(t, url, scheme) })
	}
}

// joinLimited joins over url with MaxMessageSize limited.
func joinLimited(t *testing.T, url string) *client.Session {
	return join(t, url, client.DialOptions{MaxMessageSize: limited}, client.Config{Realm: realm})
}

// register registers proc on s, answering with reply (the call's
// arguments when nil).
func register(t *testing.T, s *client.Session, proc wamp.URI, reply wamp.List) {
	t.Helper()
	_, err := s.Register(ctx(t), proc, func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		if reply == nil {
			return &client.Result{Args: inv.Args}, nil
		}
		return &client.Result{Args: reply}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

func testResultTooLong(t *testing.T, url, scheme string) {
	announced := scheme == "rs" // RawSocket announces the limit
	callee := join(t, url, client.DialOptions{}, client.Config{Realm: realm})
	proc := wamp.URI("test.long_result." + scheme)
	register(t, callee, proc, wamp.List{long})
	register(t, callee, proc+".short", nil)
	caller := joinLimited(t, url)
	_, err := caller.Call(ctx(t), proc, nil, nil)
	if !announced {
		if err == nil {
			t.Fatal("a result over the limit was delivered")
		}
		<-caller.Done()
		if !strings.Contains(caller.Err().Error(), "too big") {
			t.Errorf("caller's session ended with %v, want a message too big", caller.Err())
		}
		return
	}
	if !errors.Is(err, &wamp.RequestError{URI: wamp.ErrPayloadSizeExceeded}) {
		t.Fatalf("Call: %v, want %s", err, wamp.ErrPayloadSizeExceeded)
	}
	if res, err := caller.Call(ctx(t), proc+".short", wamp.List{"short"}, nil); err != nil || res.Args[0] != "short" {
		t.Errorf("the next call: %v, %v", res, err)
	}
}

func testInvocationTooLong(t *testing.T, url, scheme string) {
	announced := scheme == "rs" // RawSocket announces the limit
	callee := joinLimited(t, url)
	proc := wamp.URI("test.long_invocation." + scheme)
	register(t, callee, proc, nil)
	caller := join(t, url, client.DialOptions{}, client.Config{Realm: realm})
	_, err := caller.Call(ctx(t), proc, wamp.List{long}, nil)
	if !announced {
		// The callee closed its connection: its invocation is canceled.
		if !errors.Is(err, &wamp.RequestError{URI: wamp.ErrCanceled}) {
			t.Errorf("Call: %v, want %s", err, wamp.ErrCanceled)
		}
		<-callee.Done()
		return
	}
	if !errors.Is(err, &wamp.RequestError{URI: wamp.ErrPayloadSizeExceeded}) {
		t.Fatalf("Call: %v, want %s", err, wamp.ErrPayloadSizeExceeded)
	}
	if res, err := caller.Call(ctx(t), proc, wamp.List{"short"}, nil); err != nil || res.Args[0] != "short" {
		t.Errorf("the next call: %v, %v", res, err)
	}
	if callee.Err() != nil {
		t.Errorf("callee's session ended: %v", callee.Err())
	}
}

func testEventTooLong(t *testing.T, url, scheme string) {
	announced := scheme == "rs" // RawSocket announces the limit
	topic := wamp.URI("test.long_event." + scheme)
	short, full := make(chan string, 2), make(chan string, 2)
	subscribe := func(s *client.Session, ch chan string) {
		_, err := s.Subscribe(ctx(t), topic, func(ev *client.Event) { ch <- ev.Args[0].(string) }, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	limitedSub := joinLimited(t, url)
	subscribe(limitedSub, short)
	subscribe(join(t, url, client.DialOptions{}, client.Config{Realm: realm}), full)
	pub := join(t, url, client.DialOptions{}, client.Config{Realm: realm})
	ack := wamp.Dict{"acknowledge": true}
	for _, arg := range []string{long, "short"} {
		if _, err := pub.Publish(ctx(t), topic, wamp.List{arg}, nil, ack); err != nil {
			t.Fatalf("Publish: %v", err)
		}
		if got := recvOne(t, full); got != arg {
			t.Errorf("full subscriber got %.10q, want %.10q", got, arg)
		}
		if !announced {
			<-limitedSub.Done() // closed on the long event
			return
		}
	}
	// The long event was skipped: the next one the subscriber gets is
	// the short one.
	if got := recvOne(t, short); got != "short" {
		t.Errorf("limited subscriber got %.10q, want the short event", got)
	}
	if limitedSub.Err() != nil {
		t.Errorf("limited subscriber's session ended: %v", limitedSub.Err())
	}
}

// TestAnswerTooLongForRouter: a callee's YIELD or ERROR longer than the
// router accepts over RawSocket (its announced maximum message length) is
// not sent; the callee answers with ERROR
// wamp.error.payload_size_exceeded, or the ERROR's URI alone, so that
// the caller is not left waiting.
func TestAnswerTooLongForRouter(t *testing.T) {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	srv, err := rawsocket.NewServer(rawsocket.Options{Attacher: r.Gate(), MaxMessageSize: limited})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	url := "rs://" + l.Addr().String()
	callee := join(t, url, client.DialOptions{}, client.Config{Realm: realm})
	register(t, callee, "test.long_result", wamp.List{long})
	_, err = callee.Register(ctx(t), "test.long_error", func(context.Context, *client.Invocation) (*client.Result, error) {
		return nil, &wamp.RequestError{URI: "test.error.long", Args: wamp.List{long}}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	caller := join(t, url, client.DialOptions{}, client.Config{Realm: realm})
	tests := []struct {
		proc wamp.URI
		want wamp.URI
	}{
		{"test.long_result", wamp.ErrPayloadSizeExceeded},
		{"test.long_error", "test.error.long"},
	}
	for _, tt := range tests {
		_, err := caller.Call(ctx(t), tt.proc, nil, nil)
		e, ok := errors.AsType[*wamp.RequestError](err)
		if !ok || e.URI != tt.want {
			t.Errorf("Call(%s): %v, want ERROR %s", tt.proc, err, tt.want)
		}
	}
	if callee.Err() != nil {
		t.Errorf("callee's session ended: %v", callee.Err())
	}
}
