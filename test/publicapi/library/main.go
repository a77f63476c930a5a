// Command library embeds a Junction router with a WebSocket transport: a
// backend session in process registers a procedure that publishes each
// result, and a client over WebSocket, as a program in another process
// connects, calls it and subscribes.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/junction-wamp/junction"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// config is the node: realm1, whose role "anonymous" may do everything,
// and a WebSocket transport on a port the system picks.
const config = `{
  "version": 2,
  "workers": [{
    "type": "router",
    "realms": [{
      "name": "realm1",
      "roles": [{
        "name": "anonymous",
        "permissions": [{
          "uri": "", "match": "prefix",
          "allow": {"call": true, "register": true, "publish": true, "subscribe": true}
        }]
      }]
    }],
    "transports": [{
      "type": "websocket",
      "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}
    }]
  }]
}`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	cfg, err := junction.ParseConfig([]byte(config))
	if err != nil {
		return err // every problem at its JSON path
	}
	node, err := junction.Start(ctx, cfg, junction.Options{})
	if err != nil {
		return err
	}
	defer node.Stop(context.Background())
	url := "ws://" + node.Listeners()[0].Address
	log.Printf("WebSocket clients connect to %s", url)

	backend, err := node.Join(ctx, client.Config{Realm: "realm1"})
	if err != nil {
		return err
	}
	defer backend.Leave(ctx)
	_, err = backend.Register(ctx, "com.example.add2", add2(backend), nil)
	if err != nil {
		return err
	}

	peer, err := client.Dial(ctx, url, client.DialOptions{})
	if err != nil {
		return err
	}
	app, err := client.Join(ctx, peer, client.Config{Realm: "realm1"})
	if err != nil {
		return err
	}
	defer app.Leave(ctx)
	events := make(chan string, 1)
	_, err = app.Subscribe(ctx, "com.example.sums", func(ev *client.Event) {
		events <- fmt.Sprint(ev.Args...)
	}, nil)
	if err != nil {
		return err
	}

	res, err := app.Call(ctx, "com.example.add2", wamp.List{2, 3}, nil)
	if err != nil {
		return err
	}
	fmt.Println("2 + 3 =", res.Args[0])
	fmt.Println("event:", <-events)
	return nil
}

// add2 is the procedure: it adds two integers and publishes the sum to
// com.example.sums through s.
func add2(s *client.Session) client.InvocationHandler {
	return func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		if len(inv.Args) != 2 {
			return nil, wamp.Errorf(wamp.ErrInvalidArgument, "add2 takes two integers")
		}
		a, okA := wamp.AsInt(inv.Args[0])
		b, okB := wamp.AsInt(inv.Args[1])
		if !okA || !okB {
			return nil, wamp.Errorf(wamp.ErrInvalidArgument, "add2 takes two integers")
		}
		if _, err := s.Publish(ctx, "com.example.sums", wamp.List{a + b}, nil, nil); err != nil {
			return nil, err
		}
		return &client.Result{Args: wamp.List{a + b}}, nil
	}
}
