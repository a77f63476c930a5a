package websocket

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/wamp"
)

// rawClient is a WebSocket client at the frame level, to send what Dial
// never would.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
}

func dialRaw(t *testing.T, url, proto string) *rawClient {
	t.Helper()
	conn, br, _, err := ws.Dialer{Protocols: []string{proto}}.Dial(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if br == nil {
		br = bufio.NewReader(conn)
	}
	return &rawClient{t: t, conn: conn, br: br}
}

func (c *rawClient) write(op ws.OpCode, fin bool, payload string) {
	c.t.Helper()
	f := ws.MaskFrame(ws.NewFrame(op, fin, []byte(payload)))
	if err := ws.WriteFrame(c.conn, f); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next frame, unmasked.
func (c *rawClient) read() (ws.Header, []byte) {
	c.t.Helper()
	h, err := ws.ReadHeader(c.br)
	if err != nil {
		c.t.Fatal(err)
	}
	b := make([]byte, h.Length)
	if _, err := io.ReadFull(c.br, b); err != nil {
		c.t.Fatal(err)
	}
	return h, b
}

// readClose reads frames until a close frame and returns its status.
func (c *rawClient) readClose() ws.StatusCode {
	c.t.Helper()
	for {
		h, b := c.read()
		if h.OpCode == ws.OpClose {
			code, _ := ws.ParseCloseFrameData(b)
			return code
		}
	}
}

// failCase is what a client sends and the Recv error and close status it
// must cause.
type failCase struct {
	name   string
	send   func(c *rawClient)
	want   error
	status ws.StatusCode
}

// checkFailures runs each case on a new connection to a server with opts,
// dialed by dial.
func checkFailures(t *testing.T, opts Options, dial func(t *testing.T, url string) *rawClient, tests []failCase) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAttacher()
			opts.Attacher = a
			c := dial(t, serve(t, opts))
			s := <-a.Sessions
			defer close(s.Release)
			tt.send(c)
			if _, err := s.Peer.Recv(); !errors.Is(err, tt.want) {
				t.Fatalf("Recv = %v, want %v", err, tt.want)
			}
			if got := c.readClose(); got != tt.status {
				t.Fatalf("close status %d, want %d", got, tt.status)
			}
		})
	}
}

func TestFramingErrors(t *testing.T) {
	dial := func(t *testing.T, url string) *rawClient { return dialRaw(t, url, "wamp.2.json") }
	checkFailures(t, Options{MaxMessageSize: 256}, dial, []failCase{
		{"message over max size", func(c *rawClient) { c.write(ws.OpText, true, strings.Repeat("x", 300)) },
			ErrMessageTooBig, ws.StatusMessageTooBig},
		{"fragments over max size", func(c *rawClient) {
			c.write(ws.OpText, false, strings.Repeat("x", 200))
			c.write(ws.OpContinuation, true, strings.Repeat("x", 200))
		}, ErrMessageTooBig, ws.StatusMessageTooBig},
		{"invalid UTF-8", func(c *rawClient) { c.write(ws.OpText, true, "[1,\"\xff\"]") },
			wamp.ErrProtocol, ws.StatusInvalidFramePayloadData},
		{"continuation first", func(c *rawClient) { c.write(ws.OpContinuation, true, "[]") },
			wamp.ErrProtocol, ws.StatusProtocolError},
		{"unmasked frame", func(c *rawClient) { ws.WriteFrame(c.conn, ws.NewTextFrame([]byte("[]"))) },
			wamp.ErrProtocol, ws.StatusProtocolError},
		{"reserved bits", func(c *rawClient) {
			f := ws.MaskFrame(ws.NewTextFrame([]byte("[]")))
			f.Header.Rsv = 4
			ws.WriteFrame(c.conn, f)
		}, wamp.ErrProtocol, ws.StatusProtocolError},
	})
}

func TestUndecodableMessageKeepsConnection(t *testing.T) {
	a := newAttacher()
	c := dialRaw(t, serve(t, Options{Attacher: a}), "wamp.2.json")
	s := <-a.Sessions
	defer close(s.Release)
	c.write(ws.OpText, true, `["not a message"]`)
	if _, err := s.Peer.Recv(); !errors.Is(err, wamp.ErrProtocol) {
		t.Fatalf("Recv = %v, want ErrProtocol", err)
	}
	c.write(ws.OpText, true, `[6,{},"wamp.close.normal"]`)
	if m, err := s.Peer.Recv(); err != nil || m.Type() != wamp.TypeGoodbye {
		t.Fatalf("Recv after a bad message = %v, %v", m, err)
	}
}

func TestBatchedProtocolError(t *testing.T) {
	a := newAttacher()
	c := dialRaw(t, serve(t, Options{Attacher: a}), "wamp.2.json.batched")
	s := <-a.Sessions
	defer close(s.Release)
	c.write(ws.OpText, true, `[6,{},"wamp.close.normal"]`) // no separator
	if _, err := s.Peer.Recv(); !errors.Is(err, wamp.ErrProtocol) {
		t.Fatalf("Recv = %v, want ErrProtocol", err)
	}
	c.write(ws.OpText, true, "[6,{},\"a.b\"]\x18[6,{},\"c.d\"]\x18")
	for _, want := range []wamp.URI{"a.b", "c.d"} {
		if m, err := s.Peer.Recv(); err != nil || m.(*wamp.Goodbye).Reason != want {
			t.Fatalf("Recv = %v, %v; want GOODBYE %s", m, err, want)
		}
	}
}

func TestFragmentsAndControlFrames(t *testing.T) {
	a := newAttacher()
	c := dialRaw(t, serve(t, Options{Attacher: a}), "wamp.2.json")
	s := <-a.Sessions
	defer close(s.Release)
	c.write(ws.OpText, false, `[6,{},`)
	c.write(ws.OpPing, true, "hi")
	c.write(ws.OpContinuation, false, `"wamp.close`)
	c.write(ws.OpContinuation, true, `.normal"]`)
	if m, err := s.Peer.Recv(); err != nil || m.Type() != wamp.TypeGoodbye {
		t.Fatalf("Recv = %v, %v", m, err)
	}
	if h, b := c.read(); h.OpCode != ws.OpPong || string(b) != "hi" || h.Masked {
		t.Fatalf("answer to ping: %+v %q", h, b)
	}
	s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "x.y"})
	if h, b := c.read(); h.OpCode != ws.OpText || string(b) != `[6,{},"x.y"]` {
		t.Fatalf("data frame %+v %q", h, b)
	}
	c.write(ws.OpClose, true, string(ws.NewCloseFrameBody(ws.StatusGoingAway, "bye")))
	if _, err := s.Peer.Recv(); err != io.EOF {
		t.Fatalf("Recv after close frame = %v, want EOF", err)
	}
	if got := c.readClose(); got != ws.StatusNormalClosure {
		t.Fatalf("close answer %d", got)
	}
}

func TestSlowConsumer(t *testing.T) {
	a := newAttacher()
	url := serve(t, Options{Attacher: a, Outbox: outboxLimits(64, 1<<20)})
	c := dialRaw(t, url, "wamp.2.msgpack") // never reads
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
	_ = c
}

func TestMaxFrameSize(t *testing.T) {
	a := newAttacher()
	c := dialRaw(t, serve(t, Options{Attacher: a, MaxFrameSize: 8}), "wamp.2.json")
	s := <-a.Sessions
	defer close(s.Release)
	c.write(ws.OpText, false, `[6,{},`) // frames of 6, 8 and 3 bytes: within the limit
	c.write(ws.OpContinuation, false, `"a.b.c.d`)
	c.write(ws.OpContinuation, true, `e"]`)
	if m, err := s.Peer.Recv(); err != nil || m.(*wamp.Goodbye).Reason != "a.b.c.de" {
		t.Fatalf("Recv = %v, %v", m, err)
	}
	c.write(ws.OpText, true, `[6,{},"a"]`) // one frame of 10 bytes
	if _, err := s.Peer.Recv(); !errors.Is(err, ErrMessageTooBig) {
		t.Fatalf("Recv = %v, want ErrMessageTooBig", err)
	}
	if got := c.readClose(); got != ws.StatusMessageTooBig {
		t.Fatalf("close status %d, want %d", got, ws.StatusMessageTooBig)
	}
}

// TestFailByDrop: a client that breaks the protocol loses the connection
// without a close frame.
func TestFailByDrop(t *testing.T) {
	tests := []struct {
		name string
		send string
		want error
	}{
		{"invalid UTF-8", "[1,\"\xff\"]", wamp.ErrProtocol},
		{"message too big", strings.Repeat("x", 300), ErrMessageTooBig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAttacher()
			c := dialRaw(t, serve(t, Options{Attacher: a, MaxMessageSize: 256, FailByDrop: true}), "wamp.2.json")
			s := <-a.Sessions
			defer close(s.Release)
			c.write(ws.OpText, true, tt.send)
			if _, err := s.Peer.Recv(); !errors.Is(err, tt.want) {
				t.Fatalf("Recv = %v, want %v", err, tt.want)
			}
			if h, err := ws.ReadHeader(c.br); err == nil {
				t.Fatalf("got a %v frame, want the connection dropped", h.OpCode)
			}
		})
	}
}

func TestFragmentSize(t *testing.T) {
	for _, size := range []int{4, 6, 12} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			a := newAttacher()
			c := dialRaw(t, serve(t, Options{Attacher: a, FragmentSize: size}), "wamp.2.json")
			s := <-a.Sessions
			defer close(s.Release)
			const want = `[6,{},"x.y"]` // 12 bytes
			s.Peer.Send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: "x.y"})
			var got []byte
			for i := 0; ; i++ {
				h, b := c.read()
				wantOp := ws.OpContinuation
				if i == 0 {
					wantOp = ws.OpText
				}
				if h.OpCode != wantOp || len(b) > size {
					t.Fatalf("frame %d: %v with %d bytes, want %v with at most %d", i, h.OpCode, len(b), wantOp, size)
				}
				got = append(got, b...)
				if h.Fin {
					break
				}
			}
			if string(got) != want {
				t.Fatalf("message %q, want %q", got, want)
			}
		})
	}
}

// TestCloseFrameAnswer: a close frame with a code that may not be sent, a
// 1-byte payload or a reason that is not UTF-8 is answered with 1002
// (RFC 6455 section 7.4); a valid one, or one without payload, with 1000.
func TestCloseFrameAnswer(t *testing.T) {
	dial := func(t *testing.T, url string) *rawClient { return dialRaw(t, url, "wamp.2.json") }
	closeFrame := func(payload string) func(c *rawClient) {
		return func(c *rawClient) { c.write(ws.OpClose, true, payload) }
	}
	code := func(code ws.StatusCode, reason string) string { return string(ws.NewCloseFrameBody(code, reason)) }
	var tests []failCase
	for _, c := range []ws.StatusCode{0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535} {
		tests = append(tests, failCase{"code " + strconv.Itoa(int(c)), closeFrame(code(c, "")), wamp.ErrProtocol, ws.StatusProtocolError})
	}
	tests = append(tests,
		failCase{"1-byte payload", closeFrame("\x03"), wamp.ErrProtocol, ws.StatusProtocolError},
		failCase{"reason not UTF-8", closeFrame(code(ws.StatusNormalClosure, "bye\xff")), wamp.ErrProtocol, ws.StatusProtocolError},
		failCase{"no payload", closeFrame(""), io.EOF, ws.StatusNormalClosure},
		failCase{"reason UTF-8", closeFrame(code(ws.StatusGoingAway, "au revoir, déjà")), io.EOF, ws.StatusNormalClosure},
	)
	for _, c := range []ws.StatusCode{1000, 1001, 1002, 1003, 1007, 1011, 1014, 3000, 4999} {
		tests = append(tests, failCase{"code " + strconv.Itoa(int(c)), closeFrame(code(c, "")), io.EOF, ws.StatusNormalClosure})
	}
	checkFailures(t, Options{}, dial, tests)
}
