package node

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// testeeNode starts a node with a websocket-testee worker whose messages
// may be 64 bytes at most, and returns its address.
func testeeNode(t *testing.T) (*Node, string) {
	n, _ := startLogged(t, `{"version": 2, "workers": [{"type": "websocket-testee",
		"transport": {"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"options": {"max_message_size": 64}}}]}`)
	return n, address(t, n, "workers[0].transport")
}

// testeeConn is a client connection to a testee.
type testeeConn struct {
	net.Conn
	r io.Reader // what the server sent, including what the dialer buffered
}

// dialTestee opens a WebSocket connection offering protocols.
func dialTestee(t *testing.T, addr string, protocols ...string) *testeeConn {
	t.Helper()
	c, br, hs, err := ws.Dialer{Protocols: protocols}.Dial(testCtx(t), "ws://"+addr+"/any/path")
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if hs.Protocol != "" {
		t.Errorf("subprotocol %q chosen, want none (as Crossbar's testee)", hs.Protocol)
	}
	_ = c.SetDeadline(time.Now().Add(testTimeout))
	var r io.Reader = c
	if br != nil {
		r = io.MultiReader(br, c)
	}
	return &testeeConn{Conn: c, r: r}
}

// send writes one masked frame.
func (c *testeeConn) send(t *testing.T, f ws.Frame) {
	t.Helper()
	if err := ws.WriteFrame(c, ws.MaskFrameInPlace(f)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// next reads the server's next frame.
func (c *testeeConn) next(t *testing.T) ws.Frame {
	t.Helper()
	f, err := ws.ReadFrame(c.r)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return f
}

// closeCode reads a close frame and returns its status code.
func (c *testeeConn) closeCode(t *testing.T) ws.StatusCode {
	t.Helper()
	f := c.next(t)
	if f.Header.OpCode != ws.OpClose {
		t.Fatalf("got opcode %v (%q), want a close frame", f.Header.OpCode, f.Payload)
	}
	code, _ := ws.ParseCloseFrameData(f.Payload)
	return code
}

// TestTesteeEcho: text and binary messages come back with their opcode,
// a fragmented one as one message, whatever subprotocol the client offers.
func TestTesteeEcho(t *testing.T) {
	_, addr := testeeNode(t)
	for _, protocols := range [][]string{nil, {"wamp.2.json"}, {"x-anything", "y"}} {
		c := dialTestee(t, addr, protocols...)
		for _, m := range []struct {
			op   ws.OpCode
			data string
		}{{ws.OpText, "héllo"}, {ws.OpBinary, "\x00\xff\x01"}, {ws.OpText, ""}, {ws.OpBinary, string(bytes.Repeat([]byte{7}, 64))}} {
			if err := wsutil.WriteClientMessage(c, m.op, []byte(m.data)); err != nil {
				t.Fatal(err)
			}
			got, op, err := wsutil.ReadServerData(struct {
				io.Reader
				io.Writer
			}{c.r, c})
			if err != nil {
				t.Fatalf("%v: read: %v", protocols, err)
			}
			if op != m.op || string(got) != m.data {
				t.Errorf("%v: got %v %q, want %v %q", protocols, op, got, m.op, m.data)
			}
		}
	}
	c := dialTestee(t, addr)
	c.send(t, ws.NewFrame(ws.OpText, false, []byte("frag")))
	c.send(t, ws.NewPingFrame([]byte("between")))
	c.send(t, ws.NewFrame(ws.OpContinuation, true, []byte("mented")))
	if f := c.next(t); f.Header.OpCode != ws.OpPong || string(f.Payload) != "between" {
		t.Errorf("got %v %q, want the pong of the ping between the fragments", f.Header.OpCode, f.Payload)
	}
	if f := c.next(t); f.Header.OpCode != ws.OpText || string(f.Payload) != "fragmented" {
		t.Errorf("got %v %q, want text %q", f.Header.OpCode, f.Payload, "fragmented")
	}
}

// TestTesteeControl: a ping gets its pong, a close its close, and a
// message over max_message_size, invalid UTF-8 or bad framing close the
// connection with the RFC 6455 status.
func TestTesteeControl(t *testing.T) {
	_, addr := testeeNode(t)
	t.Run("ping", func(t *testing.T) {
		c := dialTestee(t, addr)
		c.send(t, ws.NewPingFrame([]byte("are you there")))
		if f := c.next(t); f.Header.OpCode != ws.OpPong || string(f.Payload) != "are you there" {
			t.Errorf("got %v %q, want a pong with the ping's payload", f.Header.OpCode, f.Payload)
		}
	})
	tests := []struct {
		name   string
		frames []ws.Frame
		want   ws.StatusCode
	}{
		{"close", []ws.Frame{ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, "bye"))}, ws.StatusNormalClosure},
		{"too big", []ws.Frame{ws.NewBinaryFrame(make([]byte, 65))}, ws.StatusMessageTooBig},
		{"too big in fragments", []ws.Frame{ws.NewFrame(ws.OpBinary, false, make([]byte, 40)),
			ws.NewFrame(ws.OpContinuation, true, make([]byte, 40))}, ws.StatusMessageTooBig},
		{"not utf-8", []ws.Frame{ws.NewTextFrame([]byte("\xff\xfe"))}, ws.StatusInvalidFramePayloadData},
		{"continuation first", []ws.Frame{ws.NewFrame(ws.OpContinuation, true, []byte("x"))}, ws.StatusProtocolError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialTestee(t, addr)
			for _, f := range tt.frames {
				c.send(t, f)
			}
			if got := c.closeCode(t); got != tt.want {
				t.Errorf("close code %d, want %d", got, tt.want)
			}
			if tt.want != ws.StatusNormalClosure { // the server's close: answer it, end the stream
				c.send(t, ws.NewCloseFrame(ws.NewCloseFrameBody(tt.want, "")))
				_ = c.Conn.(*net.TCPConn).CloseWrite()
			}
			if _, err := c.r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Errorf("after the close frame: %v, want EOF", err)
			}
		})
	}
}

// TestTesteeStop: stopping the node ends its open connections, and a
// plain HTTP request is refused.
func TestTesteeStop(t *testing.T) {
	n, addr := testeeNode(t)
	plain, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_ = plain.SetDeadline(time.Now().Add(testTimeout))
	if _, err := plain.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	status, err := bufio.NewReader(plain).ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 400 ") {
		t.Errorf("plain GET: %q, %v; want 400", status, err)
	}
	c := dialTestee(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := n.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := c.r.Read(make([]byte, 1)); err == nil {
		t.Error("connection open after Stop")
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("listener open after Stop")
	}
}

// TestTesteeTLS: a testee on a TLS endpoint echoes over wss.
func TestTesteeTLS(t *testing.T) {
	dir := t.TempDir()
	pool := writeCert(t, dir)
	cfg := parse(t, `{"version": 2, "workers": [{"type": "websocket-testee", "transport": {"type": "websocket",
		"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, "tls": {"key": "server.key", "certificate": "server.crt"}}}}]}`, nil)
	n := start(t, cfg, dir)
	d := ws.Dialer{TLSConfig: &tls.Config{RootCAs: pool}}
	c, br, _, err := d.Dial(testCtx(t), "wss://"+address(t, n, "workers[0].transport")+"/")
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(testTimeout))
	if br != nil {
		t.Fatal("the server sent before the client's first message")
	}
	if err := wsutil.WriteClientText(c, []byte("secure")); err != nil {
		t.Fatal(err)
	}
	if got, err := wsutil.ReadServerText(c); err != nil || string(got) != "secure" {
		t.Errorf("got %q, %v; want %q", got, err, "secure")
	}
}
