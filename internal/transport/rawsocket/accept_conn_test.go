package rawsocket

import (
	"errors"
	"net"
	"testing"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// TestAcceptConn: Accept runs the server's handshake on a connection that
// came without a listener, and its peer carries messages both ways.
func TestAcceptConn(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	cbor, _, _ := codec.Lookup("wamp.2.cbor")
	done := make(chan wamp.Peer, 1)
	go func() {
		p, err := Accept(server, Options{MaxMessageSize: 1 << 24})
		if err != nil {
			t.Error(err)
		}
		done <- p
	}()
	serverMax, err := clientHandshake(t.Context(), client, cbor, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	sp := <-done
	defer sp.Close()
	if serverMax != 1<<24 || sp.Info().Serializer != "cbor" {
		t.Fatalf("server max %d, serializer %q", serverMax, sp.Info().Serializer)
	}
	cp := newPeer(client, peerConfig{codec: cbor, sendLimit: serverMax, recvLimit: 1 << 20})
	defer cp.Close()
	if err := cp.Send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{}}); err != nil {
		t.Fatal(err)
	}
	m, err := sp.Recv()
	if h, ok := m.(*wamp.Hello); err != nil || !ok || h.Realm != "realm1" {
		t.Fatalf("Recv = %v, %v; want the HELLO", m, err)
	}
}

// TestAcceptRefuses: a serializer the options do not allow is refused,
// and conn is left to the caller.
func TestAcceptRefuses(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	defer server.Close()
	msgpack, _, _ := codec.Lookup("wamp.2.msgpack")
	go clientHandshake(t.Context(), client, msgpack, 1<<20)
	_, err := Accept(server, Options{Serializers: []string{"json"}})
	var he *HandshakeError
	if !errors.As(err, &he) || he.Code != ErrCodeSerializerUnsupported {
		t.Fatalf("Accept = %v, want a refusal", err)
	}
}
