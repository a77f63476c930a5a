package junction_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// answerWithin bounds the calls of TestJoinUnencodable, so that a call
// left waiting fails the test with its deadline rather than hang it.
const answerWithin = 30 * time.Second

// TestJoinUnencodable: an in-process session sends Go values as they are,
// and a value a socket's serializer cannot encode never leaves anyone
// waiting. Its CALL to a callee over JSON WebSocket with NaN, an infinity,
// a channel or a string that is not UTF-8 fails at once with ERROR
// wamp.error.invalid_argument; its result a JSON caller cannot take
// becomes that ERROR too, and its error the URI alone; its event with NaN
// is skipped for the JSON subscriber but reaches the MessagePack one. The
// sessions stay open.
func TestJoinUnencodable(t *testing.T) {
	n := startSockets(t)
	ws, raw, local := joinWS(t, n), joinRaw(t, n), joinLocal(t, n)
	ctx, cancel := context.WithTimeout(t.Context(), answerWithin)
	defer cancel()
	echo := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args}, nil
	}
	if _, err := ws.Register(ctx, "test.ws.echo", echo, nil); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []any{math.NaN(), math.Inf(-1), make(chan int), "a\xffb", map[any]int{struct{}{}: 1}} {
		_, err := local.Call(ctx, "test.ws.echo", wamp.List{arg}, nil)
		if e, ok := errors.AsType[*wamp.RequestError](err); !ok || e.URI != wamp.ErrInvalidArgument {
			t.Errorf("in-process Call with %T to a JSON callee: %v, want ERROR %s", arg, err, wamp.ErrInvalidArgument)
		}
	}
	if res, err := local.Call(ctx, "test.ws.echo", wamp.List{1.5}, nil); err != nil || res.Args[0] != 1.5 {
		t.Errorf("the next call: %v, %v", res, err)
	}

	if _, err := local.Register(ctx, "test.local.nan", func(context.Context, *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{math.NaN()}}, nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := local.Register(ctx, "test.local.error", func(context.Context, *client.Invocation) (*client.Result, error) {
		return nil, &wamp.RequestError{URI: "test.error.odd", Kwargs: wamp.Object{{Key: "why", Value: math.NaN()}}}
	}, nil); err != nil {
		t.Fatal(err)
	}
	for proc, want := range map[wamp.URI]wamp.URI{"test.local.nan": wamp.ErrInvalidArgument, "test.local.error": "test.error.odd"} {
		_, err := ws.Call(ctx, proc, nil, nil)
		if e, ok := errors.AsType[*wamp.RequestError](err); !ok || e.URI != want {
			t.Errorf("JSON Call(%s): %v, want ERROR %s", proc, err, want)
		}
	}

	wsEvents, rawEvents := make(chan any, 2), make(chan any, 2)
	for s, ch := range map[*client.Session]chan any{ws: wsEvents, raw: rawEvents} {
		if _, err := s.Subscribe(ctx, "test.topic", func(ev *client.Event) { ch <- ev.Args[0] }, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, arg := range []any{math.NaN(), "fine"} {
		if _, err := local.Publish(ctx, "test.topic", wamp.List{arg}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatalf("Publish(%v): %v", arg, err)
		}
	}
	if got := next(ctx, t, wsEvents); got != "fine" {
		t.Errorf("JSON subscriber's first event: %v, want the one after NaN", got)
	}
	if got, _ := next(ctx, t, rawEvents).(float64); !math.IsNaN(got) {
		t.Errorf("MessagePack subscriber's first event: %v, want NaN", got)
	}
	for _, s := range []*client.Session{ws, raw, local} {
		if s.Err() != nil {
			t.Errorf("a session ended: %v", s.Err())
		}
	}
}

// next returns the next value on ch, or fails t when ctx ends first.
func next[T any](ctx context.Context, t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("nothing on a %T channel", ch)
		var zero T
		return zero
	}
}
