package websocket

import (
	"testing"

	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/wamp/codec"
)

func TestTrafficCounted(t *testing.T) {
	for _, proto := range []string{"wamp.2.json", "wamp.2.cbor"} {
		t.Run(proto, func(t *testing.T) {
			p := dial(t, serve(t, Options{Attacher: newEcho()}), DialOptions{Subprotocols: []string{proto}})
			c, _, _ := codec.Lookup(proto)
			transporttest.CheckTraffic(t, p, c)
		})
	}
}
