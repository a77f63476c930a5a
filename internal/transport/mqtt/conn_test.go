package mqtt

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/internal/transport/transporttest"
	"github.com/junction-wamp/junction/wamp"
)

// connected serves one end of a pipe and returns the other, after CONNECT
// (with keepAlive seconds) and the router's WELCOME, and the session.
func connected(t *testing.T, keepAlive byte) (net.Conn, *transporttest.Session) {
	t.Helper()
	return connectedWith(t, keepAlive, map[string]Mapping{"": {Serializer: "json"}})
}

// connectedWith is connected with the payload mappings maps.
func connectedWith(t *testing.T, keepAlive byte, maps map[string]Mapping) (net.Conn, *transporttest.Session) {
	t.Helper()
	a := transporttest.NewAttacher()
	h, err := NewHandler(Options{Attacher: a, Realm: "realm1", PayloadMapping: maps})
	if err != nil {
		t.Fatal(err)
	}
	srv, cl := net.Pipe()
	go h.ServeConn(srv)
	go cl.Write([]byte{0x10, 13, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, keepAlive, 0, 1, 'c'})
	s := <-a.Sessions
	m, err := s.Peer.Recv()
	hello, ok := m.(*wamp.Hello)
	if err != nil || !ok || hello.Realm != "realm1" || hello.Details["authid"] != "c" {
		t.Fatalf("hello %#v %v", m, err)
	}
	s.Peer.Send(&wamp.Welcome{Session: 1, Details: wamp.Dict{}})
	b := make([]byte, 4)
	if _, err := io.ReadFull(cl, b); err != nil || string(b) != "\x20\x02\x00\x00" {
		t.Fatalf("connack %x %v", b, err)
	}
	return cl, s
}

// TestKeepAlive: a client silent for 1.5 times its keep alive is closed;
// a PINGREQ within it keeps the connection.
func TestKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cl, s := connected(t, 2)
		defer close(s.Release)
		time.Sleep(2900 * time.Millisecond)
		cl.Write([]byte{0xc0, 0})
		b := make([]byte, 2)
		if _, err := io.ReadFull(cl, b); err != nil || b[0] != 0xd0 {
			t.Fatalf("pingresp %x %v", b, err)
		}
		start := time.Now()
		_, err := s.Peer.Recv()
		if err == nil || !strings.Contains(err.Error(), "keep alive") {
			t.Fatalf("recv: %v", err)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("closed after %s, want 3s", d)
		}
	})
}

// TestQoS1PubackAfterPublished: the PUBACK of a QoS 1 PUBLISH goes when
// the router answers PUBLISHED, and an ERROR closes the connection.
func TestQoS1PubackAfterPublished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cl, s := connected(t, 0)
		defer close(s.Release)
		go cl.Write([]byte{0x32, 11, 0, 3, 'a', '/', 'b', 0, 9, '{', '}', ' ', ' '})
		m, err := s.Peer.Recv()
		pub, ok := m.(*wamp.Publish)
		if err != nil || !ok || pub.Topic != "a.b" || pub.Options["acknowledge"] != true {
			t.Fatalf("publish %#v %v", m, err)
		}
		synctest.Wait() // nothing written before PUBLISHED
		s.Peer.Send(&wamp.Published{Request: pub.Request, Publication: 5})
		b := make([]byte, 4)
		if _, err := io.ReadFull(cl, b); err != nil || string(b) != "\x40\x02\x00\x09" {
			t.Fatalf("puback %x %v", b, err)
		}
		go cl.Write([]byte{0x32, 9, 0, 3, 'a', '/', 'b', 0, 10, '{', '}'})
		m, _ = s.Peer.Recv()
		s.Peer.Send(&wamp.Error{RequestType: wamp.TypePublish, Request: m.(*wamp.Publish).Request, Error: "wamp.error.not_authorized"})
		if _, err := cl.Read(b); !errors.Is(err, io.EOF) {
			t.Fatalf("read after a refused QoS 1 publication: %v, want EOF", err)
		}
	})
}

// TestEventUnencodable: an event whose payload its mapping cannot encode
// (NaN in JSON) is not sent: Send gives the router a *wamp.EncodeError
// to count and log, and the next event goes out as usual.
func TestEventUnencodable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cl, s := connected(t, 0)
		defer close(s.Release)
		details := wamp.Dict{wamp.OptTopic: "a.b"}
		err := s.Peer.Send(&wamp.Event{Subscription: 1, Publication: 1, Details: details, Args: wamp.List{math.NaN()}})
		if ee, ok := errors.AsType[*wamp.EncodeError](err); !ok || ee.Type != wamp.TypeEvent {
			t.Fatalf("Send = %v, want a *wamp.EncodeError for the EVENT", err)
		}
		go s.Peer.Send(&wamp.Event{Subscription: 1, Publication: 2, Details: details, Args: wamp.List{1}})
		b := make([]byte, 2)
		if _, err := io.ReadFull(cl, b); err != nil || b[0] != 0x30 {
			t.Fatalf("publish %x %v", b, err)
		}
		rest := make([]byte, b[1])
		if _, err := io.ReadFull(cl, rest); err != nil || !strings.HasPrefix(string(rest), "\x00\x03a/b") {
			t.Fatalf("publish %q %v, want topic a/b", rest, err)
		}
	})
}

// TestPassthrough: on a topic of payload type passthrough, an MQTT
// payload becomes a passthru payload with enc_algo "mqtt", and an event's
// passthru payload the MQTT payload; an event without one is not sent
// (a *wamp.EncodeError for the router to count and log).
func TestPassthrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cl, s := connectedWith(t, 0, map[string]Mapping{"": {Passthrough: true}})
		defer close(s.Release)
		go cl.Write([]byte{0x30, 8, 0, 3, 'a', '/', 'b', 0, 0xff, 'x'})
		m, err := s.Peer.Recv()
		pub, ok := m.(*wamp.Publish)
		if err != nil || !ok || pub.Topic != "a.b" || string(wamp.PayloadOf(pub).Passthru()) != "\x00\xffx" || pub.Args != nil || pub.Options["enc_algo"] != "mqtt" {
			t.Fatalf("publish %#v %v", m, err)
		}
		details := wamp.Dict{wamp.OptTopic: "a.b", "enc_algo": "mqtt"}
		err = s.Peer.Send(&wamp.Event{Subscription: 1, Publication: 1, Details: wamp.Dict{wamp.OptTopic: "a.b"}, Args: wamp.List{1}})
		if ee, ok := errors.AsType[*wamp.EncodeError](err); !ok || !errors.Is(err, errNoPassthru) || ee.Type != wamp.TypeEvent {
			t.Fatalf("Send of an event without passthru payload = %v, want a *wamp.EncodeError", err)
		}
		go s.Peer.Send(&wamp.Event{Subscription: 1, Publication: 2, Details: details, Raw: wamp.NewPassthru([]byte{0, 1})})
		b := make([]byte, 9)
		if _, err := io.ReadFull(cl, b); err != nil || string(b) != "\x30\x07\x00\x03a/b\x00\x01" {
			t.Fatalf("publish %q %v", b, err)
		}
	})
}

// TestWillOnPassthroughTopic: a will on a topic of payload type
// passthrough is not made a testament (a testament carries arguments):
// it is dropped with a warning, and the connection goes on.
func TestWillOnPassthroughTopic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log logtest.Log
		a := transporttest.NewAttacher()
		h, err := NewHandler(Options{Attacher: a, Realm: "realm1", Logger: log.Logger(slog.LevelInfo),
			PayloadMapping: map[string]Mapping{"": {Passthrough: true}}})
		if err != nil {
			t.Fatal(err)
		}
		srv, cl := net.Pipe()
		go h.ServeConn(srv)
		// CONNECT, clean session and a QoS 0 will "x" on a/b, client ID "c".
		go cl.Write([]byte{0x10, 21, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x06, 0, 0, 0, 1, 'c', 0, 3, 'a', '/', 'b', 0, 1, 'x'})
		s := <-a.Sessions
		defer close(s.Release)
		if m, err := s.Peer.Recv(); err != nil || m.Type() != wamp.TypeHello {
			t.Fatalf("hello %#v %v", m, err)
		}
		s.Peer.Send(&wamp.Welcome{Session: 1, Details: wamp.Dict{}})
		b := make([]byte, 4)
		if _, err := io.ReadFull(cl, b); err != nil || string(b) != "\x20\x02\x00\x00" {
			t.Fatalf("connack %x %v", b, err)
		}
		go cl.Write([]byte{0x30, 6, 0, 3, 'a', '/', 'b', 'y'})
		if m, err := s.Peer.Recv(); err != nil || m.Type() != wamp.TypePublish {
			t.Fatalf("after CONNECT: %#v %v, want the PUBLISH (no add_testament call)", m, err)
		}
		if lines := log.Lines(t, "mqtt: will dropped"); len(lines) != 1 || !strings.Contains(lines[0]["err"].(string), "passthrough") {
			t.Errorf("log: %s", log.String())
		}
	})
}
