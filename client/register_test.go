package client

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// register registers h on proc through the fake router, as registration 100.
func register(t *testing.T, s *Session, r *fakeRouter, proc wamp.URI, h InvocationHandler, opts wamp.Dict) *Registration {
	t.Helper()
	type regResult struct {
		reg *Registration
		err error
	}
	ch := make(chan regResult, 1)
	go func() {
		reg, err := s.Register(context.Background(), proc, h, opts)
		ch <- regResult{reg, err}
	}()
	m := expect[*wamp.Register](r)
	if m.Procedure != proc || !reflect.DeepEqual(m.Options, opts) {
		t.Errorf("REGISTER %+v", m)
	}
	r.send(&wamp.Registered{Request: m.Request, Registration: 100})
	got := recvFrom(t, ch)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.reg.ID() != 100 || got.reg.Procedure() != proc {
		t.Errorf("registration %d %s", got.reg.ID(), got.reg.Procedure())
	}
	return got.reg
}

func TestInvocationYield(t *testing.T) {
	s, r := joined(t, Config{})
	register(t, s, r, "com.", func(_ context.Context, inv *Invocation) (*Result, error) {
		return &Result{Args: wamp.List{inv.Procedure, inv.Args[0]}, Kwargs: inv.Kwargs}, nil
	}, wamp.Dict{"match": "prefix"})
	r.send(&wamp.Invocation{Request: 5, Registration: 100, Details: wamp.Dict{"procedure": "com.x"},
		Args: wamp.List{"a"}, Kwargs: wamp.ObjectOf(wamp.Dict{"k": 1})})
	y := expect[*wamp.Yield](r)
	if y.Request != 5 || !reflect.DeepEqual(y.Args, wamp.List{wamp.URI("com.x"), "a"}) || y.Kwargs.Dict()["k"] != 1 {
		t.Errorf("YIELD %+v", y)
	}
	if y.Options[wamp.OptProgress] == true {
		t.Error("final YIELD marked progress")
	}
}

func TestInvocationError(t *testing.T) {
	tests := []struct {
		name    string
		handler InvocationHandler
		want    *wamp.RequestError
	}{
		{"request error", func(context.Context, *Invocation) (*Result, error) {
			return nil, &wamp.RequestError{URI: "com.error.x", Args: wamp.List{1}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": 2})}
		}, &wamp.RequestError{URI: "com.error.x", Args: wamp.List{1}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": 2})}},
		{"wrapped request error", func(context.Context, *Invocation) (*Result, error) {
			return nil, errors.Join(errors.New("x"), wamp.Errorf("com.error.y", "y"))
		}, wamp.Errorf("com.error.y", "y")},
		{"plain error", func(context.Context, *Invocation) (*Result, error) {
			return nil, errors.New("disk full")
		}, wamp.Errorf(wamp.ErrRuntimeError, "disk full")},
		{"panic", func(context.Context, *Invocation) (*Result, error) {
			panic("boom")
		}, wamp.Errorf(wamp.ErrRuntimeError, "handler panicked: boom")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := joined(t, Config{})
			register(t, s, r, "com.p", tt.handler, nil)
			r.send(&wamp.Invocation{Request: 9, Registration: 100, Details: wamp.Dict{}})
			e := expect[*wamp.Error](r)
			got := &wamp.RequestError{URI: e.Error, Args: e.Args, Kwargs: e.Kwargs}
			if e.RequestType != wamp.TypeInvocation || e.Request != 9 || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ERROR %+v, want %+v", e, tt.want)
			}
		})
	}
}

// TestInvocationsConcurrent: a handler that blocks holds up neither the
// next invocation nor one that arrives after an invoker has gone idle.
func TestInvocationsConcurrent(t *testing.T) {
	s, r := joined(t, Config{})
	release := make(chan struct{})
	register(t, s, r, "com.p", func(ctx context.Context, inv *Invocation) (*Result, error) {
		if inv.Args[0] == "block" {
			<-release
		}
		return &Result{Args: inv.Args}, nil
	}, nil)
	r.send(&wamp.Invocation{Request: 1, Registration: 100, Details: wamp.Dict{}, Args: wamp.List{"quick"}})
	if y := expect[*wamp.Yield](r); y.Request != 1 {
		t.Fatalf("YIELD %+v, want request 1", y)
	}
	// The invoker of request 1 is idle now; it takes request 2, which
	// blocks, and requests 3 and 4 must still be answered.
	r.send(&wamp.Invocation{Request: 2, Registration: 100, Details: wamp.Dict{}, Args: wamp.List{"block"}})
	for _, req := range []wamp.ID{3, 4} {
		r.send(&wamp.Invocation{Request: req, Registration: 100, Details: wamp.Dict{}, Args: wamp.List{"quick"}})
		if y := expect[*wamp.Yield](r); y.Request != req {
			t.Fatalf("YIELD %+v, want request %d while request 2 blocks", y, req)
		}
	}
	close(release)
	if y := expect[*wamp.Yield](r); y.Request != 2 {
		t.Fatalf("YIELD %+v, want request 2", y)
	}
}

func TestInterrupt(t *testing.T) {
	s, r := joined(t, Config{})
	started := make(chan struct{})
	register(t, s, r, "com.slow", func(ctx context.Context, _ *Invocation) (*Result, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	r.send(&wamp.Invocation{Request: 3, Registration: 100, Details: wamp.Dict{}})
	recvFrom(t, started)
	r.send(&wamp.Interrupt{Request: 3, Options: wamp.Dict{"mode": "kill"}})
	e := expect[*wamp.Error](r)
	if e.Request != 3 || e.Error != wamp.ErrCanceled {
		t.Errorf("ERROR %+v, want wamp.error.canceled", e)
	}
}

func TestSendProgress(t *testing.T) {
	tests := []struct {
		name    string
		details wamp.Dict
		wantErr error
	}{
		{"asked", wamp.Dict{"receive_progress": true}, nil},
		{"not asked", wamp.Dict{}, ErrProgressNotRequested},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := joined(t, Config{})
			errs := make(chan error, 1)
			register(t, s, r, "com.stream", func(_ context.Context, inv *Invocation) (*Result, error) {
				errs <- inv.SendProgress(&Result{Args: wamp.List{"p"}})
				return &Result{Args: wamp.List{"final"}}, nil
			}, nil)
			r.send(&wamp.Invocation{Request: 4, Registration: 100, Details: tt.details})
			if err := recvFrom(t, errs); !errors.Is(err, tt.wantErr) {
				t.Errorf("SendProgress: %v, want %v", err, tt.wantErr)
			}
			y := expect[*wamp.Yield](r)
			if tt.wantErr == nil {
				if y.Options[wamp.OptProgress] != true || y.Args[0] != "p" {
					t.Errorf("progress YIELD %+v", y)
				}
				y = expect[*wamp.Yield](r)
			}
			if y.Args[0] != "final" || y.Options[wamp.OptProgress] == true {
				t.Errorf("final YIELD %+v", y)
			}
		})
	}
}

func TestInvocationUnknownRegistration(t *testing.T) {
	_, r := joined(t, Config{})
	r.send(&wamp.Invocation{Request: 8, Registration: 555, Details: wamp.Dict{}})
	if e := expect[*wamp.Error](r); e.Request != 8 || e.Error != wamp.ErrNoSuchRegistration {
		t.Errorf("ERROR %+v", e)
	}
}

func TestUnregister(t *testing.T) {
	s, r := joined(t, Config{})
	reg := register(t, s, r, "com.p", func(context.Context, *Invocation) (*Result, error) { return nil, nil }, nil)
	done := async(func() error { return reg.Unregister(context.Background()) })
	m := expect[*wamp.Unregister](r)
	if m.Registration != 100 {
		t.Errorf("UNREGISTER %+v", m)
	}
	r.send(&wamp.Unregistered{Request: m.Request})
	if err := recvFrom(t, done); err != nil {
		t.Fatal(err)
	}
	r.send(&wamp.Invocation{Request: 1, Registration: 100, Details: wamp.Dict{}})
	if e := expect[*wamp.Error](r); e.Error != wamp.ErrNoSuchRegistration {
		t.Errorf("invocation after unregister: %+v", e)
	}
}

// TestUnregisterRefused: an UNREGISTER the router refuses (a cluster
// without its table) keeps the registration: its invocations still run.
func TestUnregisterRefused(t *testing.T) {
	s, r := joined(t, Config{})
	reg := register(t, s, r, "com.p", func(context.Context, *Invocation) (*Result, error) {
		return &Result{Args: wamp.List{"still"}}, nil
	}, nil)
	done := async(func() error { return reg.Unregister(context.Background()) })
	m := expect[*wamp.Unregister](r)
	r.send(&wamp.Error{RequestType: wamp.TypeUnregister, Request: m.Request, Details: wamp.Dict{},
		Error: wamp.ErrClusterUnavailable})
	if err := recvFrom(t, done); !errors.Is(err, &wamp.RequestError{URI: wamp.ErrClusterUnavailable}) {
		t.Errorf("err %v", err)
	}
	r.send(&wamp.Invocation{Request: 1, Registration: 100, Details: wamp.Dict{}})
	if y := expect[*wamp.Yield](r); y.Args[0] != "still" {
		t.Errorf("invocation after a refused unregister: %+v", y)
	}
}

func TestRegisterRefused(t *testing.T) {
	s, r := joined(t, Config{})
	done := async(func() error {
		_, err := s.Register(context.Background(), "com.p", noInvocation, nil)
		return err
	})
	m := expect[*wamp.Register](r)
	r.send(&wamp.Error{RequestType: wamp.TypeRegister, Request: m.Request, Details: wamp.Dict{},
		Error: wamp.ErrProcedureAlreadyExists})
	if err := recvFrom(t, done); !errors.Is(err, &wamp.RequestError{URI: wamp.ErrProcedureAlreadyExists}) {
		t.Errorf("err %v", err)
	}
}

func TestRegisterAbandoned(t *testing.T) {
	s, r := joined(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := async(func() error {
		_, err := s.Register(ctx, "com.p", noInvocation, nil)
		return err
	})
	m := expect[*wamp.Register](r)
	cancel()
	if err := recvFrom(t, done); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	r.send(&wamp.Registered{Request: m.Request, Registration: 100})
	if u := expect[*wamp.Unregister](r); u.Registration != 100 {
		t.Errorf("UNREGISTER %+v", u)
	}
}

func TestRegistrationRevoked(t *testing.T) {
	s, r := joined(t, Config{})
	register(t, s, r, "com.p", func(context.Context, *Invocation) (*Result, error) { return nil, nil }, nil)
	r.send(&wamp.Unregistered{Request: 0, Details: wamp.Dict{"registration": uint64(100), "reason": "wamp.close.killed"}})
	r.send(&wamp.Invocation{Request: 1, Registration: 100, Details: wamp.Dict{}})
	if e := expect[*wamp.Error](r); e.Error != wamp.ErrNoSuchRegistration {
		t.Errorf("invocation after revocation: %+v", e)
	}
}

// noInvocation and noEvent are handlers for the tests of requests alone.
func noInvocation(context.Context, *Invocation) (*Result, error) { return nil, nil }
func noEvent(*Event)                                             {}

// TestNilHandler: Register and Subscribe refuse a nil handler at once,
// sending nothing, on a Session and on a Client.
func TestNilHandler(t *testing.T) {
	s, _ := joined(t, Config{})
	if _, err := s.Register(context.Background(), "com.p", nil, nil); !errors.Is(err, errNilHandler) {
		t.Errorf("Register: %v", err)
	}
	if _, err := s.Subscribe(context.Background(), "com.t", nil, nil); !errors.Is(err, errNilHandler) {
		t.Errorf("Subscribe: %v", err)
	}
	d := newFakeDialer(t)
	ch := startConnect(t, d, fastBackoff())
	d.accept(1)
	c := recvFrom(t, ch).c
	if _, err := c.Register(context.Background(), "com.p", nil, nil); !errors.Is(err, errNilHandler) {
		t.Errorf("Client.Register: %v", err)
	}
	if _, err := c.Subscribe(context.Background(), "com.t", nil, nil); !errors.Is(err, errNilHandler) {
		t.Errorf("Client.Subscribe: %v", err)
	}
}
