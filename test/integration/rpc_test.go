package integration

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

func add2(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	a, _ := wamp.AsInt(inv.Args[0])
	b, _ := wamp.AsInt(inv.Args[1])
	return &client.Result{Args: wamp.List{a + b}}, nil
}

func TestCall(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		if _, err := callee.Register(ctx(t), "com.example.add2", add2, nil); err != nil {
			t.Fatal(err)
		}
		res, err := caller.Call(ctx(t), "com.example.add2", wamp.List{2, 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := wamp.AsInt(res.Args[0]); n != 5 {
			t.Fatalf("add2(2, 3) = %v", res.Args)
		}
	})
}

// echo returns its arguments, so that values survive both directions of
// every codec.
func echo(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
}

func TestCallValuesRoundTrip(t *testing.T) {
	args := wamp.List{nil, true, false, int64(0), int64(-1), int64(1 << 53), int64(-(1 << 62)), 1.5,
		"", "héllo ✓", []byte{0, 1, 255}, wamp.List{int64(1), "x"}, wamp.Object{{Key: "nested", Value: wamp.Object{{Key: "k", Value: wamp.List{}}}}}}
	kwargs := wamp.ObjectOf(wamp.Dict{"a": int64(1), "b": wamp.List{"c"}, "bin": []byte("raw")})
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		if _, err := callee.Register(ctx(t), "com.example.echo", echo, nil); err != nil {
			t.Fatal(err)
		}
		res, err := caller.Call(ctx(t), "com.example.echo", args, kwargs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Args, args) || !reflect.DeepEqual(res.Kwargs, kwargs) {
			t.Fatalf("echo changed the values:\n got %#v %#v\nwant %#v %#v", res.Args, res.Kwargs, args, kwargs)
		}
	})
}

func TestCallErrors(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		fail := func(context.Context, *client.Invocation) (*client.Result, error) {
			return nil, &wamp.RequestError{URI: "com.example.oops", Args: wamp.List{"bad"}, Kwargs: wamp.ObjectOf(wamp.Dict{"code": int64(7)})}
		}
		if _, err := callee.Register(ctx(t), "com.example.fail", fail, nil); err != nil {
			t.Fatal(err)
		}
		_, err := caller.Call(ctx(t), "com.example.fail", nil, nil)
		var re *wamp.RequestError
		if !errors.As(err, &re) || re.URI != "com.example.oops" || !reflect.DeepEqual(re.Args, wamp.List{"bad"}) ||
			!reflect.DeepEqual(re.Kwargs, wamp.Object{{Key: "code", Value: int64(7)}}) {
			t.Fatalf("application error = %#v", err)
		}
		_, err = caller.Call(ctx(t), "com.example.nothing", nil, nil)
		if !errors.As(err, &re) || re.URI != wamp.ErrNoSuchProcedure {
			t.Fatalf("call of unregistered procedure = %v, want no_such_procedure", err)
		}
		_, err = caller.Call(ctx(t), "com..bad uri", nil, nil)
		if !errors.As(err, &re) || re.URI != wamp.ErrInvalidURI {
			t.Fatalf("call with invalid URI = %v, want invalid_uri", err)
		}
	})
}

func TestProgressiveResults(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		count := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			for i := 1; i <= 3; i++ {
				if err := inv.SendProgress(&client.Result{Args: wamp.List{i}}); err != nil {
					return nil, err
				}
			}
			return &client.Result{Args: wamp.List{"done"}}, nil
		}
		if _, err := callee.Register(ctx(t), "com.example.count", count, nil); err != nil {
			t.Fatal(err)
		}
		var got []int64
		res, err := caller.Call(ctx(t), "com.example.count", nil, nil, client.WithProgress(func(r *client.Result) {
			n, _ := wamp.AsInt(r.Args[0])
			got = append(got, n)
		}))
		if err != nil || res.Args[0] != "done" || !reflect.DeepEqual(got, []int64{1, 2, 3}) {
			t.Fatalf("progressive call: %v, %v, progress %v", res, err, got)
		}
	})
}

// blockUntilInterrupted is a procedure that only ends when its call is
// canceled; it reports the interruption on interrupted.
func blockUntilInterrupted(interrupted chan<- struct{}) client.InvocationHandler {
	return func(c context.Context, _ *client.Invocation) (*client.Result, error) {
		<-c.Done()
		interrupted <- struct{}{}
		return nil, c.Err()
	}
}

func TestCallTimeoutInterruptsCallee(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		interrupted := make(chan struct{}, 1)
		if _, err := callee.Register(ctx(t), "com.example.slow", blockUntilInterrupted(interrupted), nil); err != nil {
			t.Fatal(err)
		}
		_, err := caller.Call(ctx(t), "com.example.slow", nil, nil, client.WithTimeout(50*time.Millisecond))
		var re *wamp.RequestError
		if !errors.As(err, &re) || (re.URI != wamp.ErrTimeout && re.URI != wamp.ErrCanceled) {
			t.Fatalf("timed-out call = %v, want a timeout or canceled error", err)
		}
		<-interrupted
	})
}

func TestCancelByContext(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		interrupted := make(chan struct{}, 1)
		started := make(chan struct{})
		h := blockUntilInterrupted(interrupted)
		slow := func(c context.Context, inv *client.Invocation) (*client.Result, error) {
			close(started)
			return h(c, inv)
		}
		if _, err := callee.Register(ctx(t), "com.example.slow", slow, nil); err != nil {
			t.Fatal(err)
		}
		c, cancel := context.WithCancel(ctx(t))
		go func() { <-started; cancel() }()
		_, err := caller.Call(c, "com.example.slow", nil, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled call = %v, want context.Canceled", err)
		}
		<-interrupted
	})
}

func TestSharedRegistrationRoundRobin(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		caller := e.anon()
		for _, name := range []string{"a", "b"} {
			name := name
			s := e.anon()
			h := func(context.Context, *client.Invocation) (*client.Result, error) {
				return &client.Result{Args: wamp.List{name}}, nil
			}
			if _, err := s.Register(ctx(t), "com.example.who", h, wamp.Dict{"invoke": "roundrobin"}); err != nil {
				t.Fatal(err)
			}
		}
		var got []any
		for i := 0; i < 4; i++ {
			res, err := caller.Call(ctx(t), "com.example.who", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, res.Args[0])
		}
		if !reflect.DeepEqual(got, []any{"a", "b", "a", "b"}) {
			t.Fatalf("roundrobin answers = %v", got)
		}
	})
}

func TestCalleeLeavesMidCall(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		started := make(chan struct{})
		h := func(c context.Context, _ *client.Invocation) (*client.Result, error) {
			close(started)
			<-c.Done()
			return nil, c.Err()
		}
		if _, err := callee.Register(ctx(t), "com.example.stuck", h, nil); err != nil {
			t.Fatal(err)
		}
		go func() { <-started; callee.Close() }()
		_, err := caller.Call(ctx(t), "com.example.stuck", nil, nil)
		var re *wamp.RequestError
		if !errors.As(err, &re) {
			t.Fatalf("call whose callee left = %v, want a WAMP error at once", err)
		}
	})
}

func TestPatternRegistration(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		h := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: wamp.List{string(inv.Procedure)}}, nil
		}
		if _, err := callee.Register(ctx(t), "com.example.pre", h, wamp.Dict{"match": "prefix"}); err != nil {
			t.Fatal(err)
		}
		if _, err := callee.Register(ctx(t), "com..get", h, wamp.Dict{"match": "wildcard"}); err != nil {
			t.Fatal(err)
		}
		for uri, want := range map[wamp.URI]string{"com.example.prefixed": "com.example.prefixed", "com.thing.get": "com.thing.get"} {
			res, err := caller.Call(ctx(t), uri, nil, nil)
			if err != nil || res.Args[0] != want {
				t.Fatalf("call %s = %v, %v", uri, res, err)
			}
		}
	})
}

// TestCallPassthru: a call in passthru mode (Crossbar's form) reaches the
// callee byte for byte with its options, and its progressive result,
// final result and error come back so, over every transport and
// serializer.
func TestCallPassthru(t *testing.T) {
	raw := []byte("\x00\x01\xfe\xff not UTF-8: \xc3")
	enc := wamp.Dict{"enc_algo": "cryptobox", "enc_key": "k1", "enc_serializer": "cbor"}
	forEachTransport(t, func(t *testing.T, e *env) {
		callee, caller := e.anon(), e.anon()
		handler := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			for k, v := range enc {
				if inv.Details[k] != v {
					return nil, wamp.Errorf("com.error.details", "details %v: no %s", inv.Details, k)
				}
			}
			if string(inv.Passthru) == "fail" {
				return nil, &wamp.RequestError{URI: "com.error.sealed", Details: enc, Passthru: raw}
			}
			if err := inv.SendProgress(&client.Result{Passthru: []byte("half"), Details: enc}); err != nil {
				return nil, err
			}
			return &client.Result{Passthru: append([]byte("re:"), inv.Passthru...), Details: enc}, nil
		}
		if _, err := callee.Register(ctx(t), "com.example.sealed", handler, nil); err != nil {
			t.Fatal(err)
		}
		var progress []string
		res, err := caller.CallPassthru(ctx(t), "com.example.sealed", raw, enc,
			client.WithProgress(func(r *client.Result) { progress = append(progress, string(r.Passthru)) }))
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Passthru) != "re:"+string(raw) || res.Args != nil || res.Details["enc_algo"] != "cryptobox" {
			t.Errorf("result %+v", res)
		}
		if !reflect.DeepEqual(progress, []string{"half"}) {
			t.Errorf("progressive results %q", progress)
		}
		_, err = caller.CallPassthru(ctx(t), "com.example.sealed", []byte("fail"), enc)
		var re *wamp.RequestError
		if !errors.As(err, &re) || re.URI != "com.error.sealed" || !reflect.DeepEqual(re.Passthru, raw) || re.Details["enc_key"] != "k1" {
			t.Errorf("error %#v", err)
		}
	})
}
