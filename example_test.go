package junction_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/junction-wamp/junction"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// A node from a JSON configuration: a WebSocket transport on a port the
// system picks, whose address Listeners gives.
func ExampleStart() {
	cfg, err := junction.ParseConfig([]byte(`{
		"version": 2,
		"workers": [{
			"type": "router",
			"realms": [{"name": "realm1"}],
			"transports": [{
				"type": "websocket",
				"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}
			}]
		}]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	node, err := junction.Start(ctx, cfg, junction.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Stop(ctx)
	for _, l := range node.Listeners() {
		fmt.Println(l.Transport, l.Type, l.Address != "127.0.0.1:0")
	}
	// Output: workers[0].transports[0] websocket true
}

// An embedded router with two in-process sessions: one registers a
// procedure, the other calls it.
func ExampleRouterConfig() {
	ctx := context.Background()
	node, err := junction.Start(ctx, junction.RouterConfig("realm1"), junction.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Stop(ctx)

	callee, err := node.Join(ctx, client.Config{Realm: "realm1"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = callee.Register(ctx, "com.example.greet", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{fmt.Sprintf("hello, %v", inv.Args[0])}}, nil
	}, nil)
	if err != nil {
		log.Fatal(err)
	}

	caller, err := node.Join(ctx, client.Config{Realm: "realm1"})
	if err != nil {
		log.Fatal(err)
	}
	res, err := caller.Call(ctx, "com.example.greet", wamp.List{"world"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Args[0], caller.Details()["authrole"])
	// Output: hello, world anonymous
}

// A backend session that lasts: Connect's Client joins again, and
// registers its procedure again, whenever the router ends its session
// (wamp.session.kill, a reload that changed its realm).
func ExampleNode_Connect() {
	ctx := context.Background()
	node, err := junction.Start(ctx, junction.RouterConfig("realm1"), junction.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Stop(ctx)
	add := func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		a, _ := wamp.AsInt(inv.Args[0])
		b, _ := wamp.AsInt(inv.Args[1])
		return &client.Result{Args: wamp.List{a + b}}, nil
	}

	backend, err := node.Connect(ctx, "", client.Config{Realm: "realm1", AuthID: "backend"},
		client.ReconnectOptions{OnJoin: func(s *client.Session) { log.Print("joined as ", s.ID()) }})
	if err != nil {
		log.Fatal(err)
	}
	defer backend.Close()
	_, err = backend.Register(ctx, "com.example.add", add, nil) // renewed on every rejoin
	if err != nil {
		log.Fatal(err)
	}

	caller, err := node.Join(ctx, client.Config{Realm: "realm1"})
	if err != nil {
		log.Fatal(err)
	}
	res, err := caller.Call(ctx, "com.example.add", wamp.List{2, 3}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Args[0])
	// Output: 5
}

// A program that runs a node from its configuration file until SIGINT or
// SIGTERM, as "junction start" does.
func ExampleRun() {
	cfg, err := junction.LoadConfig(".crossbar/config.yaml")
	if err != nil {
		log.Fatal(err) // each problem at its JSON path
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := junction.Run(ctx, cfg, junction.Options{}); err != nil {
		log.Fatal(err)
	}
}

// A program that runs a node from its configuration file and applies the
// file again on SIGHUP, as "junction start" does.
func ExampleNode_Reload() {
	const file = ".crossbar/config.yaml"
	cfg, err := junction.LoadConfig(file)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	node, err := junction.Start(ctx, cfg, junction.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Stop(ctx)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	for range hup {
		cfg, err := junction.LoadConfig(file)
		if err != nil {
			log.Print(err) // the node keeps running what it runs
			continue
		}
		rep, err := node.Reload(ctx, cfg)
		if err != nil {
			log.Print(err)
			continue
		}
		for _, c := range rep.Restart {
			log.Printf("%s: %s (needs a restart)", c.Path, c.What)
		}
	}
}
