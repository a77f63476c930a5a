package cluster_test

import (
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// wirePeer is an in-memory connection that encodes every message with a
// codec, both ways, as a network connection does: the router gets raw
// payloads as from a socket, and the test sees the bytes a client would.
type wirePeer struct {
	c      codec.Codec
	in     chan []byte // to the router
	out    chan []byte // from the router
	closed chan struct{}
	once   sync.Once
}

var _ wamp.Peer = (*wirePeer)(nil)

func (p *wirePeer) Send(m wamp.Message) error {
	b, err := p.c.Encode(m)
	if err != nil {
		return err
	}
	select {
	case <-p.closed:
		return wamp.ErrClosed
	case p.out <- slices.Clone(b):
		return nil
	default:
		p.Close()
		return wamp.ErrSlowConsumer
	}
}

func (p *wirePeer) Recv() (wamp.Message, error) {
	select {
	case b := <-p.in:
		return p.c.Decode(b)
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *wirePeer) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *wirePeer) Info() wamp.PeerInfo {
	return wamp.PeerInfo{Transport: "test", Serializer: p.c.Name()}
}

// wireSession is a test session on one router.
type wireSession struct {
	t    testing.TB
	p    *wirePeer
	id   wamp.ID
	wel  *wamp.Welcome
	req  wamp.ID
	done chan struct{}
}

// connect joins realm on r over a peer of codec c.
func connect(t testing.TB, r *router.Router, realm wamp.URI, c codec.Codec) *wireSession {
	t.Helper()
	p := &wirePeer{c: c, in: make(chan []byte, 64), out: make(chan []byte, 4096), closed: make(chan struct{})}
	cl := &wireSession{t: t, p: p, done: make(chan struct{})}
	go func() {
		defer close(cl.done)
		r.Attach(p)
	}()
	t.Cleanup(func() {
		p.Close()
		<-cl.done
	})
	cl.send(&wamp.Hello{Realm: realm, Details: wamp.Dict{"roles": map[string]any{
		"publisher": map[string]any{}, "subscriber": map[string]any{}}}})
	cl.wel = expect[*wamp.Welcome](cl)
	cl.id = cl.wel.Session
	return cl
}

func (c *wireSession) send(m wamp.Message) {
	c.t.Helper()
	b, err := c.p.c.Encode(m)
	if err != nil {
		c.t.Fatal(err)
	}
	select {
	case c.p.in <- b:
	case <-c.p.closed:
		c.t.Fatal("peer closed")
	}
}

// recvBytes returns the next message the router sent, as encoded.
func (c *wireSession) recvBytes() []byte {
	c.t.Helper()
	select {
	case b := <-c.p.out:
		return b
	case <-time.After(10 * time.Second):
		c.t.Fatalf("session %d: no message from the router", c.id)
		return nil
	}
}

func (c *wireSession) recv() wamp.Message {
	c.t.Helper()
	m, err := c.p.c.Decode(c.recvBytes())
	if err != nil {
		c.t.Fatal(err)
	}
	if m, err = wamp.Decoded(m); err != nil {
		c.t.Fatal(err)
	}
	return m
}

func expect[T wamp.Message](c *wireSession) T {
	c.t.Helper()
	m := c.recv()
	v, ok := m.(T)
	if !ok {
		var want T
		c.t.Fatalf("session %d: got %T %+v, want %T", c.id, m, m, want)
	}
	return v
}

func (c *wireSession) nextReq() wamp.ID { c.req++; return c.req }

func (c *wireSession) subscribe(topic wamp.URI, opts wamp.Dict) wamp.ID {
	c.t.Helper()
	if opts == nil {
		opts = wamp.Dict{}
	}
	c.send(&wamp.Subscribe{Request: c.nextReq(), Options: opts, Topic: topic})
	return expect[*wamp.Subscribed](c).Subscription
}

func (c *wireSession) unsubscribe(id wamp.ID) {
	c.t.Helper()
	c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: id})
	expect[*wamp.Unsubscribed](c)
}

func (c *wireSession) publish(topic wamp.URI, opts wamp.Dict, args ...any) wamp.ID {
	c.t.Helper()
	if opts == nil {
		opts = wamp.Dict{}
	}
	req := c.nextReq()
	c.send(&wamp.Publish{Request: req, Options: opts, Topic: topic, Args: args})
	return req
}

// events returns the next n messages, EVENTs all.
func (c *wireSession) events(n int) []*wamp.Event {
	c.t.Helper()
	evs := make([]*wamp.Event, n)
	for i := range evs {
		evs[i] = expect[*wamp.Event](c)
	}
	return evs
}
