package rawsocket

import (
	"testing"

	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/wamp/codec"
)

func TestTrafficCounted(t *testing.T) {
	p := dial(t, serve(t, Options{Attacher: newEcho()}), DialOptions{Serializer: "msgpack"})
	c, _, _ := codec.Lookup("wamp.2.msgpack")
	transporttest.CheckTraffic(t, p, c)
}
