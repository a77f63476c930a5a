package client

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

type callResult struct {
	res *Result
	err error
}

// startCall runs s.Call in a goroutine.
func startCall(ctx context.Context, s *Session, proc wamp.URI, opts ...CallOption) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		res, err := s.Call(ctx, proc, wamp.List{1}, wamp.ObjectOf(wamp.Dict{"k": "v"}), opts...)
		ch <- callResult{res, err}
	}()
	return ch
}

func TestCallResult(t *testing.T) {
	s, r := joined(t, Config{})
	ch := startCall(context.Background(), s, "com.add")
	call := expect[*wamp.Call](r)
	if call.Procedure != "com.add" || !reflect.DeepEqual(call.Args, wamp.List{1}) || call.Kwargs.Dict()["k"] != "v" {
		t.Errorf("CALL %+v", call)
	}
	if call.Options != nil {
		t.Errorf("options %v, want none", call.Options)
	}
	r.send(&wamp.Result{Request: call.Request, Details: wamp.Dict{"d": 1}, Args: wamp.List{3}, Kwargs: wamp.ObjectOf(wamp.Dict{"x": 1})})
	got := recvFrom(t, ch)
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := &Result{Args: wamp.List{3}, Kwargs: wamp.ObjectOf(wamp.Dict{"x": 1}), Details: wamp.Dict{"d": 1}}
	if !reflect.DeepEqual(got.res, want) {
		t.Errorf("result %+v, want %+v", got.res, want)
	}
}

func TestCallError(t *testing.T) {
	s, r := joined(t, Config{})
	ch := startCall(context.Background(), s, "com.fail")
	call := expect[*wamp.Call](r)
	r.send(&wamp.Error{RequestType: wamp.TypeCall, Request: call.Request, Details: wamp.Dict{},
		Error: "com.error.bad", Args: wamp.List{"why"}, Kwargs: wamp.ObjectOf(wamp.Dict{"code": 4})})
	got := recvFrom(t, ch)
	re, ok := got.err.(*wamp.RequestError)
	if !ok {
		t.Fatalf("err %T %v, want *wamp.RequestError", got.err, got.err)
	}
	if re.URI != "com.error.bad" || !reflect.DeepEqual(re.Args, wamp.List{"why"}) || re.Kwargs.Dict()["code"] != 4 {
		t.Errorf("error %+v", re)
	}
}

func TestCallProgress(t *testing.T) {
	s, r := joined(t, Config{})
	var got []any
	ch := startCall(context.Background(), s, "com.stream", WithProgress(func(res *Result) {
		if !res.Progress {
			t.Error("progress result without Progress")
		}
		got = append(got, res.Args[0])
	}))
	call := expect[*wamp.Call](r)
	if call.Options[wamp.OptReceiveProgress] != true {
		t.Errorf("options %v", call.Options)
	}
	for i := range 3 {
		r.send(&wamp.Result{Request: call.Request, Details: wamp.Dict{"progress": true}, Args: wamp.List{i}})
	}
	r.send(&wamp.Result{Request: call.Request, Details: wamp.Dict{}, Args: wamp.List{"done"}})
	res := recvFrom(t, ch)
	if res.err != nil || res.res.Args[0] != "done" || res.res.Progress {
		t.Fatalf("final %+v %v", res.res, res.err)
	}
	if !reflect.DeepEqual(got, []any{0, 1, 2}) {
		t.Errorf("progress %v, want [0 1 2]", got)
	}
}

func TestCallCancel(t *testing.T) {
	tests := []struct {
		mode     string
		routerOK bool // the router answers before Call returns
	}{
		{"", true},
		{wamp.CancelKill, true},
		{wamp.CancelKillNoWait, false},
		{wamp.CancelSkip, false},
	}
	for _, tt := range tests {
		t.Run("mode="+tt.mode, func(t *testing.T) {
			s, r := joined(t, Config{})
			ctx, cancel := context.WithCancel(context.Background())
			var opts []CallOption
			if tt.mode != "" {
				opts = append(opts, WithCancelMode(tt.mode))
			}
			ch := startCall(ctx, s, "com.slow", opts...)
			call := expect[*wamp.Call](r)
			cancel()
			c := expect[*wamp.Cancel](r)
			want := tt.mode
			if want == "" {
				want = wamp.CancelKill
			}
			if c.Request != call.Request || c.Options[wamp.OptMode] != want {
				t.Errorf("CANCEL %+v", c)
			}
			if tt.routerOK {
				select {
				case res := <-ch:
					t.Fatalf("Call returned %v before the router answered", res.err)
				default:
				}
				r.send(&wamp.Error{RequestType: wamp.TypeCall, Request: call.Request, Details: wamp.Dict{}, Error: wamp.ErrCanceled})
			}
			got := recvFrom(t, ch)
			if !errors.Is(got.err, context.Canceled) {
				t.Errorf("err %v, want context.Canceled", got.err)
			}
			if tt.routerOK && !errors.Is(got.err, &wamp.RequestError{URI: wamp.ErrCanceled}) {
				t.Errorf("err %v, want the router's wamp.error.canceled too", got.err)
			}
			// A late answer is ignored, and the session goes on.
			r.send(&wamp.Error{RequestType: wamp.TypeCall, Request: call.Request, Details: wamp.Dict{}, Error: wamp.ErrCanceled})
			ch = startCall(context.Background(), s, "com.next")
			next := expect[*wamp.Call](r)
			r.send(&wamp.Result{Request: next.Request, Details: wamp.Dict{}})
			if got := recvFrom(t, ch); got.err != nil {
				t.Errorf("next call: %v", got.err)
			}
		})
	}
}

func TestCallTimeoutOption(t *testing.T) {
	deadline := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), time.Hour)
	}
	background := func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }
	tests := []struct {
		name    string
		cfg     time.Duration
		ctx     func() (context.Context, context.CancelFunc)
		opts    []CallOption
		want    any // the timeout option; nil for none
		wantRaw bool
	}{
		{"none", 0, background, nil, nil, false},
		{"config default", 1500 * time.Millisecond, background, nil, int64(1500), false},
		{"ctx deadline wins over the default", time.Second, deadline, nil, nil, false},
		{"explicit", time.Second, deadline, []CallOption{WithTimeout(250 * time.Millisecond)}, int64(250), false},
		{"raw options kept", 0, background, []CallOption{WithOptions(wamp.Dict{"disclose_me": true}),
			WithTimeout(time.Microsecond)}, int64(1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := joined(t, Config{CallTimeout: tt.cfg})
			ctx, cancel := tt.ctx()
			defer cancel()
			ch := startCall(ctx, s, "com.p", tt.opts...)
			call := expect[*wamp.Call](r)
			if got := call.Options[wamp.OptTimeout]; got != tt.want {
				t.Errorf("timeout option %v (%T), want %v", got, got, tt.want)
			}
			if tt.wantRaw && call.Options["disclose_me"] != true {
				t.Errorf("options %v lost disclose_me", call.Options)
			}
			r.send(&wamp.Result{Request: call.Request, Details: wamp.Dict{}})
			recvFrom(t, ch)
		})
	}
}

func TestCallWaitLimit(t *testing.T) {
	// The config's default timeout is not sent: the wait limit bounds the
	// call instead, on this side.
	s, r := joined(t, Config{CallTimeout: time.Hour})
	ch := startCall(context.Background(), s, "com.slow", WithWaitLimit(time.Millisecond), WithCancelMode(wamp.CancelKillNoWait))
	call := expect[*wamp.Call](r)
	if call.Options[wamp.OptTimeout] != nil {
		t.Errorf("CALL options %v: the wait limit is not the router's timeout", call.Options)
	}
	c := expect[*wamp.Cancel](r)
	if c.Request != call.Request || c.Options[wamp.OptMode] != wamp.CancelKillNoWait {
		t.Errorf("CANCEL %+v", c)
	}
	if got := recvFrom(t, ch); !errors.Is(got.err, context.DeadlineExceeded) {
		t.Errorf("err %v, want context.DeadlineExceeded", got.err)
	}
	// An answer within the limit is the result.
	ch = startCall(context.Background(), s, "com.fast", WithWaitLimit(time.Hour))
	next := expect[*wamp.Call](r)
	r.send(&wamp.Result{Request: next.Request, Details: wamp.Dict{}, Args: wamp.List{1}})
	if got := recvFrom(t, ch); got.err != nil || len(got.res.Args) != 1 {
		t.Errorf("call within the limit: %+v, %v", got.res, got.err)
	}
}

func TestCallAfterEnd(t *testing.T) {
	s, _ := joined(t, Config{})
	s.Close()
	_, err := s.Call(context.Background(), "com.p", nil, nil)
	if !errors.Is(err, ErrClosed) {
		t.Errorf("err %v, want ErrClosed", err)
	}
}

func TestCallCancelUnanswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, r := joined(t, Config{CancelWait: 2 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		ch := startCall(ctx, s, "com.slow")
		expect[*wamp.Call](r)
		start := time.Now()
		cancel()
		expect[*wamp.Cancel](r)
		got := recvFrom(t, ch)
		if !errors.Is(got.err, context.Canceled) {
			t.Errorf("err %v", got.err)
		}
		if waited := time.Since(start); waited != 2*time.Second {
			t.Errorf("Call returned after %v, want the CancelWait of 2s", waited)
		}
		s.Close()
	})
}

// TestConcurrentCallsGetTheirResults runs concurrent calls, some abandoned
// with a late answer: each call must get its own result.
func TestConcurrentCallsGetTheirResults(t *testing.T) {
	s, r := joined(t, Config{})
	go echoRouter(r.p)
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := range 200 {
				ctx, cancel := context.WithCancel(context.Background())
				if i%7 == 0 {
					cancel() // abandoned: its late RESULT must reach no other call
				}
				want := int64(g*1000 + i)
				res, err := s.Call(ctx, "com.echo", wamp.List{want}, nil, WithCancelMode(wamp.CancelSkip))
				cancel()
				if err == nil && (len(res.Args) != 1 || res.Args[0] != want) {
					errs <- fmt.Errorf("call %d got %v", want, res.Args)
					return
				}
				if err != nil && !errors.Is(err, context.Canceled) {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := recvFrom(t, errs); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTimerReuse: a wait-limit timer kept for reuse after it fired unread
// (a reply and the limit at once) does not fire early for the next call.
func TestTimerReuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &Session{}
		first := s.timer(time.Second)
		time.Sleep(2 * time.Second) // fired, unread
		s.stopTimer(first)
		next := s.timer(time.Minute) // first again, unless the pool dropped it (as it may under -race)
		start := time.Now()
		<-next.C
		if waited := time.Since(start); waited != time.Minute {
			t.Fatalf("reused timer fired after %v, want 1m", waited)
		}
		s.stopTimer(next)
	})
}
