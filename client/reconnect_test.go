package client

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

// fakeDialer hands out pipes; the router ends arrive on conns. Dial fails
// while fail holds errors.
type fakeDialer struct {
	t     *testing.T
	conns chan *fakeRouter
	fail  chan error
}

func newFakeDialer(t *testing.T) *fakeDialer {
	return &fakeDialer{t: t, conns: make(chan *fakeRouter, 8), fail: make(chan error, 8)}
}

func (d *fakeDialer) dial(context.Context) (wamp.Peer, error) {
	select {
	case err := <-d.fail:
		return nil, err
	default:
	}
	c, r := pipe()
	d.conns <- &fakeRouter{t: d.t, p: r}
	return c, nil
}

// accept answers the next connection's HELLO with WELCOME(id).
func (d *fakeDialer) accept(id wamp.ID) *fakeRouter {
	d.t.Helper()
	r := recvFrom(d.t, d.conns)
	expect[*wamp.Hello](r)
	r.send(&wamp.Welcome{Session: id, Details: wamp.Dict{}})
	return r
}

type connectResult struct {
	c   *Client
	err error
}

func startConnect(t *testing.T, d *fakeDialer, opts ReconnectOptions) <-chan connectResult {
	ch := make(chan connectResult, 1)
	go func() {
		c, err := Connect(context.Background(), d.dial, Config{Realm: "r"}, opts)
		if c != nil {
			t.Cleanup(func() { c.Close() })
		}
		ch <- connectResult{c, err}
	}()
	return ch
}

func fastBackoff() ReconnectOptions {
	return ReconnectOptions{MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

func TestClientReconnect(t *testing.T) {
	d := newFakeDialer(t)
	joins, leaves := make(chan *Session, 4), make(chan error, 4)
	opts := fastBackoff()
	opts.OnJoin = func(s *Session) { joins <- s }
	opts.OnLeave = func(_ *Session, err error) { leaves <- err }
	ch := startConnect(t, d, opts)
	r1 := d.accept(1)
	res := recvFrom(t, ch)
	if res.err != nil {
		t.Fatal(res.err)
	}
	c := res.c
	if s := recvFrom(t, joins); s.ID() != 1 || c.Session() != s {
		t.Fatalf("joined %d", s.ID())
	}

	invoked, events := make(chan wamp.ID, 4), make(chan wamp.ID, 4)
	bg := context.Background()
	regCh := make(chan *Registration, 1)
	go func() {
		reg, _ := c.Register(bg, "com.p", func(_ context.Context, inv *Invocation) (*Result, error) {
			invoked <- inv.s.ID()
			return nil, nil
		}, nil)
		regCh <- reg
	}()
	m := expect[*wamp.Register](r1)
	r1.send(&wamp.Registered{Request: m.Request, Registration: 100})
	reg := recvFrom(t, regCh)
	subCh := make(chan *Subscription, 1)
	go func() {
		sub, _ := c.Subscribe(bg, "com.t", func(*Event) { events <- c.Session().ID() }, nil)
		subCh <- sub
	}()
	ms := expect[*wamp.Subscribe](r1)
	r1.send(&wamp.Subscribed{Request: ms.Request, Subscription: 10})
	sub := recvFrom(t, subCh)
	if reg == nil || sub == nil || reg.ID() != 100 || sub.ID() != 10 {
		t.Fatalf("register/subscribe failed: %v %v", reg, sub)
	}

	r1.p.Close() // the router drops the connection
	if err := recvFrom(t, leaves); err == nil {
		t.Error("OnLeave without an error")
	}
	if c.Session() != nil || reg.ID() != 0 {
		t.Error("still connected after the connection dropped")
	}
	call := startCallClient(c, "com.p")

	r2 := d.accept(2)
	m = expect[*wamp.Register](r2)
	if m.Procedure != "com.p" {
		t.Errorf("register again %+v", m)
	}
	r2.send(&wamp.Registered{Request: m.Request, Registration: 200})
	ms = expect[*wamp.Subscribe](r2)
	if ms.Topic != "com.t" {
		t.Errorf("subscribe again %+v", ms)
	}
	r2.send(&wamp.Subscribed{Request: ms.Request, Subscription: 20})
	mc := expect[*wamp.Call](r2) // the call waiting during the outage
	r2.send(&wamp.Result{Request: mc.Request, Details: wamp.Dict{}, Args: wamp.List{"ok"}})
	if got := recvFrom(t, call); got.err != nil || got.res.Args[0] != "ok" {
		t.Fatalf("call after reconnect: %+v %v", got.res, got.err)
	}
	if s := recvFrom(t, joins); s.ID() != 2 {
		t.Errorf("joined %d", s.ID())
	}
	if reg.ID() != 200 || sub.ID() != 20 {
		t.Errorf("IDs after reconnect %d %d", reg.ID(), sub.ID())
	}
	r2.send(&wamp.Invocation{Request: 1, Registration: 200, Details: wamp.Dict{}})
	expect[*wamp.Yield](r2)
	if id := recvFrom(t, invoked); id != 2 {
		t.Errorf("invoked on session %d", id)
	}
	r2.send(&wamp.Event{Subscription: 20, Publication: 1, Details: wamp.Dict{}})
	if id := recvFrom(t, events); id != 2 {
		t.Errorf("event on session %d", id)
	}

	// Unregistered and unsubscribed items are not renewed.
	done := async(func() error { return reg.Unregister(bg) })
	mu := expect[*wamp.Unregister](r2)
	r2.send(&wamp.Unregistered{Request: mu.Request})
	if err := recvFrom(t, done); err != nil {
		t.Fatal(err)
	}
	done = async(func() error { return sub.Unsubscribe(bg) })
	mus := expect[*wamp.Unsubscribe](r2)
	r2.send(&wamp.Unsubscribed{Request: mus.Request})
	if err := recvFrom(t, done); err != nil {
		t.Fatal(err)
	}
	r2.p.Close()
	recvFrom(t, leaves)
	r3 := d.accept(3)
	pub := async(func() error { _, err := c.Publish(bg, "com.x", nil, nil, nil); return err })
	if m := expect[*wamp.Publish](r3); m.Topic != "com.x" { // not a REGISTER or SUBSCRIBE
		t.Errorf("PUBLISH %+v", m)
	}
	if err := recvFrom(t, pub); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if !r3.closed() {
		t.Error("Close did not close the connection")
	}
}

func startCallClient(c *Client, proc wamp.URI) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		res, err := c.Call(context.Background(), proc, nil, nil)
		ch <- callResult{res, err}
	}()
	return ch
}

func TestConnectFirstFails(t *testing.T) {
	d := newFakeDialer(t)
	d.fail <- errors.New("refused")
	res := recvFrom(t, startConnect(t, d, fastBackoff()))
	if res.err == nil || res.c != nil {
		t.Fatalf("Connect: %v", res.err)
	}
}

func TestConnectRetryFirst(t *testing.T) {
	d := newFakeDialer(t)
	d.fail <- errors.New("refused")
	d.fail <- errors.New("refused")
	opts := fastBackoff()
	opts.RetryFirst = true
	ch := startConnect(t, d, opts)
	d.accept(1)
	res := recvFrom(t, ch)
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(d.fail) != 0 {
		t.Error("failing dials not all tried")
	}
}

func TestConnectRetryFirstCanceled(t *testing.T) {
	d := newFakeDialer(t)
	for range 8 {
		d.fail <- errors.New("refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	opts := ReconnectOptions{MinBackoff: time.Hour, RetryFirst: true}
	done := async(func() error {
		_, err := Connect(ctx, d.dial, Config{Realm: "r"}, opts)
		return err
	})
	cancel()
	if err := recvFrom(t, done); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
}

// TestConnectRetryFirstBadURL: a Dialer whose URL can never work fails
// Connect at once, RetryFirst or not.
func TestConnectRetryFirstBadURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := ReconnectOptions{MinBackoff: time.Hour, RetryFirst: true}
	_, err := Connect(ctx, NewDialer("ftp://localhost/ws", DialOptions{}), Config{Realm: "r"}, opts)
	if !errors.Is(err, ErrDialOptions) || ctx.Err() != nil {
		t.Errorf("err %v, want ErrDialOptions at once", err)
	}
}

func TestClientCloseReleasesWaiters(t *testing.T) {
	d := newFakeDialer(t)
	leaves := make(chan error, 1)
	opts := ReconnectOptions{MinBackoff: time.Hour, OnLeave: func(_ *Session, err error) { leaves <- err }}
	ch := startConnect(t, d, opts)
	r := d.accept(1)
	c := recvFrom(t, ch).c
	r.p.Close()
	recvFrom(t, leaves)
	call := startCallClient(c, "com.p")
	c.Close()
	if got := recvFrom(t, call); !errors.Is(got.err, ErrClosed) {
		t.Errorf("err %v, want ErrClosed", got.err)
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		name string
		opts ReconnectOptions
		want []time.Duration // the upper bound of each delay; the lower is half
	}{
		{"defaults", ReconnectOptions{}, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}},
		{"capped", ReconnectOptions{MinBackoff: time.Second, MaxBackoff: 3 * time.Second, Factor: 2},
			[]time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}},
		{"factor", ReconnectOptions{MinBackoff: time.Second, Factor: 3},
			[]time.Duration{time.Second, 3 * time.Second, 9 * time.Second}},
		{"max below min", ReconnectOptions{MinBackoff: time.Minute, MaxBackoff: time.Second},
			[]time.Duration{time.Minute, time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackoff(&tt.opts)
			for round := range 2 {
				for i, hi := range tt.want {
					if d := b.delay(); d < hi/2 || d > hi {
						t.Errorf("round %d delay %d: %v, want in [%v, %v]", round, i, d, hi/2, hi)
					}
				}
				b.reset()
			}
		})
	}
}

func TestClientLeave(t *testing.T) {
	d := newFakeDialer(t)
	leaves := make(chan error, 1)
	opts := fastBackoff()
	opts.OnLeave = func(_ *Session, err error) { leaves <- err }
	ch := startConnect(t, d, opts)
	r := d.accept(1)
	c := recvFrom(t, ch).c
	done := async(func() error { return c.Leave(context.Background()) })
	expect[*wamp.Goodbye](r)
	r.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrGoodbyeAndOut})
	if err := recvFrom(t, done); err != nil {
		t.Fatal(err)
	}
	if err := recvFrom(t, leaves); !errors.Is(err, ErrClosed) {
		t.Errorf("OnLeave: %v", err)
	}
	select {
	case <-d.conns:
		t.Error("redialed after Leave")
	default:
	}
}

// TestClientLogsSessionEnd: a session the router ends is logged at info
// (the client reconnects); one the client ends (Leave, Close) at debug
// only, so that a clean stop is quiet at --loglevel info.
func TestClientLogsSessionEnd(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, c *Client, r *fakeRouter)
		info bool // logged at info; at debug only otherwise
	}{
		{"lost", func(t *testing.T, c *Client, r *fakeRouter) { r.p.Close() }, true},
		{"left", func(t *testing.T, c *Client, r *fakeRouter) {
			done := async(func() error { return c.Leave(context.Background()) })
			expect[*wamp.Goodbye](r)
			r.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrGoodbyeAndOut})
			recvFrom(t, done)
		}, false},
		{"closed", func(t *testing.T, c *Client, r *fakeRouter) { c.Close() }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newFakeDialer(t)
			var log logtest.Log
			leaves := make(chan error, 1)
			opts := fastBackoff()
			opts.OnLeave = func(_ *Session, err error) { leaves <- err }
			ch := make(chan connectResult, 1)
			go func() {
				c, err := Connect(context.Background(), d.dial, Config{Realm: "r", Logger: log.Logger(slog.LevelDebug)}, opts)
				ch <- connectResult{c, err}
			}()
			r := d.accept(1)
			c := recvFrom(t, ch).c
			defer c.Close()
			tt.end(t, c, r)
			recvFrom(t, leaves) // logged before OnLeave
			// The session logs its end at debug too; the client's line
			// is the one at info, if any.
			info := 0
			for _, l := range log.Lines(t, "client: session ended") {
				if l["level"] == "INFO" && l["session"] == 1.0 {
					info++
				}
			}
			if want := map[bool]int{true: 1}[tt.info]; info != want {
				t.Errorf("%d lines at info, want %d:\n%s", info, want, &log)
			}
		})
	}
}
