package docs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// TestGuestExample checks what guest-workers.md says of
// examples/guest.json: the Node.js guest starts once the router listens,
// gets its settings on stdin and its router URL from its environment,
// registers com.example.greet (the page's curl command calls it), and is
// gone, with its registration, once the node stops.
func TestGuestExample(t *testing.T) {
	if _, err := os.Stat(filepath.Join(nodeModules, "autobahn")); err != nil {
		t.Fatalf("autobahn-js is missing (run scripts/install-test-deps.sh): %v", err)
	}
	r := startExample(t, "guest.json")
	s := must(t)(joinWS(t, "ws://"+r.addr(t, "workers[0].transports[0]")+"/ws", client.Config{Realm: "realm1"}))
	waitRegistered(t, s, "com.example.greet")

	greet := curlCase{cmd: `curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.greet","args":["Junction"]}'`,
		status: 200, want: `{"args":["Hello, Junction!"]}`}
	greet.run(t, "guest-workers.md", "http://"+r.addr(t, "workers[0].transports[0]"))

	deleted := make(chan struct{}, 1)
	if _, err := s.Subscribe(testCtx(t), "wamp.registration.on_delete", func(*client.Event) {
		deleted <- struct{}{}
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.containers.Stop(testCtx(t)); err != nil { // the guest's node
		t.Fatalf("Stop: %v", err)
	}
	next(t, deleted, "registration deleted")
	if _, err := s.Call(testCtx(t), "com.example.greet", wamp.List{"again"}, nil); wampErr(err) != wamp.ErrNoSuchProcedure {
		t.Errorf("call after stop: %v, want %s", err, wamp.ErrNoSuchProcedure)
	}
}

// waitRegistered waits until procedure is registered on s's realm:
// subscribed to the meta event first, then looked up, so that a
// registration made in between is not missed.
func waitRegistered(t *testing.T, s *client.Session, procedure string) {
	t.Helper()
	created := make(chan struct{}, 1)
	sub, err := s.Subscribe(testCtx(t), "wamp.registration.on_create", func(ev *client.Event) {
		if len(ev.Args) > 1 {
			if d, ok := wamp.AsDict(ev.Args[1]); ok && d["uri"] == procedure {
				created <- struct{}{}
			}
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe(context.Background())
	res, err := s.Call(testCtx(t), "wamp.registration.lookup", wamp.List{procedure}, nil)
	if err != nil {
		t.Fatalf("lookup: %v", err)
	}
	if len(res.Args) == 1 && res.Args[0] != nil {
		return
	}
	next(t, created, procedure+" registered")
}
