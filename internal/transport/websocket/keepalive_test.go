package websocket

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// pipePeer makes a peer over one end of a net.Pipe.
func pipePeer(conn net.Conn, client bool, interval time.Duration) *Peer {
	return newPeer(conn, bufio.NewReader(conn), nil, peerConfig{
		codec: codec.JSON, client: client, peerOptions: &peerOptions{pingInterval: interval, pingTimeout: interval / 2},
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

func TestPingSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		server := newPeer(a, bufio.NewReader(a), nil, peerConfig{codec: codec.JSON,
			peerOptions: &peerOptions{pingInterval: time.Second, pingSize: 8}})
		go server.Recv()
		br := bufio.NewReader(b)
		h, err := ws.ReadHeader(br)
		if err != nil || h.OpCode != ws.OpPing || h.Length != 8 {
			t.Fatalf("frame %+v, %v; want a ping with 8 bytes", h, err)
		}
		server.Close()
		io.Copy(io.Discard, br)
		b.Close()
	})
}

// TestCloseHandshake: with a close handshake timeout, the server keeps TCP
// open after its close frame until the client's close frame arrives or the
// timeout passes; without one it closes TCP at once.
func TestCloseHandshake(t *testing.T) {
	tests := []struct {
		name    string
		wait    time.Duration
		answer  bool          // the client answers the close frame
		closeAt time.Duration // when the server closes TCP
	}{
		{"client answers", time.Second, true, 0},
		{"client silent", time.Second, false, time.Second},
		{"no timeout", 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, b := net.Pipe()
				server := newPeer(a, bufio.NewReader(a), nil, peerConfig{codec: codec.JSON,
					peerOptions: &peerOptions{closeWait: tt.wait}})
				start := time.Now()
				go func() {
					server.Close()
					server.awaitClose()
				}()
				br := bufio.NewReader(b)
				if h, err := ws.ReadHeader(br); err != nil || h.OpCode != ws.OpClose {
					t.Fatalf("frame %+v, %v; want the close frame", h, err)
				} else {
					io.CopyN(io.Discard, br, h.Length)
				}
				if tt.answer { // the server still reads: the writes go through
					for _, f := range []ws.Frame{ws.NewTextFrame([]byte(`[6,{},"late"]`)),
						ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, ""))} {
						if err := ws.WriteFrame(b, ws.MaskFrame(f)); err != nil {
							t.Fatalf("client's %v frame: %v", f.Header.OpCode, err)
						}
					}
				}
				if _, err := br.ReadByte(); err != io.EOF {
					t.Fatalf("read after the close frame: %v, want EOF", err)
				}
				if got := time.Since(start); got != tt.closeAt {
					t.Fatalf("TCP closed after %v, want %v", got, tt.closeAt)
				}
				b.Close()
			})
		})
	}
}

// TestCloseStopsSession: once the server has sent its close frame (the
// router ended the session), what the client sends is not handed to the
// session, while the connection lingers for the client's close frame.
func TestCloseStopsSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		server := newPeer(a, bufio.NewReader(a), nil, peerConfig{codec: codec.JSON,
			peerOptions: &peerOptions{closeWait: time.Second}})
		got := make(chan error, 1)
		go func() { // the session's reader, then the handler's awaitClose
			m, err := server.Recv()
			if err == nil {
				err = fmt.Errorf("Recv returned %v after our close frame", m)
			}
			got <- err
			server.awaitClose()
		}()
		go server.Close() // from the router's side
		br := bufio.NewReader(b)
		if h, err := ws.ReadHeader(br); err != nil || h.OpCode != ws.OpClose {
			t.Fatalf("frame %+v, %v; want the close frame", h, err)
		} else {
			io.CopyN(io.Discard, br, h.Length)
		}
		publish := ws.MaskFrame(ws.NewTextFrame([]byte(`[16,1,{},"com.example.topic"]`)))
		if err := ws.WriteFrame(b, publish); err != nil {
			t.Fatalf("client's message after the close frame: %v (the connection must linger)", err)
		}
		if err := <-got; err != io.EOF {
			t.Fatalf("Recv = %v, want EOF", err)
		}
		start := time.Now()
		ws.WriteFrame(b, ws.MaskFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, ""))))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("read after the client's close frame: %v, want EOF", err)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("TCP closed %v after the client's close frame, want at once", d)
		}
		b.Close()
	})
}

// TestFailLingers: a client that broke the framing gets our close frame,
// and TCP stays open (its bytes discarded) until it closes or the timeout.
func TestFailLingers(t *testing.T) {
	for _, silent := range []bool{false, true} {
		t.Run(fmt.Sprintf("silent=%v", silent), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, b := net.Pipe()
				server := newPeer(a, bufio.NewReader(a), nil, peerConfig{codec: codec.JSON,
					peerOptions: &peerOptions{maxSize: 16, closeWait: time.Second}})
				recvErr, closed := make(chan error, 1), make(chan time.Duration, 1)
				start := time.Now()
				go func() {
					_, err := server.Recv()
					recvErr <- err
					server.awaitClose()
					closed <- time.Since(start)
				}()
				big := ws.MaskFrame(ws.NewTextFrame(bytes.Repeat([]byte("x"), 100)))
				go ws.WriteFrame(b, big) // the server reads its header only
				br := bufio.NewReader(b)
				if h, err := ws.ReadHeader(br); err != nil || h.OpCode != ws.OpClose {
					t.Fatalf("frame %+v, %v; want the close frame", h, err)
				} else {
					io.CopyN(io.Discard, br, h.Length)
				}
				if err := <-recvErr; !errors.Is(err, ErrMessageTooBig) {
					t.Fatalf("Recv = %v, want ErrMessageTooBig", err)
				}
				if _, err := b.Write([]byte("more bytes")); err != nil {
					t.Fatalf("write after the close frame: %v (the connection must linger)", err)
				}
				want := time.Second
				if silent {
					if _, err := br.ReadByte(); err != io.EOF {
						t.Fatalf("read: %v, want EOF", err)
					}
				} else {
					b.Close() // the client closes TCP
					want = 0
				}
				if d := <-closed; d != want {
					t.Fatalf("server closed TCP after %v, want %v", d, want)
				}
				b.Close()
			})
		})
	}
}
