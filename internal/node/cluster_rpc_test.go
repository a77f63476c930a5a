package node

import (
	"context"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/wamp"
)

// TestClusterCall: a procedure registered on one node of a cluster is
// called from the other, and an event published on one reaches a
// subscriber on the other, over RawSocket with JSON on both ends (the
// payload passes the cluster as the caller's bytes).
func TestClusterCall(t *testing.T) {
	nodes := startClusterNodes(t, 0)
	members := []*cluster.Node{nodes[0].cluster, nodes[1].cluster}
	clustertest.WaitMembers(t, members, members...)

	cfg := client.Config{Realm: "realm1"}
	callee := mustRaw(t, "tcp", address(t, nodes[0], "workers[0].transports[0]"), cfg)
	caller := mustRaw(t, "tcp", address(t, nodes[1], "workers[0].transports[0]"), cfg)
	_, err := callee.Register(testCtx(t), "com.echo", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := caller.Call(testCtx(t), "com.echo", wamp.List{"a", 1.5, wamp.List{true}}, wamp.ObjectOf(wamp.Dict{"k": "v"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Args) != 3 || res.Args[0] != "a" || res.Args[1] != 1.5 || res.Kwargs.Dict()["k"] != "v" {
		t.Errorf("result %+v", res)
	}
	_, err = caller.Register(testCtx(t), "com.echo", func(context.Context, *client.Invocation) (*client.Result, error) {
		return &client.Result{}, nil
	}, nil)
	if re, ok := err.(*wamp.RequestError); !ok || re.URI != wamp.ErrProcedureAlreadyExists {
		t.Errorf("a second single registration of com.echo, on the other node: %v, want %s", err, wamp.ErrProcedureAlreadyExists)
	}

	// An event published on one node reaches a subscriber on the other
	// once its interest has crossed (the window docs/cluster.md states):
	// the publisher publishes until the first event arrives.
	events := make(chan *client.Event, 64)
	if _, err := callee.Subscribe(testCtx(t), "com.news", func(ev *client.Event) { events <- ev }, nil); err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for received := false; !received; {
		if _, err := caller.Publish(testCtx(t), "com.news", wamp.List{"hello"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-events:
			if len(ev.Args) != 1 || ev.Args[0] != "hello" {
				t.Errorf("event %+v", ev)
			}
			received = true
		case <-tick.C:
		case <-deadline:
			t.Fatal("no event crossed from the publisher's node to the subscriber's")
		}
	}
}
