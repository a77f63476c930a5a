package websocket

import (
	"bufio"
	"errors"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/wamp"
	"github.com/junction-wamp/junction/internal/wamp/codec"
)

// pipePeer makes a peer over one end of a net.Pipe.
func pipePeer(conn net.Conn, client bool, interval time.Duration) *Peer {
	return newPeer(conn, bufio.NewReader(conn), nil, peerConfig{
		codec: codec.JSON, client: client, pingInterval: interval, pingTimeout: interval / 2,
	})
}

func TestKeepaliveAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		server, client := pipePeer(a, false, time.Second), pipePeer(b, true, 0)
		got := make(chan wamp.Message)
		serverErr := make(chan error)
		go func() { _, err := server.Recv(); serverErr <- err }() // the session's reader
		go func() {
			for {
				m, err := client.Recv() // answers pings while it waits
				if err != nil {
					close(got)
					return
				}
				got <- m
			}
		}()
		time.Sleep(time.Minute) // sixty intervals of fake time
		if err := server.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "a.b"}); err != nil {
			t.Fatalf("server closed a peer that answers pings: %v", err)
		}
		if m := <-got; m == nil || m.Type() != wamp.TypeGoodbye {
			t.Fatalf("client got %v", m)
		}
		server.Close()
		<-got
		if err := <-serverErr; err != io.EOF {
			t.Fatalf("server Recv = %v, want EOF after its Close", err)
		}
		client.Close()
	})
}

func TestKeepaliveSilentPeerClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		server := pipePeer(a, false, time.Second)
		recvErr := make(chan error)
		go func() { _, err := server.Recv(); recvErr <- err }()
		br := bufio.NewReader(b)
		var ops []ws.OpCode
		for {
			h, err := ws.ReadHeader(br) // reads, never answers
			if err != nil {
				break
			}
			io.CopyN(io.Discard, br, h.Length)
			ops = append(ops, h.OpCode)
		}
		if len(ops) != 2 || ops[0] != ws.OpPing || ops[1] != ws.OpClose {
			t.Fatalf("frames %v, want ping then close", ops)
		}
		if err := <-recvErr; !errors.Is(err, ErrPingTimeout) {
			t.Fatalf("Recv = %v, want ErrPingTimeout", err)
		}
		b.Close()
	})
}
