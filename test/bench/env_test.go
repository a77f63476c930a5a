// Package bench holds the end-to-end benchmarks of the router core: RPC
// round trips and PubSub fan-out over WebSocket with Go clients, and the
// memory held by idle sessions. make bench runs them; results and the
// command line are recorded in docs/BENCHMARKS.md.
package bench

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

const realm = "realm1"

// server is a router behind a WebSocket listener on 127.0.0.1.
type server struct {
	router *router.Router
	url    string
}

func newServer(tb testing.TB) *server {
	tb.Helper()
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
	if err != nil {
		tb.Fatal(err)
	}
	h, err := websocket.NewHandler(websocket.Options{Attacher: r})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(func() { r.Close(); srv.Close() })
	return &server{router: r, url: "ws" + strings.TrimPrefix(srv.URL, "http")}
}

// join opens one session over WebSocket with the given subprotocol.
func join(tb testing.TB, url, subprotocol string) *client.Session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{subprotocol}})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := client.Join(ctx, p, client.Config{Realm: realm})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func timeout(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

var _ = wamp.ID(0)
