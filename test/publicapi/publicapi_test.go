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
