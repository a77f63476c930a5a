package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// goPeer is the Go callee and subscriber: an client session over
// WebSocket (CBOR) that registers the procedures of peerProcedures under
// its prefix and forwards the events of its subscriptions.
type goPeer struct {
	c          *client.Client
	interrupts chan *wamp.Interrupt // every INTERRUPT the router sent
	canceled   chan wamp.URI        // procedures whose handler saw its context end
}

// spyPeer passes a wamp.Peer through, copying each INTERRUPT it receives.
type spyPeer struct {
	wamp.Peer
	interrupts chan<- *wamp.Interrupt
}

var _ wamp.Peer = spyPeer{}

func (p spyPeer) Recv() (wamp.Message, error) {
	m, err := p.Peer.Recv()
	if i, ok := m.(*wamp.Interrupt); ok {
		select {
		case p.interrupts <- i:
		default:
		}
	}
	return m, err
}

// startGoPeer joins at url and registers prefix.NAME for each procedure of
// peerProcedures. It leaves when the test ends.
func startGoPeer(t *testing.T, url, prefix string) *goPeer {
	t.Helper()
	p := &goPeer{interrupts: make(chan *wamp.Interrupt, 16), canceled: make(chan wamp.URI, 16)}
	dial := func(ctx context.Context) (wamp.Peer, error) {
		wp, err := websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{"wamp.2.cbor"}})
		if err != nil {
			return nil, err
		}
		return spyPeer{Peer: wp, interrupts: p.interrupts}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, dial, client.Config{Realm: realm}, client.ReconnectOptions{})
	if err != nil {
		t.Fatalf("go peer: connect %s: %v", url, err)
	}
	p.c = c
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.Leave(ctx); err != nil {
			t.Errorf("go peer: leave: %v", err)
		}
	})
	for name, h := range p.procedures() {
		if _, err := c.Register(ctx, wamp.URI(prefix+"."+name), h, nil); err != nil {
			t.Fatalf("go peer: register %s.%s: %v", prefix, name, err)
		}
	}
	return p
}

// subscribe subscribes to topic; the events arrive on the channel.
func (p *goPeer) subscribe(t *testing.T, topic string) <-chan *client.Event {
	t.Helper()
	events := make(chan *client.Event, 64)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := func(ev *client.Event) {
		select {
		case events <- ev:
		default: // more events than any test causes: the tests see the first ones
		}
	}
	if _, err := p.c.Subscribe(ctx, wamp.URI(topic), h, nil); err != nil {
		t.Fatalf("go peer: subscribe %s: %v", topic, err)
	}
	return events
}

// procedures are the Go callee's procedures, the same as peer.js's.
func (p *goPeer) procedures() map[string]client.InvocationHandler {
	result := func(args wamp.List, kwargs wamp.Dict) client.InvocationHandler {
		return func(context.Context, *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: args, Kwargs: wamp.ObjectOf(kwargs)}, nil
		}
	}
	return map[string]client.InvocationHandler{
		"one":   result(wamp.List{42}, nil),
		"two":   result(wamp.List{"a", 2}, nil),
		"kw":    result(nil, wamp.Dict{"k": "v"}),
		"both":  result(wamp.List{1}, wamp.Dict{"k": "v"}),
		"empty": result(nil, nil),
		"echo": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
		},
		"error": func(context.Context, *client.Invocation) (*client.Result, error) {
			return nil, &wamp.RequestError{URI: "com.e2e.error", Args: wamp.List{"bad", 42},
				Kwargs: wamp.ObjectOf(wamp.Dict{"reason": "because", "code": 7})}
		},
		"slow": p.slow,
	}
}

// slow answers only when its context ends (an INTERRUPT), or after a
// minute; it reports the end of its context on p.canceled.
func (p *goPeer) slow(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
	select {
	case <-ctx.Done():
		p.canceled <- inv.Procedure
		return nil, ctx.Err()
	case <-time.After(time.Minute):
		return &client.Result{Args: wamp.List{"late"}}, nil
	}
}
