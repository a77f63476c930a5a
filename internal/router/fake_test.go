package router

import (
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// fakePeer is an in-memory wamp.Peer: the test writes what the router
// receives to in and reads what the router sends from out. When out is
// full, Send closes the peer as a slow consumer, as real peers do.
type fakePeer struct {
	in      chan any // wamp.Message, or an error for Recv to return
	out     chan wamp.Message
	closed  chan struct{}
	once    sync.Once
	discard atomic.Bool // Send drops everything (benchmarks)
}

var _ wamp.Peer = (*fakePeer)(nil)

func newFakePeer(queue int) *fakePeer {
	return &fakePeer{in: make(chan any, 16), out: make(chan wamp.Message, queue), closed: make(chan struct{})}
}

func (p *fakePeer) Send(m wamp.Message) error {
	select {
	case <-p.closed:
		return wamp.ErrClosed
	default:
	}
	if p.discard.Load() {
		return nil
	}
	select {
	case p.out <- m:
		return nil
	default:
		p.Close()
		return wamp.ErrSlowConsumer
	}
}

func (p *fakePeer) Recv() (wamp.Message, error) {
	select {
	case v := <-p.in:
		if err, ok := v.(error); ok {
			return nil, err
		}
		return v.(wamp.Message), nil
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *fakePeer) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *fakePeer) Info() wamp.PeerInfo { return wamp.PeerInfo{Transport: "fake"} }

// client drives one fake peer attached to a router.
type client struct {
	t    testing.TB
	p    *fakePeer
	id   wamp.ID
	req  wamp.ID
	done chan struct{}
	wel  *wamp.Welcome
}

// attach starts a session on g over a new fake peer.
func attach(t testing.TB, g *Gate) *client { return attachQ(t, g, newFakePeer(256)) }

// attachQ starts a session on g over p.
func attachQ(t testing.TB, g *Gate, p *fakePeer) *client { return attachAs(t, g, p, p) }

// attachAs starts a session on g over peer, which wraps p.
func attachAs(t testing.TB, g *Gate, p *fakePeer, peer wamp.Peer) *client {
	c := &client{t: t, p: p, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		g.Attach(peer)
	}()
	return c
}

// clientRoles are the HELLO details of a client that announces the callee
// feature call_canceling, as autobahn-python and our client do.
func clientRoles() wamp.Dict {
	return wamp.Dict{"roles": map[string]any{
		"caller": map[string]any{}, "publisher": map[string]any{}, "subscriber": map[string]any{},
		"callee": map[string]any{"features": map[string]any{"call_canceling": true}},
	}}
}

// join attaches and joins realm; details nil means clientRoles().
func join(t testing.TB, g *Gate, realm wamp.URI, details wamp.Dict) *client {
	t.Helper()
	return joinPeer(t, g, realm, details, newFakePeer(256))
}

// joinPeer joins realm over p.
func joinPeer(t testing.TB, g *Gate, realm wamp.URI, details wamp.Dict, p *fakePeer) *client {
	t.Helper()
	c := attachQ(t, g, p)
	c.hello(realm, details)
	return c
}

// hello joins realm; details nil means clientRoles().
func (c *client) hello(realm wamp.URI, details wamp.Dict) {
	c.t.Helper()
	if details == nil {
		details = clientRoles()
	}
	c.send(&wamp.Hello{Realm: realm, Details: details})
	c.wel = expect[*wamp.Welcome](c)
	c.id = c.wel.Session
}

func (c *client) send(m any) {
	select {
	case c.p.in <- m:
	case <-c.p.closed:
	}
}

func (c *client) nextReq() wamp.ID { c.req++; return c.req }

// recv returns the next message the router sent, failing after a while.
func (c *client) recv() wamp.Message {
	c.t.Helper()
	select {
	case m := <-c.p.out:
		return wamp.Unwrap(m)
	case <-time.After(10 * time.Second):
		c.t.Fatalf("session %d: no message from the router", c.id)
		return nil
	}
}

// expect receives the next message and checks its type.
func expect[T wamp.Message](c *client) T {
	c.t.Helper()
	m := c.recv()
	v, ok := m.(T)
	if !ok {
		var want T
		c.t.Fatalf("session %d: got %T %+v, want %T", c.id, m, m, want)
	}
	return v
}

// expectError receives an ERROR and checks its URI.
func (c *client) expectError(uri wamp.URI) *wamp.Error {
	c.t.Helper()
	e := expect[*wamp.Error](c)
	if e.Error != uri {
		c.t.Fatalf("session %d: ERROR %s %v, want %s", c.id, e.Error, e.Args, uri)
	}
	return e
}

// expectAbort receives an ABORT with reason uri and waits for the end.
func (c *client) expectAbort(uri wamp.URI) *wamp.Abort {
	c.t.Helper()
	a := expect[*wamp.Abort](c)
	if a.Reason != uri {
		c.t.Fatalf("ABORT %s %v, want %s", a.Reason, a.Details, uri)
	}
	c.waitDone()
	return a
}

// waitDone waits until Attach has returned.
func (c *client) waitDone() {
	c.t.Helper()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		c.t.Fatal("Attach did not return")
	}
}

// quiet checks that nothing more was sent to c. Only inside a synctest
// bubble, where synctest.Wait lets every session goroutine settle.
func (c *client) quiet() {
	c.t.Helper()
	synctest.Wait()
	select {
	case m := <-c.p.out:
		c.t.Fatalf("session %d: unexpected %T %+v", c.id, m, wamp.Unwrap(m))
	default:
	}
}

// Requests with a fresh request ID; each returns the ID.

func (c *client) subscribe(topic wamp.URI, opts wamp.Dict) wamp.ID {
	c.t.Helper()
	c.send(&wamp.Subscribe{Request: c.nextReq(), Options: orEmpty(opts), Topic: topic})
	return expect[*wamp.Subscribed](c).Subscription
}

func (c *client) register(proc wamp.URI, opts wamp.Dict) wamp.ID {
	c.t.Helper()
	c.send(&wamp.Register{Request: c.nextReq(), Options: orEmpty(opts), Procedure: proc})
	return expect[*wamp.Registered](c).Registration
}

func (c *client) publish(topic wamp.URI, opts wamp.Dict, args ...any) wamp.ID {
	req := c.nextReq()
	c.send(&wamp.Publish{Request: req, Options: orEmpty(opts), Topic: topic, Args: args})
	return req
}

func (c *client) call(proc wamp.URI, opts wamp.Dict, args ...any) wamp.ID {
	req := c.nextReq()
	c.send(&wamp.Call{Request: req, Options: orEmpty(opts), Procedure: proc, Args: args})
	return req
}

func orEmpty(d wamp.Dict) wamp.Dict {
	if d == nil {
		return wamp.Dict{}
	}
	return d
}

// bubble runs fn in a synctest bubble with a router with realm "realm1"
// (and opts' realms), closing the router at the end.
func bubble(t *testing.T, opts Options, fn func(t *testing.T, r *Router)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		if opts.Realms == nil {
			opts.Realms = []RealmOptions{{Name: "realm1"}}
		}
		r, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		fn(t, r)
	})
}

// ticketAuth is a fake authenticator whose only valid ticket is "secret".
type ticketAuth struct{ role string }

func (ticketAuth) Method() string { return "ticket" }

func (a ticketAuth) Start(req *auth.Request) (*auth.Identity, auth.Challenge, error) {
	if req.AuthID == "" {
		return nil, nil, wamp.Errorf(wamp.ErrAuthenticationDenied, "no authid")
	}
	return nil, ticketChallenge{authid: req.AuthID, role: a.role}, nil
}

type ticketChallenge struct{ authid, role string }

func (ticketChallenge) Message() *wamp.Challenge {
	return &wamp.Challenge{AuthMethod: "ticket", Extra: wamp.Dict{}}
}

func (c ticketChallenge) Verify(a *wamp.Authenticate) (*auth.Identity, error) {
	if a.Signature != "secret" {
		return nil, wamp.Errorf(wamp.ErrAuthenticationDenied, "wrong ticket")
	}
	return &auth.Identity{AuthID: c.authid, AuthRole: c.role, AuthMethod: "ticket",
		AuthProvider: "static", AuthExtra: wamp.Dict{"color": "blue"}}, nil
}

// authzFunc is a fake authorizer.
type authzFunc func(id *auth.Identity, a auth.Action, uri wamp.URI) auth.Permission

func (f authzFunc) Authorize(id *auth.Identity, a auth.Action, uri wamp.URI, _ wamp.Dict) (auth.Permission, error) {
	return f(id, a, uri), nil
}

// ticketJoin joins realm through g as authid with the ticket method.
func ticketJoin(t testing.TB, g *Gate, realm wamp.URI, authid string) *client {
	t.Helper()
	c := attach(t, g)
	c.send(&wamp.Hello{Realm: realm, Details: wamp.Dict{"authid": authid, "authmethods": []any{"ticket"}}})
	expect[*wamp.Challenge](c)
	c.send(&wamp.Authenticate{Signature: "secret", Extra: wamp.Dict{}})
	c.wel = expect[*wamp.Welcome](c)
	c.id = c.wel.Session
	return c
}
