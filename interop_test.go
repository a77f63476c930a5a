package junction_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/junction-wamp/junction"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// peerKinds are the ways a session joins the test node: in process, and
// over the two socket transports.
var peerKinds = []struct {
	name string
	join func(*testing.T, *junction.Node) *client.Session
}{
	{"local", joinLocal},
	{"websocket", joinWS},
	{"rawsocket", joinRaw},
}

// eachPair runs f for every pair of kinds with at least one in-process
// session, as subtests named "a->b".
func eachPair(t *testing.T, f func(t *testing.T, n *junction.Node, a, b *client.Session)) {
	n := startSockets(t)
	for _, a := range peerKinds {
		for _, b := range peerKinds {
			if a.name != "local" && b.name != "local" {
				continue
			}
			t.Run(a.name+"->"+b.name, func(t *testing.T) { f(t, n, a.join(t, n), b.join(t, n)) })
		}
	}
}

// TestCallAcross: calls with progressive results between in-process
// sessions and sessions over sockets, both ways.
func TestCallAcross(t *testing.T) {
	eachPair(t, func(t *testing.T, n *junction.Node, caller, callee *client.Session) {
		proc := wamp.URI(fmt.Sprintf("com.example.count.%d", caller.ID()))
		_, err := callee.Register(t.Context(), proc, func(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
			to, ok := wamp.AsInt(inv.Args[0])
			if !ok {
				return nil, wamp.Errorf("com.example.bad_argument", "not an integer: %v", inv.Args[0])
			}
			for i := int64(1); i < to; i++ {
				if err := inv.SendProgress(&client.Result{Args: wamp.List{i}}); err != nil {
					return nil, err
				}
			}
			return &client.Result{Args: wamp.List{to}, Kwargs: wamp.Object{{Key: "caller", Value: inv.Details["caller"]}}}, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var progress []int64
		res, err := caller.Call(t.Context(), proc, wamp.List{3}, nil, client.WithProgress(func(r *client.Result) {
			i, _ := wamp.AsInt(r.Args[0])
			progress = append(progress, i)
		}))
		if err != nil {
			t.Fatal(err)
		}
		last, _ := wamp.AsInt(res.Args[0])
		if fmt.Sprint(progress) != "[1 2]" || last != 3 {
			t.Errorf("progress %v then %v, want [1 2] then 3", progress, res.Args)
		}
		// The caller is disclosed as the realm's role says.
		if id, _ := res.Kwargs.Get("caller"); fmt.Sprint(id) != fmt.Sprint(caller.ID()) {
			t.Errorf("callee saw caller %v, want %d", id, caller.ID())
		}
		_, err = caller.Call(t.Context(), proc, wamp.List{"three"}, nil)
		if re, ok := err.(*wamp.RequestError); !ok || re.URI != "com.example.bad_argument" {
			t.Errorf("call with a bad argument: %v", err)
		}
	})
}

// TestPublishAcross: events between in-process sessions and sessions over
// sockets, both ways.
func TestPublishAcross(t *testing.T) {
	eachPair(t, func(t *testing.T, n *junction.Node, pub, sub *client.Session) {
		topic := wamp.URI(fmt.Sprintf("com.example.news.%d", pub.ID()))
		got := make(chan *client.Event, 1)
		if _, err := sub.Subscribe(t.Context(), topic, func(ev *client.Event) { got <- ev }, nil); err != nil {
			t.Fatal(err)
		}
		id, err := pub.Publish(t.Context(), topic, wamp.List{"hello", 42}, wamp.Object{{Key: "k", Value: true}}, wamp.Dict{"acknowledge": true})
		if err != nil || id == 0 {
			t.Fatalf("publish: %v (id %d)", err, id)
		}
		ev := <-got
		n42, _ := wamp.AsInt(ev.Args[1])
		k, _ := ev.Kwargs.Get("k")
		if ev.Args[0] != "hello" || n42 != 42 || k != true || ev.Publication != id {
			t.Errorf("event %+v, want [hello 42] {k: true}, publication %d", ev, id)
		}
	})
}

// TestMetaAcross: the meta API sees in-process sessions as any other, and
// in-process sessions may use it.
func TestMetaAcross(t *testing.T) {
	n := startSockets(t)
	joins := make(chan wamp.ID, 4)
	local := joinLocal(t, n)
	_, err := local.Subscribe(t.Context(), "wamp.session.on_join", func(ev *client.Event) {
		d, _ := wamp.AsDict(ev.Args[0])
		id, _ := wamp.AsInt(d["session"])
		joins <- wamp.ID(id)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := joinWS(t, n)
	if id := <-joins; id != ws.ID() {
		t.Errorf("on_join for %d, want the WebSocket session %d", id, ws.ID())
	}
	other := joinLocal(t, n)
	if id := <-joins; id != other.ID() {
		t.Errorf("on_join for %d, want the in-process session %d", id, other.ID())
	}
	res, err := ws.Call(t.Context(), "wamp.session.get", wamp.List{local.ID()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := wamp.AsDict(res.Args[0])
	tr, _ := wamp.AsDict(d["transport"])
	if d["authrole"] != "anonymous" || d["authmethod"] != "anonymous" || tr["type"] != "local" {
		t.Errorf("wamp.session.get of the in-process session: %v", d)
	}
	res, err = local.Call(t.Context(), "wamp.session.count", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := wamp.AsInt(res.Args[0]); c != 3 {
		t.Errorf("wamp.session.count: %v, want 3", res.Args)
	}
}
