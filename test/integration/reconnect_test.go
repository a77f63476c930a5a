package integration

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// swappable attaches sessions to whichever router is current, so that a
// test can stop the router and start a new one behind the same listener.
type swappable struct{ r atomic.Pointer[router.Router] }

func (s *swappable) Attach(p wamp.Peer) { s.r.Load().Attach(p) }

func newRouter(t *testing.T) *router.Router {
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// TestReconnectAfterRouterRestart: a reconnecting client's registration and
// subscription work again on a new router, without restarting the client.
func TestReconnectAfterRouterRestart(t *testing.T) {
	var sw swappable
	old := newRouter(t)
	sw.r.Store(old)
	h, err := websocket.NewHandler(websocket.Options{Attacher: &sw})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	dial := func(ctx context.Context) (wamp.Peer, error) { return websocket.Dial(ctx, url, websocket.DialOptions{}) }

	rejoined := make(chan struct{}, 4)
	opts := client.ReconnectOptions{MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		OnJoin: func(*client.Session) { rejoined <- struct{}{} }}
	c, err := client.Connect(ctx(t), dial, client.Config{Realm: realm}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	<-rejoined
	if _, err := c.Register(ctx(t), "com.example.add2", add2, nil); err != nil {
		t.Fatal(err)
	}
	events := make(chan *client.Event, 1)
	if _, err := c.Subscribe(ctx(t), "com.example.news", func(ev *client.Event) { events <- ev }, nil); err != nil {
		t.Fatal(err)
	}

	// A watcher on the new router learns from the meta API when the
	// reconnected client has registered and subscribed again.
	sw.r.Store(newRouter(t))
	other := joinWS(t, url)
	registered := subscribe(t, other, "wamp.registration.on_register", nil)
	subscribed := subscribe(t, other, "wamp.subscription.on_subscribe", nil)
	old.Close()
	<-rejoined
	<-registered
	<-subscribed

	res, err := other.Call(ctx(t), "com.example.add2", wamp.List{2, 3}, nil)
	if n, _ := wamp.AsInt(res.Args[0]); err != nil || n != 5 {
		t.Fatalf("call on the new router = %v, %v", res, err)
	}
	if _, err := other.Publish(ctx(t), "com.example.news", wamp.List{"again"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; ev.Args[0] != "again" {
		t.Fatalf("event after reconnect = %v", ev.Args)
	}
}

func joinWS(t *testing.T, url string) *client.Session {
	p, err := websocket.Dial(ctx(t), url, websocket.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Join(ctx(t), p, client.Config{Realm: realm})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
