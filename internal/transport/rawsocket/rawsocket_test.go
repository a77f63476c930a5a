package rawsocket

import (
	"errors"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"io"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/transport/outbox"
	"github.com/junction-wamp/junction/wamp"
)

func TestRoundTripEveryCodec(t *testing.T) {
	for _, name := range []string{"json", "msgpack", "cbor", "ubjson"} {
		t.Run(name, func(t *testing.T) {
			echo := newEcho()
			p := dial(t, serve(t, Options{Attacher: echo}), DialOptions{Serializer: name})
			if info := p.Info(); info.Transport != "rawsocket" || info.Serializer != name {
				t.Fatalf("Info = %+v", info)
			}
			transporttest.CheckRoundTrip(t, p, echo)
		})
	}
}

func TestUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wamp.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	a := newAttacher()
	serveOn(t, l, Options{Attacher: a})
	p, err := Dial(t.Context(), "unix", path, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := <-a.Sessions
	if got := s.Peer.Info().RemoteAddr; got != path {
		t.Errorf("server RemoteAddr %q, want the socket path", got)
	}
	close(s.Release)
	<-s.Ended
	if _, err := p.Recv(); err != io.EOF {
		t.Fatalf("Recv after server Close = %v", err)
	}
	l2, err := net.Listen("unix", filepath.Join(t.TempDir(), "echo.sock"))
	if err != nil {
		t.Fatal(err)
	}
	echo := newEcho()
	serveOn(t, l2, Options{Attacher: echo})
	p2, err := Dial(t.Context(), "unix", l2.Addr().String(), DialOptions{Serializer: "cbor"})
	if err != nil {
		t.Fatal(err)
	}
	transporttest.CheckRoundTrip(t, p2, echo)
}

func TestCloseFromServer(t *testing.T) {
	a := newAttacher()
	p := dial(t, serve(t, Options{Attacher: a}), DialOptions{})
	s := <-a.Sessions
	s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
	close(s.Release)
	<-s.Ended
	if m, err := p.Recv(); err != nil || m.Type() != wamp.TypeGoodbye {
		t.Fatalf("Recv = %v, %v; want the GOODBYE queued before Close", m, err)
	}
	if _, err := p.Recv(); err != io.EOF {
		t.Fatalf("Recv after server Close = %v, want EOF", err)
	}
	if err := p.Send(&wamp.Goodbye{}); !errors.Is(err, wamp.ErrClosed) {
		t.Fatalf("Send after close = %v, want ErrClosed", err)
	}
}

func TestServerCloseEndsSessions(t *testing.T) {
	s, _ := NewServer(Options{Attacher: &echoAttacher{Errs: make(chan error, 1)}})
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	done := make(chan error)
	go func() { done <- s.Serve(l) }()
	p, err := Dial(t.Context(), "tcp", l.Addr().String(), DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "a.b"})
	if _, err := p.Recv(); err != nil { // the session is attached
		t.Fatal(err)
	}
	s.Close() // closes the connection and waits for Attach to return
	if _, err := p.Recv(); err == nil {
		t.Fatal("Recv after server Close succeeded")
	}
	if err := <-done; !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve = %v", err)
	}
	if err := s.Serve(l); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve after Close = %v", err)
	}
	p.Close()
}

func TestConcurrentSend(t *testing.T) {
	a := newAttacher()
	p := dial(t, serve(t, Options{Attacher: a}), DialOptions{})
	s := <-a.Sessions
	defer close(s.Release)
	transporttest.CheckConcurrentSend(t, p, s.Peer)
}

func TestSlowConsumer(t *testing.T) {
	a := newAttacher()
	r := dialRaw(t, serve(t, Options{Attacher: a, Outbox: outbox.Options{MaxMessages: 64, MaxBytes: 1 << 20}}))
	r.open() // then never reads
	s := <-a.Sessions
	defer close(s.Release)
	big := &wamp.Publish{Request: 1, Options: wamp.Dict{}, Topic: "t", Args: wamp.List{strings.Repeat("x", 16<<10)}}
	var err error
	for i := 0; i < 100000 && err == nil; i++ {
		err = s.Peer.Send(big)
	}
	if !errors.Is(err, wamp.ErrSlowConsumer) {
		t.Fatalf("Send = %v, want ErrSlowConsumer", err)
	}
	if _, err := s.Peer.Recv(); !errors.Is(err, wamp.ErrSlowConsumer) {
		t.Fatalf("Recv = %v, want ErrSlowConsumer", err)
	}
}

func TestIncomingErrors(t *testing.T) {
	tests := []struct {
		name   string
		send   func(r *rawConn)
		want   error
		closes bool
	}{
		{"frame over limit", func(r *rawConn) { r.frame(frameMessage, make([]byte, 513)) }, ErrMessageTooBig, true},
		{"reserved bits", func(r *rawConn) { r.frame(0x08, []byte{0x90}) }, wamp.ErrProtocol, true},
		{"reserved type", func(r *rawConn) { r.frame(3, nil) }, wamp.ErrProtocol, true},
		{"undecodable message", func(r *rawConn) { r.frame(frameMessage, []byte{0xc1}) }, wamp.ErrProtocol, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAttacher()
			r := dialRaw(t, serve(t, Options{Attacher: a, MaxMessageSize: 512}))
			r.open()
			s := <-a.Sessions
			defer close(s.Release)
			tt.send(r)
			if _, err := s.Peer.Recv(); !errors.Is(err, tt.want) {
				t.Fatalf("Recv = %v, want %v", err, tt.want)
			}
			if !tt.closes {
				s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "a.b"})
			}
			_, _, err := r.readFrame()
			if closed := err != nil; closed != tt.closes {
				t.Fatalf("connection closed = %v (%v), want %v", closed, err, tt.closes)
			}
		})
	}
}

func TestSendOverPeerLimit(t *testing.T) {
	a := newAttacher()
	p := dial(t, serve(t, Options{Attacher: a}), DialOptions{MaxMessageSize: 512})
	s := <-a.Sessions
	defer close(s.Release)
	big := &wamp.Publish{Request: 1, Options: wamp.Dict{}, Topic: "t", Args: wamp.List{strings.Repeat("x", 600)}}
	err := s.Peer.Send(big)
	if !errors.Is(err, ErrMessageTooBig) || !errors.Is(err, wamp.ErrMessageTooLong) {
		t.Fatalf("Send = %v, want ErrMessageTooBig and wamp.ErrMessageTooLong", err)
	}
	if tl, ok := errors.AsType[*wamp.MessageTooLongError](err); !ok || tl.Type != wamp.TypePublish || tl.Length <= 600 || tl.Limit != 512 {
		t.Fatalf("Send = %#v, want a MessageTooLongError for the PUBLISH, limit 512", err)
	}
	small := &wamp.Goodbye{Details: wamp.Dict{}, Reason: "a.b"}
	if err := s.Peer.Send(small); err != nil {
		t.Fatalf("Send after a refused message: %v", err)
	}
	if m, err := p.Recv(); err != nil || !reflect.DeepEqual(m, small) {
		t.Fatalf("Recv = %v, %v", m, err)
	}
}

// TestSharedOverOnePeerLimit: a message shared by many peers (a fan-out's
// EVENT, encoded once per serializer) is refused by the peer whose client
// accepts less, whichever encodes it first, and reaches the others whole.
func TestSharedOverOnePeerLimit(t *testing.T) {
	for _, smallFirst := range []bool{true, false} {
		a := newAttacher()
		addr := serve(t, Options{Attacher: a})
		limits := []int{512, 4096}
		if !smallFirst {
			limits = []int{4096, 512}
		}
		ev := &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{strings.Repeat("x", 600)}}
		shared := wamp.NewShared(ev)
		for _, limit := range limits {
			p := dial(t, addr, DialOptions{MaxMessageSize: limit})
			s := <-a.Sessions
			err := s.Peer.Send(shared)
			if limit == 512 {
				if !errors.Is(err, wamp.ErrMessageTooLong) {
					t.Errorf("Send to a peer of limit 512: %v, want wamp.ErrMessageTooLong", err)
				}
			} else if err != nil {
				t.Errorf("Send to a peer of limit %d: %v", limit, err)
			} else if m, err := p.Recv(); err != nil || !reflect.DeepEqual(m, ev) {
				t.Errorf("peer of limit %d: Recv = %+v, %v", limit, m, err)
			}
			close(s.Release)
		}
	}
}

func TestPingAnswered(t *testing.T) {
	a := newAttacher()
	r := dialRaw(t, serve(t, Options{Attacher: a}))
	r.open()
	s := <-a.Sessions
	defer close(s.Release)
	go s.Peer.Recv() // the session's reader answers pings; it ends with the test
	r.frame(framePing, []byte("abc"))
	typ, payload, err := r.readFrame()
	if err != nil || typ != framePong || string(payload) != "abc" {
		t.Fatalf("answer %d %q %v, want pong abc", typ, payload, err)
	}
}
