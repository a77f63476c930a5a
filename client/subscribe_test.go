package client

import (
	"context"
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// subscribe subscribes h to topic through the fake router, as subscription id.
func subscribe(t *testing.T, s *Session, r *fakeRouter, topic wamp.URI, id wamp.ID, h EventHandler, opts wamp.Dict) *Subscription {
	t.Helper()
	type subResult struct {
		sub *Subscription
		err error
	}
	ch := make(chan subResult, 1)
	go func() {
		sub, err := s.Subscribe(context.Background(), topic, h, opts)
		ch <- subResult{sub, err}
	}()
	m := expect[*wamp.Subscribe](r)
	if m.Topic != topic {
		t.Errorf("SUBSCRIBE %+v", m)
	}
	r.send(&wamp.Subscribed{Request: m.Request, Subscription: id})
	got := recvFrom(t, ch)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.sub.ID() != id || got.sub.Topic() != topic {
		t.Errorf("subscription %d %s", got.sub.ID(), got.sub.Topic())
	}
	return got.sub
}

func TestEventsInOrder(t *testing.T) {
	s, r := joined(t, Config{})
	const n = 200
	events := make(chan *Event, n)
	subscribe(t, s, r, "com.a.", 10, func(ev *Event) { events <- ev }, wamp.Dict{"match": "prefix"})
	for i := range n {
		details := wamp.Dict{}
		if i%2 == 0 {
			details["topic"] = "com.a.b"
		}
		r.send(&wamp.Event{Subscription: 10, Publication: wamp.ID(i + 1), Details: details, Args: wamp.List{i}})
	}
	for i := range n {
		ev := recvFrom(t, events)
		if ev.Args[0] != i || ev.Publication != wamp.ID(i+1) {
			t.Fatalf("event %d: got %v (publication %d)", i, ev.Args, ev.Publication)
		}
		want := wamp.URI("com.a.")
		if i%2 == 0 {
			want = "com.a.b"
		}
		if ev.Topic != want {
			t.Errorf("event %d: topic %s, want %s", i, ev.Topic, want)
		}
	}
}

// A router gives a session's subscriptions of one topic the same ID: both
// handlers get each event, and UNSUBSCRIBE goes when the last one leaves.
func TestSharedSubscription(t *testing.T) {
	s, r := joined(t, Config{})
	a, b := make(chan int, 4), make(chan int, 4)
	subA := subscribe(t, s, r, "com.t", 10, func(ev *Event) { a <- ev.Args[0].(int) }, nil)
	subB := subscribe(t, s, r, "com.t", 10, func(ev *Event) { b <- ev.Args[0].(int) }, nil)
	r.send(&wamp.Event{Subscription: 10, Publication: 1, Details: wamp.Dict{}, Args: wamp.List{1}})
	if recvFrom(t, a) != 1 || recvFrom(t, b) != 1 {
		t.Fatal("event not delivered to both handlers")
	}
	if err := subA.Unsubscribe(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.send(&wamp.Event{Subscription: 10, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{2}})
	if recvFrom(t, b) != 2 {
		t.Fatal("second event not delivered")
	}
	done := async(func() error { return subB.Unsubscribe(context.Background()) })
	m := expect[*wamp.Unsubscribe](r) // the first Unsubscribe sent nothing
	if m.Subscription != 10 {
		t.Errorf("UNSUBSCRIBE %+v", m)
	}
	r.send(&wamp.Unsubscribed{Request: m.Request})
	if err := recvFrom(t, done); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-a:
		t.Errorf("unsubscribed handler got %d", v)
	default:
	}
}

func TestSubscriptionRevoked(t *testing.T) {
	s, r := joined(t, Config{})
	events := make(chan *Event, 4)
	subscribe(t, s, r, "com.t", 10, func(ev *Event) { events <- ev }, nil)
	r.send(&wamp.Unsubscribed{Request: 0, Details: wamp.Dict{"subscription": uint64(10), "reason": "x"}})
	r.send(&wamp.Event{Subscription: 10, Publication: 1, Details: wamp.Dict{}})
	subscribe(t, s, r, "com.u", 11, func(ev *Event) { events <- ev }, nil)
	r.send(&wamp.Event{Subscription: 11, Publication: 2, Details: wamp.Dict{}})
	if ev := recvFrom(t, events); ev.Publication != 2 {
		t.Errorf("event of a revoked subscription delivered: %+v", ev)
	}
}

func TestSlowConsumer(t *testing.T) {
	s, r := joined(t, Config{EventQueue: 2})
	release := make(chan struct{})
	first := make(chan struct{}, 1)
	subscribe(t, s, r, "com.t", 10, func(*Event) {
		select {
		case first <- struct{}{}:
		default:
		}
		<-release
	}, nil)
	r.send(&wamp.Event{Subscription: 10, Publication: 1, Details: wamp.Dict{}})
	recvFrom(t, first) // the handler holds event 1; the queue holds 2
	for i := range 3 {
		r.send(&wamp.Event{Subscription: 10, Publication: wamp.ID(i + 2), Details: wamp.Dict{}})
	}
	recvFrom(t, s.Done())
	close(release)
	if !errors.Is(s.Err(), ErrSlowConsumer) || !errors.Is(s.Err(), wamp.ErrSlowConsumer) {
		t.Errorf("Err %v, want ErrSlowConsumer", s.Err())
	}
}

func TestEventHandlerPanic(t *testing.T) {
	s, r := joined(t, Config{})
	events := make(chan *Event, 4)
	subscribe(t, s, r, "com.t", 10, func(ev *Event) {
		if ev.Publication == 1 {
			panic("boom")
		}
		events <- ev
	}, nil)
	r.send(&wamp.Event{Subscription: 10, Publication: 1, Details: wamp.Dict{}})
	r.send(&wamp.Event{Subscription: 10, Publication: 2, Details: wamp.Dict{}})
	if ev := recvFrom(t, events); ev.Publication != 2 {
		t.Errorf("event %+v", ev)
	}
}

func TestPublish(t *testing.T) {
	tests := []struct {
		name  string
		opts  wamp.Dict
		reply func(req wamp.ID) wamp.Message // nil: no acknowledgement
		want  error
	}{
		{"no acknowledge", nil, nil, nil},
		{"acknowledged", wamp.Dict{"acknowledge": true}, func(req wamp.ID) wamp.Message {
			return &wamp.Published{Request: req, Publication: 77}
		}, nil},
		{"refused", wamp.Dict{"acknowledge": true}, func(req wamp.ID) wamp.Message {
			return &wamp.Error{RequestType: wamp.TypePublish, Request: req, Details: wamp.Dict{}, Error: wamp.ErrNotAuthorized}
		}, &wamp.RequestError{URI: wamp.ErrNotAuthorized}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := joined(t, Config{})
			done := async(func() error {
				_, err := s.Publish(context.Background(), "com.t", wamp.List{1}, wamp.ObjectOf(wamp.Dict{"k": 2}), tt.opts)
				return err
			})
			m := expect[*wamp.Publish](r)
			if m.Topic != "com.t" || m.Args[0] != 1 || m.Kwargs.Dict()["k"] != 2 {
				t.Errorf("PUBLISH %+v", m)
			}
			if tt.reply == nil {
				if err := recvFrom(t, done); err != nil {
					t.Fatal(err)
				}
				return
			}
			select {
			case err := <-done:
				t.Fatalf("Publish returned %v before the router answered", err)
			default:
			}
			r.send(tt.reply(m.Request))
			if err := recvFrom(t, done); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

// The retained events the router sends after a get_retained SUBSCRIBE go
// to that subscription's handler alone: not to a handler of the same
// topic that never asked, nor to one that had its own already.
func TestRetainedGoToTheirSubscription(t *testing.T) {
	s, r := joined(t, Config{})
	a, b, c := make(chan int, 4), make(chan int, 4), make(chan int, 4)
	subscribe(t, s, r, "com.t", 10, func(ev *Event) { a <- ev.Args[0].(int) }, nil)
	retained := wamp.Dict{wamp.OptGetRetained: true}
	subscribe(t, s, r, "com.t", 10, func(ev *Event) { b <- ev.Args[0].(int) }, retained)
	r.send(&wamp.Event{Subscription: 10, Publication: 1, Details: wamp.Dict{wamp.OptRetained: true}, Args: wamp.List{1}})
	subC := subscribe(t, s, r, "com.t", 10, func(ev *Event) { c <- ev.Args[0].(int) }, retained)
	r.send(&wamp.Event{Subscription: 10, Publication: 1, Details: wamp.Dict{wamp.OptRetained: true}, Args: wamp.List{2}})
	r.send(&wamp.Event{Subscription: 10, Publication: 3, Details: wamp.Dict{}, Args: wamp.List{3}})
	for name, tt := range map[string]struct {
		ch   chan int
		want []int
	}{"a": {a, []int{3}}, "b": {b, []int{1, 3}}, "c": {c, []int{2, 3}}} {
		for _, want := range tt.want {
			if got := recvFrom(t, tt.ch); got != want {
				t.Errorf("handler %s: got event %d, want %d", name, got, want)
			}
		}
	}
	// Once the handler that asked is gone, a stray retained event goes to
	// every handler, as before.
	if err := subC.Unsubscribe(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.send(&wamp.Event{Subscription: 10, Publication: 4, Details: wamp.Dict{wamp.OptRetained: true}, Args: wamp.List{4}})
	if recvFrom(t, a) != 4 || recvFrom(t, b) != 4 {
		t.Error("a stray retained event was not delivered to the other handlers")
	}
}

// TestPassthru: PublishPassthru sends a passthru payload with its
// options; an EVENT with one reaches the handler as Event.Passthru.
func TestPassthru(t *testing.T) {
	s, r := joined(t, Config{})
	events := make(chan *Event, 1)
	subscribe(t, s, r, "com.t", 10, func(ev *Event) { events <- ev }, nil)
	done := async(func() error {
		_, err := s.PublishPassthru(context.Background(), "com.t", []byte{0, 1}, wamp.Dict{wamp.OptEncAlgo: "mqtt"})
		return err
	})
	m := expect[*wamp.Publish](r)
	if string(wamp.PayloadOf(m).Passthru()) != "\x00\x01" || m.Args != nil || m.Options[wamp.OptEncAlgo] != "mqtt" {
		t.Errorf("PUBLISH %+v", m)
	}
	if err := recvFrom(t, done); err != nil {
		t.Fatal(err)
	}
	r.send(&wamp.Event{Subscription: 10, Publication: 3, Details: wamp.Dict{wamp.OptEncAlgo: "mqtt"}, Raw: wamp.NewPassthru([]byte("raw"))})
	if ev := recvFrom(t, events); string(ev.Passthru) != "raw" || ev.Args != nil || ev.Details[wamp.OptEncAlgo] != "mqtt" {
		t.Errorf("event %+v", ev)
	}
}
