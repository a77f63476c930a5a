package client

import (
	"context"
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestSessionEndReleasesWaiters(t *testing.T) {
	s, r := joined(t, Config{})
	invCtx := make(chan context.Context, 1)
	register(t, s, r, "com.p", func(ctx context.Context, _ *Invocation) (*Result, error) {
		invCtx <- ctx
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	r.send(&wamp.Invocation{Request: 1, Registration: 100, Details: wamp.Dict{}})
	ctx := recvFrom(t, invCtx)
	bg := context.Background()
	waiters := []<-chan error{
		async(func() error { _, err := s.Call(bg, "com.a", nil, nil); return err }),
		async(func() error { _, err := s.Call(bg, "com.b", nil, nil, WithProgress(func(*Result) {})); return err }),
		async(func() error { _, err := s.Register(bg, "com.c", noInvocation, nil); return err }),
		async(func() error { _, err := s.Subscribe(bg, "com.d", noEvent, nil); return err }),
		async(func() error { _, err := s.Publish(bg, "com.e", nil, nil, wamp.Dict{"acknowledge": true}); return err }),
	}
	for range waiters {
		r.recv() // every request was sent
	}
	r.p.Close()
	errs := make([]error, len(waiters))
	for i, w := range waiters {
		errs[i] = recvFrom(t, w)
	}
	recvFrom(t, s.Done())
	for i, err := range errs {
		if !errors.Is(err, s.Err()) {
			t.Errorf("waiter %d: %v, want the session's error %v", i, err, s.Err())
		}
	}
	recvFrom(t, ctx.Done())
	if s.Err() == nil || errors.Is(s.Err(), ErrClosed) {
		t.Errorf("Err %v, want the connection's error", s.Err())
	}
}

func TestRouterGoodbye(t *testing.T) {
	s, r := joined(t, Config{})
	r.send(&wamp.Goodbye{Details: wamp.Dict{"message": "bye"}, Reason: wamp.ErrSystemShutdown})
	g := expect[*wamp.Goodbye](r)
	if g.Reason != wamp.ErrGoodbyeAndOut {
		t.Errorf("client GOODBYE reason %s", g.Reason)
	}
	recvFrom(t, s.Done())
	re, ok := errors.AsType[*wamp.RequestError](s.Err())
	if !ok || re.URI != wamp.ErrSystemShutdown || re.Args[0] != "bye" {
		t.Errorf("Err %v", s.Err())
	}
	if !r.closed() {
		t.Error("peer not closed")
	}
}

func TestRouterAbort(t *testing.T) {
	s, r := joined(t, Config{})
	r.send(&wamp.Abort{Details: wamp.Dict{}, Reason: wamp.ErrKilled})
	recvFrom(t, s.Done())
	if !errors.Is(s.Err(), &wamp.RequestError{URI: wamp.ErrKilled}) {
		t.Errorf("Err %v", s.Err())
	}
}

func TestLeave(t *testing.T) {
	s, r := joined(t, Config{})
	done := async(func() error { return s.Leave(context.Background()) })
	g := expect[*wamp.Goodbye](r)
	if g.Reason != wamp.ErrCloseRealm {
		t.Errorf("GOODBYE reason %s", g.Reason)
	}
	r.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrGoodbyeAndOut})
	if err := recvFrom(t, done); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(s.Err(), ErrClosed) || !r.closed() {
		t.Errorf("Err %v", s.Err())
	}
	if err := s.Leave(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("second Leave: %v", err)
	}
}

func TestLeaveTimeout(t *testing.T) {
	s, r := joined(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := async(func() error { return s.Leave(ctx) })
	expect[*wamp.Goodbye](r)
	cancel()
	if err := recvFrom(t, done); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	if !r.closed() {
		t.Error("peer not closed")
	}
}

func TestProtocolViolation(t *testing.T) {
	s, r := joined(t, Config{})
	r.send(&wamp.Welcome{Session: 1, Details: wamp.Dict{}})
	if a := expect[*wamp.Abort](r); a.Reason != wamp.ErrProtocolViolation {
		t.Errorf("ABORT %+v", a)
	}
	recvFrom(t, s.Done())
	if !errors.Is(s.Err(), &wamp.RequestError{URI: wamp.ErrProtocolViolation}) {
		t.Errorf("Err %v", s.Err())
	}
}

func TestLateRepliesIgnored(t *testing.T) {
	s, r := joined(t, Config{})
	r.send(&wamp.Result{Request: 999, Details: wamp.Dict{}})
	r.send(&wamp.Result{Request: 999, Details: wamp.Dict{"progress": true}})
	r.send(&wamp.Published{Request: 998, Publication: 1})
	r.send(&wamp.Event{Subscription: 5, Publication: 1, Details: wamp.Dict{}})
	r.send(&wamp.Interrupt{Request: 5, Options: wamp.Dict{}})
	ch := startCall(context.Background(), s, "com.p")
	call := expect[*wamp.Call](r)
	r.send(&wamp.Result{Request: call.Request, Details: wamp.Dict{}})
	if got := recvFrom(t, ch); got.err != nil {
		t.Fatal(got.err)
	}
}
