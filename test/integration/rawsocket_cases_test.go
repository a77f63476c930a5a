package integration

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/wamp"
)

// rawsocketCases lists the RawSocket environments: TCP with each
// serializer, and a Unix socket.
func rawsocketCases() []transportCase {
	var cases []transportCase
	for _, s := range []string{"json", "msgpack", "cbor", "ubjson"} {
		cases = append(cases, transportCase{"rawsocket/" + s, rawsocketSetup("tcp", s)})
	}
	return append(cases, transportCase{"rawsocket-unix/msgpack", rawsocketSetup("unix", "msgpack")})
}

func rawsocketSetup(network, serializer string) func(*testing.T, *router.Gate) func(context.Context) (wamp.Peer, error) {
	return func(t *testing.T, g *router.Gate) func(context.Context) (wamp.Peer, error) {
		addr := serveRawsocket(t, g, network)
		return func(ctx context.Context) (wamp.Peer, error) {
			return rawsocket.Dial(ctx, network, addr, rawsocket.DialOptions{Serializer: serializer})
		}
	}
}

// serveRawsocket serves g over RawSocket on a new listener, loopback TCP
// or a Unix socket, until the test ends; it returns the address.
func serveRawsocket(t *testing.T, g *router.Gate, network string) string {
	srv, err := rawsocket.NewServer(rawsocket.Options{Attacher: g})
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "wamp.sock")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}
