package rawsocket

import (
	"bufio"
	"bytes"
	"errors"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

func FuzzRawSocketFrames(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 'h', 'i', 1, 0, 0, 0}, uint16(512))
	f.Add([]byte{2, 0, 0, 1, 'x'}, uint16(0))
	f.Add([]byte{0, 0xFF, 0xFF, 0xFF}, uint16(512))
	f.Add([]byte{0x08, 0, 0, 0}, uint16(512))
	f.Add([]byte{0, 0, 0, 5, 1}, uint16(512))
	f.Fuzz(func(t *testing.T, in []byte, limit uint16) {
		r := bytes.NewReader(in)
		var hdr [4]byte
		for {
			typ, payload, err := readFrame(r, &hdr, int(limit))
			if err != nil {
				if hdr[0] > framePong && !errors.Is(err, wamp.ErrProtocol) && err != io.EOF && err != io.ErrUnexpectedEOF {
					t.Fatalf("reserved type %#x gave %v", hdr[0], err)
				}
				return
			}
			if typ > framePong || len(payload) > int(limit) {
				t.Fatalf("frame type %d of %d bytes past limit %d", typ, len(payload), limit)
			}
		}
	})
}

func TestWriteReadFrame(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	var hdr [4]byte
	payload := bytes.Repeat([]byte{7}, 70000)
	writeFrame(w, &hdr, framePing, payload)
	w.Flush()
	if !bytes.Equal(buf.Bytes()[:4], []byte{1, 0x01, 0x11, 0x70}) {
		t.Fatalf("header %x", buf.Bytes()[:4])
	}
	typ, got, err := readFrame(&buf, &hdr, 1<<20)
	if err != nil || typ != framePing || !bytes.Equal(got, payload) {
		t.Fatalf("read back %d, %d bytes, %v", typ, len(got), err)
	}
}

func pipePeer(conn net.Conn, interval time.Duration) *Peer {
	return newPeer(conn, peerConfig{codec: codec.Msgpack, sendLimit: 1 << 20, recvLimit: 1 << 20,
		pingInterval: interval, pingTimeout: interval / 2})
}

func TestKeepaliveAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		server, client := pipePeer(a, time.Second), pipePeer(b, 0)
		serverErr := make(chan error)
		go func() { _, err := server.Recv(); serverErr <- err }()
		got := make(chan wamp.Message)
		go func() {
			defer close(got)
			for {
				m, err := client.Recv() // answers pings while it waits
				if err != nil {
					return
				}
				got <- m
			}
		}()
		time.Sleep(time.Minute) // fake time: sixty intervals
		if err := server.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "a.b"}); err != nil {
			t.Fatalf("server closed a peer that answers pings: %v", err)
		}
		if m := <-got; m == nil {
			t.Fatal("client got nothing")
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
		server := pipePeer(a, time.Second)
		recvErr := make(chan error)
		go func() { _, err := server.Recv(); recvErr <- err }()
		var types []byte
		var hdr [4]byte
		for {
			typ, _, err := readFrame(b, &hdr, 1<<20) // reads, never answers
			if err != nil {
				break
			}
			types = append(types, typ)
		}
		if len(types) != 1 || types[0] != framePing {
			t.Fatalf("frames %v, want one ping", types)
		}
		if err := <-recvErr; !errors.Is(err, ErrPingTimeout) {
			t.Fatalf("Recv = %v, want ErrPingTimeout", err)
		}
		b.Close()
	})
}

// BenchmarkSendRecv measures server Send -> client Recv of a small EVENT
// over msgpack on loopback, with up to 1,000 messages in flight.
func BenchmarkSendRecv(b *testing.B) {
	a := newAttacher()
	p := dial(b, serve(b, Options{Attacher: a}), DialOptions{})
	s := <-a.Sessions
	defer close(s.Release)
	transporttest.BenchSendRecv(b, s.Peer, p)
}
