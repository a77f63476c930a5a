package corpus_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"github.com/junction-wamp/junction/wamp"
)

// goTimeout bounds each step of a check in Go (a join, a subscription, an
// awaited event).
const goTimeout = nodeproc.StartBound

// joinGo joins realm at url with the Go client (JSON), anonymously; the
// session leaves when the test ends.
func joinGo(t *testing.T, url string, realm wamp.URI) *client.Session {
	t.Helper()
	return joinWith(t, url, realm, func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{"wamp.2.json"}})
	})
}

// joinWith joins realm anonymously over the peer dial makes, to url; the
// session leaves when the test ends.
func joinWith(t *testing.T, url string, realm wamp.URI, dial func(context.Context) (wamp.Peer, error)) *client.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	p, err := dial(ctx)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	s, err := client.Join(ctx, p, client.Config{Realm: realm})
	if err != nil {
		t.Fatalf("join %s at %s: %v", realm, url, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), goTimeout)
		defer cancel()
		if err := s.Leave(ctx); err != nil {
			t.Errorf("leave %s: %v", url, err)
		}
	})
	return s
}

// watchRestart proves the watch of hello-nodejs: a new version.txt in the
// guest's directory restarts the guest, which then publishes its counter
// events with the new version.
func watchRestart(t *testing.T, r *nodeRun) {
	s := joinGo(t, "ws://"+r.addr+"/ws", "realm1")
	versions := make(chan string, 64)
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	_, err := s.Subscribe(ctx, "com.example.oncounter", func(ev *client.Event) {
		v, _ := ev.Kwargs.Dict()["version"].(string)
		select {
		case versions <- v:
		default:
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "node", "version.txt"), []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(goTimeout)
	for {
		select {
		case v := <-versions:
			if v == "2" {
				r.node.WaitLog(t, "the guest started again", 2, nodeproc.MsgIs("guest started"))
				return
			}
		case <-timeout:
			t.Fatalf("no counter event of version 2 within %s of the change", goTimeout)
		}
	}
}
