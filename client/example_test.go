package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/junction-wamp/junction"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// embedded starts an embedded router with realm1 and returns it with a
// function that joins a session there. A program that talks to a router
// over the network joins with client.Join over a dialed peer instead.
func embedded(ctx context.Context) (*junction.Node, func() *client.Session) {
	node, err := junction.Start(ctx, junction.RouterConfig("realm1"), junction.Options{})
	if err != nil {
		log.Fatal(err)
	}
	return node, func() *client.Session {
		s, err := node.Join(ctx, client.Config{Realm: "realm1"})
		if err != nil {
			log.Fatal(err)
		}
		return s
	}
}

func ExampleSession_Call() {
	ctx := context.Background()
	node, join := embedded(ctx)
	defer node.Stop(ctx)
	callee, caller := join(), join()
	add2 := func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		a, _ := wamp.AsInt(inv.Args[0])
		b, _ := wamp.AsInt(inv.Args[1])
		return &client.Result{Args: wamp.List{a + b}}, nil
	}
	if _, err := callee.Register(ctx, "com.example.add2", add2, nil); err != nil {
		log.Fatal(err)
	}

	res, err := caller.Call(ctx, "com.example.add2", wamp.List{2, 3}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Args[0])
	// Output: 5
}

// A procedure that sends progressive results before its final one.
func ExampleSession_Register() {
	ctx := context.Background()
	node, join := embedded(ctx)
	defer node.Stop(ctx)
	callee, caller := join(), join()

	countdown := func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		n, ok := wamp.AsInt(inv.Args[0])
		if !ok {
			return nil, wamp.Errorf(wamp.ErrInvalidArgument, "not an integer: %v", inv.Args[0])
		}
		for i := n; i > 0; i-- {
			if err := inv.SendProgress(&client.Result{Args: wamp.List{i}}); err != nil {
				return nil, err // the caller did not ask for progress
			}
		}
		return &client.Result{Args: wamp.List{"liftoff"}}, nil
	}
	if _, err := callee.Register(ctx, "com.example.countdown", countdown, nil); err != nil {
		log.Fatal(err)
	}

	res, err := caller.Call(ctx, "com.example.countdown", wamp.List{3}, nil,
		client.WithProgress(func(r *client.Result) { fmt.Println(r.Args[0]) }))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Args[0])
	_, err = caller.Call(ctx, "com.example.countdown", wamp.List{"three"}, nil)
	fmt.Println(err)
	// Output:
	// 3
	// 2
	// 1
	// liftoff
	// wamp.error.invalid_argument: not an integer: three
}

func ExampleSession_Subscribe() {
	ctx := context.Background()
	node, join := embedded(ctx)
	defer node.Stop(ctx)
	subscriber, publisher := join(), join()

	got := make(chan string)
	_, err := subscriber.Subscribe(ctx, "com.example.", func(ev *client.Event) {
		got <- fmt.Sprintf("%s: %v", ev.Topic, ev.Args[0])
	}, wamp.Dict{"match": "prefix"})
	if err != nil {
		log.Fatal(err)
	}

	_, err = publisher.Publish(ctx, "com.example.hello", wamp.List{"hi"}, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-got)
	// Output: com.example.hello: hi
}

// Publish with acknowledge waits for the router's PUBLISHED, and returns
// its error: here the publisher is not excluded, so it gets its own event.
func ExampleSession_Publish() {
	ctx := context.Background()
	node, join := embedded(ctx)
	defer node.Stop(ctx)
	s := join()

	got := make(chan *client.Event, 1)
	if _, err := s.Subscribe(ctx, "com.example.news", func(ev *client.Event) { got <- ev }, nil); err != nil {
		log.Fatal(err)
	}
	id, err := s.Publish(ctx, "com.example.news", wamp.List{"extra!"}, nil,
		wamp.Dict{"acknowledge": true, "exclude_me": false})
	if err != nil {
		log.Fatal(err)
	}
	ev := <-got
	fmt.Println(ev.Args[0], ev.Publication == id)
	// Output: extra! true
}

// listening starts a router that listens for WebSocket clients on a free
// port of 127.0.0.1 and returns it with its ws:// URL.
func listening(ctx context.Context) (*junction.Node, string) {
	cfg, err := junction.ParseConfig([]byte(`{
		"version": 2,
		"workers": [{
			"type": "router",
			"realms": [{"name": "realm1", "roles": [{"name": "anonymous",
				"permissions": [{"uri": "", "match": "prefix",
					"allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}]}],
			"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]
		}]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	node, err := junction.Start(ctx, cfg, junction.Options{})
	if err != nil {
		log.Fatal(err)
	}
	return node, "ws://" + node.Listeners()[0].Address + "/"
}

// A session over WebSocket with JSON: Dial connects, Join joins the realm.
func ExampleDial() {
	ctx := context.Background()
	node, url := listening(ctx)
	defer node.Stop(ctx)

	peer, err := client.Dial(ctx, url, client.DialOptions{Serializer: "json"})
	if err != nil {
		log.Fatal(err)
	}
	s, err := client.Join(ctx, peer, client.Config{Realm: "realm1"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Leave(ctx)
	fmt.Println(peer.Info().Transport, peer.Info().Serializer, s.Details()["authrole"])
	// Output: websocket json anonymous
}

// A client that reconnects: Connect redials with backoff when the
// connection is lost and renews its registrations and subscriptions.
func ExampleConnect() {
	ctx := context.Background()
	node, url := listening(ctx)
	defer node.Stop(ctx)

	c, err := client.Connect(ctx, client.NewDialer(url, client.DialOptions{}), client.Config{Realm: "realm1"}, client.ReconnectOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	echo := func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args}, nil
	}
	if _, err := c.Register(ctx, "com.example.echo", echo, nil); err != nil {
		log.Fatal(err)
	}
	res, err := c.Call(ctx, "com.example.echo", wamp.List{"over the network"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Args[0])
	// Output: over the network
}
