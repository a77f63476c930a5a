package integration

import (
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestMetaAPI: a session sees another join and leave through the session
// meta events, and can count, list and inspect sessions.
func TestMetaAPI(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		watcher := e.anon()
		joins := subscribe(t, watcher, "wamp.session.on_join", nil)
		leaves := subscribe(t, watcher, "wamp.session.on_leave", nil)
		other := e.join(clientConfig("alice"))
		joined := <-joins
		details, _ := wamp.AsDict(joined.Args[0])
		if id, _ := wamp.AsInt(details["session"]); wamp.ID(id) != other.ID() || details["authid"] != "alice" {
			t.Fatalf("on_join = %v, want session %d authid alice", joined.Args, other.ID())
		}
		res, err := watcher.Call(ctx(t), "wamp.session.count", nil, nil)
		if n, _ := wamp.AsInt(res.Args[0]); err != nil || n != 2 {
			t.Fatalf("wamp.session.count = %v, %v; want 2", res, err)
		}
		res, err = watcher.Call(ctx(t), "wamp.session.get", wamp.List{other.ID()}, nil)
		if d, _ := wamp.AsDict(res.Args[0]); err != nil || d["authrole"] != "user" {
			t.Fatalf("wamp.session.get = %v, %v", res, err)
		}
		other.Close()
		left := <-leaves
		if id, _ := wamp.AsInt(left.Args[0]); wamp.ID(id) != other.ID() {
			t.Fatalf("on_leave = %v, want session %d", left.Args, other.ID())
		}
	})
}
