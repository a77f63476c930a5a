package publicapi

import (
	"context"
	"errors"
	"testing"

	"github.com/junction-wamp/junction"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// embedded starts an embedded router with realm1, stopped at the end of
// the test.
func embedded(t *testing.T) *junction.Node {
	t.Helper()
	n, err := junction.Start(t.Context(), junction.RouterConfig("realm1"), junction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return n
}

// join joins realm1 of n in process, closed at the end of the test.
func join(t *testing.T, n *junction.Node) *client.Session {
	t.Helper()
	s, err := n.Join(t.Context(), client.Config{Realm: "realm1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRegisterAndCall(t *testing.T) {
	n := embedded(t)
	callee, caller := join(t, n), join(t, n)
	_, err := callee.Register(t.Context(), "com.example.add2", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		a, okA := wamp.AsInt(inv.Args[0])
		b, okB := wamp.AsInt(inv.Args[1])
		if !okA || !okB {
			return nil, wamp.Errorf(wamp.ErrInvalidArgument, "add2 takes two integers")
		}
		return &client.Result{Args: wamp.List{a + b}}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := caller.Call(t.Context(), "com.example.add2", wamp.List{2, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum, _ := wamp.AsInt(res.Args[0]); sum != 5 {
		t.Errorf("add2(2, 3) = %v", res.Args)
	}
	_, err = caller.Call(t.Context(), "com.example.add2", wamp.List{"two", 3}, nil)
	var re *wamp.RequestError
	if !errors.As(err, &re) || re.URI != wamp.ErrInvalidArgument {
		t.Errorf("add2(two, 3): %v, want %s", err, wamp.ErrInvalidArgument)
	}
	_, err = caller.Call(t.Context(), "com.example.nothing", nil, nil)
	if !errors.As(err, &re) || re.URI != wamp.ErrNoSuchProcedure {
		t.Errorf("call of no procedure: %v, want %s", err, wamp.ErrNoSuchProcedure)
	}
}

func TestSubscribeAndPublish(t *testing.T) {
	n := embedded(t)
	subscriber, publisher := join(t, n), join(t, n)
	got := make(chan *client.Event, 1)
	sub, err := subscriber.Subscribe(t.Context(), "com.example.hello", func(ev *client.Event) { got <- ev }, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := publisher.Publish(t.Context(), "com.example.hello", wamp.List{"hi"}, nil, wamp.Dict{"acknowledge": true})
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-got; ev.Args[0] != "hi" || ev.Publication != id {
		t.Errorf("event %+v, want [hi] of publication %d", ev, id)
	}
	if err := sub.Unsubscribe(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestLeaveAndStop: a session leaves with GOODBYE; the node's stop ends
// the sessions left.
func TestLeaveAndStop(t *testing.T) {
	n, err := junction.Start(t.Context(), junction.RouterConfig(), junction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := join(t, n), join(t, n)
	if err := a.Leave(t.Context()); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	if err := n.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-b.Done()
	var re *wamp.RequestError
	if !errors.As(b.Err(), &re) || re.URI != wamp.ErrSystemShutdown {
		t.Errorf("session after Stop: %v, want %s", b.Err(), wamp.ErrSystemShutdown)
	}
	if _, err := n.Join(t.Context(), client.Config{Realm: "realm1"}); !errors.Is(err, junction.ErrNotRunning) {
		t.Errorf("Join after Stop: %v", err)
	}
}

// TestOverWebSocket: a node from a JSON configuration with a WebSocket
// transport on port 0; an in-process callee and publisher, and a client
// over WebSocket (client.Dial) that calls with progressive results and
// subscribes, in each serializer.
func TestOverWebSocket(t *testing.T) {
	cfg, err := junction.ParseConfig([]byte(`{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [
			{"uri": "", "match": "prefix", "allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}]}],
		"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	n, err := junction.Start(t.Context(), cfg, junction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Stop(context.Background()) })
	backend := join(t, n)
	_, err = backend.Register(t.Context(), "com.example.count", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		to, _ := wamp.AsInt(inv.Args[0])
		for i := int64(1); i < to; i++ {
			if err := inv.SendProgress(&client.Result{Args: wamp.List{i}}); err != nil {
				return nil, err
			}
		}
		_, err := backend.Publish(ctx, "com.example.counted", wamp.List{to}, nil, nil)
		return &client.Result{Args: wamp.List{to}}, err
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	url := "ws://" + n.Listeners()[0].Address
	for _, ser := range []string{"json", "msgpack", "cbor", "ubjson"} {
		t.Run(ser, func(t *testing.T) {
			p, err := client.Dial(t.Context(), url, client.DialOptions{Serializer: ser})
			if err != nil {
				t.Fatal(err)
			}
			s, err := client.Join(t.Context(), p, client.Config{Realm: "realm1"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			events := make(chan int64, 1)
			_, err = s.Subscribe(t.Context(), "com.example.counted", func(ev *client.Event) {
				n, _ := wamp.AsInt(ev.Args[0])
				events <- n
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var progress []int64
			res, err := s.Call(t.Context(), "com.example.count", wamp.List{3}, nil, client.WithProgress(func(r *client.Result) {
				i, _ := wamp.AsInt(r.Args[0])
				progress = append(progress, i)
			}))
			if err != nil {
				t.Fatal(err)
			}
			last, _ := wamp.AsInt(res.Args[0])
			if len(progress) != 2 || progress[0] != 1 || progress[1] != 2 || last != 3 {
				t.Errorf("progress %v then %v, want [1 2] then 3", progress, res.Args)
			}
			if got := <-events; got != 3 {
				t.Errorf("event %d, want 3", got)
			}
		})
	}
}
