package bridge

import (
	"context"
	"net/http/httptest"
	"strings"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// serializers are the WAMP serializers a peer of the bridge may speak.
var serializers = []string{"json", "msgpack", "cbor", "ubjson"}

// wirePeer joins e's realm as a "backend" over a real WebSocket speaking
// serializer (wamp.2.<serializer>), so that what it sends and receives is
// encoded and decoded as on the wire.
func (e *env) wirePeer(serializer string) *client.Client {
	e.t.Helper()
	h, err := websocket.NewHandler(websocket.Options{Attacher: e.router.Gate(auth.Anonymous("backend"))})
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	e.t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	dial := func(ctx context.Context) (wamp.Peer, error) {
		return websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{"wamp.2." + serializer}})
	}
	c, err := client.Connect(context.Background(), dial, client.Config{Realm: "realm1"}, client.ReconnectOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}
