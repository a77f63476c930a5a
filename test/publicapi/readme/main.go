package main

import (
	"context"
	"fmt"
	"log"

	"github.com/junction-wamp/junction"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

func main() {
	ctx := context.Background()
	node, err := junction.Start(ctx, junction.RouterConfig("realm1"), junction.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Stop(ctx)
	s, err := node.Join(ctx, client.Config{Realm: "realm1"})
	if err != nil {
		log.Fatal(err)
	}
	s.Register(ctx, "com.example.hello", func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{fmt.Sprintf("hello, %v", inv.Args[0])}}, nil
	}, nil)
	res, err := s.Call(ctx, "com.example.hello", wamp.List{"world"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Args[0])
}
