package client

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// conn is the shared state of a fake connection: closing either end closes
// both.
type conn struct {
	done chan struct{}
	once sync.Once
}

// fakePeer is one end of an in-memory connection. Messages are passed as
// they are, not encoded.
type fakePeer struct {
	in, out chan wamp.Message
	c       *conn
}

var _ wamp.Peer = (*fakePeer)(nil)

// pipe returns the client's and the router's end of a fake connection.
func pipe() (client, router *fakePeer) {
	c := &conn{done: make(chan struct{})}
	a, b := make(chan wamp.Message, 1024), make(chan wamp.Message, 1024)
	return &fakePeer{in: a, out: b, c: c}, &fakePeer{in: b, out: a, c: c}
}

func (p *fakePeer) Send(m wamp.Message) error {
	select {
	case <-p.c.done:
		return wamp.ErrClosed
	default:
	}
	select {
	case p.out <- m:
		return nil
	case <-p.c.done:
		return wamp.ErrClosed
	}
}

func (p *fakePeer) Recv() (wamp.Message, error) {
	select {
	case m := <-p.in:
		return m, nil
	default:
	}
	select {
	case m := <-p.in:
		return m, nil
	case <-p.c.done:
		return nil, io.EOF
	}
}

func (p *fakePeer) Close() error {
	p.c.once.Do(func() { close(p.c.done) })
	return nil
}

func (p *fakePeer) Info() wamp.PeerInfo { return wamp.PeerInfo{Transport: "local"} }

// failAfter bounds how long a test waits for something that should happen;
// reaching it is a test failure, never a way to synchronise.
const failAfter = 5 * time.Second

// fakeRouter scripts the router's side of one connection. Its methods are
// called from the test goroutine only.
type fakeRouter struct {
	t testing.TB
	p *fakePeer
}

// recv returns the next message from the client.
func (r *fakeRouter) recv() wamp.Message {
	r.t.Helper()
	select {
	case m := <-r.p.in:
		return m
	case <-time.After(failAfter):
		r.t.Fatal("router: no message from the client")
		return nil
	}
}

// expect returns the next message from the client, which must be a T.
func expect[T wamp.Message](r *fakeRouter) T {
	r.t.Helper()
	m := r.recv()
	v, ok := m.(T)
	if !ok {
		var want T
		r.t.Fatalf("router: got %T %+v, want %T", m, m, want)
	}
	return v
}

// send sends m to the client.
func (r *fakeRouter) send(m wamp.Message) {
	r.t.Helper()
	if err := r.p.Send(m); err != nil {
		r.t.Fatalf("router: send %s: %v", m.Type(), err)
	}
}

// closed reports whether the client closed the connection.
func (r *fakeRouter) closed() bool {
	select {
	case <-r.p.c.done:
		return true
	case <-time.After(failAfter):
		return false
	}
}

type joinResult struct {
	s   *Session
	err error
}

// startJoin runs Join in a goroutine over a new pipe.
func startJoin(ctx context.Context, t testing.TB, cfg Config) (*fakeRouter, <-chan joinResult) {
	c, rp := pipe()
	ch := make(chan joinResult, 1)
	go func() {
		s, err := Join(ctx, c, cfg)
		ch <- joinResult{s, err}
	}()
	return &fakeRouter{t: t, p: rp}, ch
}

// wait returns Join's result.
func wait(t testing.TB, ch <-chan joinResult) (*Session, error) {
	t.Helper()
	select {
	case res := <-ch:
		if res.s != nil {
			t.Cleanup(func() { res.s.Close() })
		}
		return res.s, res.err
	case <-time.After(failAfter):
		t.Fatal("Join did not return")
		return nil, nil
	}
}

// joined returns a session joined anonymously to realm "test" with
// session ID 7, and its router.
func joined(t testing.TB, cfg Config) (*Session, *fakeRouter) {
	t.Helper()
	if cfg.Realm == "" {
		cfg.Realm = "test"
	}
	r, ch := startJoin(context.Background(), t, cfg)
	expect[*wamp.Hello](r)
	r.send(&wamp.Welcome{Session: 7, Details: wamp.Dict{"authrole": "anonymous"}})
	s, err := wait(t, ch)
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	return s, r
}

// recvFrom waits for a value on ch, failing the test after failAfter.
func recvFrom[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failAfter):
		t.Fatal("nothing received")
		var zero T
		return zero
	}
}

// async runs f in a goroutine and returns a channel with its error.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}
