package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobwas/ws"
)

// testBackend is a WebSocket server behind the proxy in tests. It echoes each
// data frame (opcode and FIN kept), answers pings, and answers a close
// frame with the same payload.
type testBackend struct {
	srv        *httptest.Server
	url        string
	handshakes chan backendHandshake
	ends       chan ws.StatusCode // per connection once its stream ended: the close status received, 0 if none
}

// backendHandshake is what the backend saw of a handshake.
type backendHandshake struct{ host, path, offered string }

func newBackend(t *testing.T, newServer func(http.Handler) *httptest.Server, h func(*testBackend, http.ResponseWriter, *http.Request)) *testBackend {
	b := &testBackend{handshakes: make(chan backendHandshake, 4), ends: make(chan ws.StatusCode, 4)}
	b.srv = newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.handshakes <- backendHandshake{r.Host, r.URL.Path, strings.Join(r.Header.Values("Sec-WebSocket-Protocol"), ", ")}
		h(b, w, r)
	}))
	t.Cleanup(b.srv.Close)
	b.url = "ws" + strings.TrimPrefix(b.srv.URL, "http") // wss for https
	return b
}

// echoBackend upgrades with gobwas, accepting the given subprotocols.
func echoBackend(t *testing.T, newServer func(http.Handler) *httptest.Server, protocols ...string) *testBackend {
	return newBackend(t, newServer, func(b *testBackend, w http.ResponseWriter, r *http.Request) {
		up := ws.HTTPUpgrader{Protocol: func(p string) bool { return slices.Contains(protocols, p) }}
		conn, rw, _, err := up.Upgrade(r, w)
		if err != nil {
			return
		}
		b.echo(conn, rw.Reader)
	})
}

// rawBackend answers the handshake by hand and, in the same write, sends
// after: frames that reach the proxy along with the handshake response.
func rawBackend(t *testing.T, after []byte) *testBackend {
	return newBackend(t, httptest.NewServer, func(b *testBackend, w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"
		conn.Write(append([]byte(resp), after...))
		b.echo(conn, rw.Reader)
	})
}

// echo serves a connection until its stream ends.
func (b *testBackend) echo(conn net.Conn, br *bufio.Reader) {
	defer conn.Close()
	var status ws.StatusCode
	defer func() { b.ends <- status }()
	for {
		h, err := ws.ReadHeader(br)
		if err != nil {
			return
		}
		payload := make([]byte, h.Length)
		if _, err := io.ReadFull(br, payload); err != nil {
			return
		}
		ws.Cipher(payload, h.Mask, 0)
		switch h.OpCode {
		case ws.OpPong:
			continue
		case ws.OpPing:
			h.OpCode = ws.OpPong
		case ws.OpClose:
			if status != 0 {
				continue // answered already
			}
			status, _ = ws.ParseCloseFrameData(payload)
		}
		ws.WriteFrame(conn, ws.Frame{Header: ws.Header{Fin: h.Fin, OpCode: h.OpCode, Length: h.Length}, Payload: payload})
	}
}

// serveProxy starts a WebSocketProxy with opts behind a test server; both
// are closed at cleanup.
func serveProxy(t *testing.T, opts WebSocketProxyOptions) (*WebSocketProxy, *front) {
	t.Helper()
	p, err := NewWebSocketProxy(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := newFront(t, p)
	t.Cleanup(func() {
		srv.Close()
		_ = p.Shutdown(context.Background())
	})
	return p, srv
}

// dialProxy opens a WebSocket connection to srv with a hand-written
// handshake offering protocols (one header line each), with early written
// right after it in the same write. It returns the client and the
// subprotocol the handshake chose.
func dialProxy(t *testing.T, srv *front, protocols []string, early []byte) (*rawClient, string) {
	t.Helper()
	addr := srv.Listener.Addr().String()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req := fmt.Sprintf("GET / HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", addr)
	for _, p := range protocols {
		req += "Sec-WebSocket-Protocol: " + p + "\r\n"
	}
	conn.Write(append([]byte(req+"\r\n"), early...))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake status %d, want 101", resp.StatusCode)
	}
	return &rawClient{t: t, conn: conn, br: br}, resp.Header.Get("Sec-WebSocket-Protocol")
}

// rawClient is a WebSocket client at the frame level, to send what a
// client library would not.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
}

func (c *rawClient) write(op ws.OpCode, fin bool, payload string) {
	c.t.Helper()
	if _, err := c.conn.Write(clientFrame(op, fin, payload)); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next frame, unmasked.
func (c *rawClient) read() (ws.Header, []byte) {
	c.t.Helper()
	f, ok := readFrame(c.br)
	if !ok {
		c.t.Fatal("no frame: the connection ended")
	}
	return f.Header, f.Payload
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

// expectEnd checks that the proxy closed the client's connection.
func (c *rawClient) expectEnd() {
	c.t.Helper()
	if h, err := ws.ReadHeader(c.br); err == nil {
		c.t.Fatalf("got a %v frame, want the connection closed", h.OpCode)
	}
}

// frameBytes is f on the wire.
func frameBytes(f ws.Frame) []byte {
	var b bytes.Buffer
	ws.WriteFrame(&b, f)
	return b.Bytes()
}

// pattern is n bytes that are not periodic with the mask's period.
func pattern(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return string(b)
}

func TestNewWebSocketProxyErrors(t *testing.T) {
	tests := []struct {
		name string
		opts WebSocketProxyOptions
		ok   bool
	}{
		{"ws", WebSocketProxyOptions{URL: "ws://127.0.0.1:8080/ws"}, true},
		{"wss", WebSocketProxyOptions{URL: "wss://backend.example.com/"}, true},
		{"no URL", WebSocketProxyOptions{}, false},
		{"http scheme", WebSocketProxyOptions{URL: "http://127.0.0.1:8080/"}, false},
		{"no host", WebSocketProxyOptions{URL: "ws:///path"}, false},
		{"relative", WebSocketProxyOptions{URL: "backend/ws"}, false},
		{"negative frame size", WebSocketProxyOptions{URL: "ws://h/", MaxFrameSize: -1}, false},
		{"negative dial timeout", WebSocketProxyOptions{URL: "ws://h/", DialTimeout: -time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewWebSocketProxy(tt.opts); (err == nil) != tt.ok {
				t.Fatalf("NewProxy error %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestWebSocketProxySubprotocols(t *testing.T) { onEngines(t, testWebSocketProxySubprotocols) }

func testWebSocketProxySubprotocols(t *testing.T) {
	tests := []struct {
		name      string
		filter    []string // WebSocketProxyOptions.Subprotocols
		backend   []string // what the backend accepts
		offered   []string // the client's header lines
		chosen    string
		toBackend string // the offer the backend saw
	}{
		{"backend's choice", nil, []string{"wamp.2.json"}, []string{"wamp.2.cbor, wamp.2.json"}, "wamp.2.json", "wamp.2.cbor, wamp.2.json"},
		{"over header lines", nil, []string{"wamp.2.json"}, []string{"wamp.2.cbor", "wamp.2.json"}, "wamp.2.json", "wamp.2.cbor, wamp.2.json"},
		{"filtered", []string{"wamp.2.json"}, []string{"wamp.2.cbor", "wamp.2.json"}, []string{"wamp.2.cbor, wamp.2.json"}, "wamp.2.json", "wamp.2.json"},
		{"none in common", nil, []string{"wamp.2.json"}, []string{"wamp.2.cbor"}, "", "wamp.2.cbor"},
		{"none offered", nil, []string{"wamp.2.json"}, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := echoBackend(t, httptest.NewServer, tt.backend...)
			_, srv := serveProxy(t, WebSocketProxyOptions{URL: b.url, Subprotocols: tt.filter})
			c, chosen := dialProxy(t, srv, tt.offered, nil)
			if chosen != tt.chosen {
				t.Errorf("client's handshake chose %q, want %q", chosen, tt.chosen)
			}
			if hs := <-b.handshakes; hs.offered != tt.toBackend {
				t.Errorf("backend was offered %q, want %q", hs.offered, tt.toBackend)
			}
			c.conn.Close()
			if got := <-b.ends; got != ws.StatusGoingAway {
				t.Errorf("backend got close status %d when the client went away, want 1001", got)
			}
		})
	}
}

type testFrame struct {
	op      ws.OpCode
	fin     bool
	payload string
}

func TestWebSocketProxyRelaysFrames(t *testing.T) { onEngines(t, testWebSocketProxyRelaysFrames) }

func testWebSocketProxyRelaysFrames(t *testing.T) {
	big := pattern(70000) // a 64-bit length, many chunks
	tests := []struct {
		name       string
		send, want []testFrame
	}{
		{"text", []testFrame{{ws.OpText, true, "hello"}}, nil},
		{"binary", []testFrame{{ws.OpBinary, true, "\x00\xff\x80"}}, nil},
		{"empty", []testFrame{{ws.OpText, true, ""}}, nil},
		{"16-bit length", []testFrame{{ws.OpBinary, true, pattern(300)}}, nil},
		{"64-bit length", []testFrame{{ws.OpBinary, true, big}}, nil},
		{"fragmented", []testFrame{{ws.OpText, false, "frag"}, {ws.OpContinuation, false, "men"}, {ws.OpContinuation, true, "ted"}}, nil},
		{"ping", []testFrame{{ws.OpPing, true, "hi"}}, []testFrame{{ws.OpPong, true, "hi"}}},
		{"ping between fragments",
			[]testFrame{{ws.OpBinary, false, "a"}, {ws.OpPing, true, ""}, {ws.OpContinuation, true, "b"}},
			[]testFrame{{ws.OpBinary, false, "a"}, {ws.OpPong, true, ""}, {ws.OpContinuation, true, "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := echoBackend(t, httptest.NewServer, "wamp.2.json")
			_, srv := serveProxy(t, WebSocketProxyOptions{URL: b.url})
			c, _ := dialProxy(t, srv, []string{"wamp.2.json"}, nil)
			for _, f := range tt.send {
				c.write(f.op, f.fin, f.payload)
			}
			want := tt.want
			if want == nil {
				want = tt.send
			}
			for i, w := range want {
				h, payload := c.read()
				if h.OpCode != w.op || h.Fin != w.fin || h.Masked || h.Rsv != 0 || string(payload) != w.payload {
					t.Fatalf("frame %d: %+v with %d bytes, want %v fin=%v with %d bytes", i, h, len(payload), w.op, w.fin, len(w.payload))
				}
			}
		})
	}
}

// TestWebSocketProxyEarlyFrames: frames that arrive with a handshake, read ahead by
// net/http on the client's side and by gobwas on the backend's, are
// relayed first.
func TestWebSocketProxyEarlyFrames(t *testing.T) { onEngines(t, testWebSocketProxyEarlyFrames) }

func testWebSocketProxyEarlyFrames(t *testing.T) {
	b := rawBackend(t, frameBytes(ws.NewTextFrame([]byte("hello"))))
	_, srv := serveProxy(t, WebSocketProxyOptions{URL: b.url})
	c, _ := dialProxy(t, srv, nil, clientFrame(ws.OpText, true, "early"))
	for _, want := range []string{"hello", "early"} { // the backend's, then the echo of the client's
		if h, payload := c.read(); h.OpCode != ws.OpText || string(payload) != want {
			t.Fatalf("got %v %q, want text %q", h.OpCode, payload, want)
		}
	}
}

func TestWebSocketProxyTLSBackend(t *testing.T) { onEngines(t, testWebSocketProxyTLSBackend) }

func testWebSocketProxyTLSBackend(t *testing.T) {
	b := echoBackend(t, httptest.NewTLSServer, "wamp.2.json")
	roots := x509.NewCertPool()
	roots.AddCert(b.srv.Certificate())
	_, srv := serveProxy(t, WebSocketProxyOptions{URL: b.url, TLSConfig: &tls.Config{RootCAs: roots}})
	c, chosen := dialProxy(t, srv, []string{"wamp.2.json"}, nil)
	c.write(ws.OpText, true, "over TLS")
	if h, payload := c.read(); chosen != "wamp.2.json" || h.OpCode != ws.OpText || string(payload) != "over TLS" {
		t.Fatalf("subprotocol %q, echo %v %q", chosen, h.OpCode, payload)
	}
}

// TestWebSocketProxyNetDial: the backend is reached through NetDial while the URL
// still names the handshake's host and path.
func TestWebSocketProxyNetDial(t *testing.T) { onEngines(t, testWebSocketProxyNetDial) }

func testWebSocketProxyNetDial(t *testing.T) {
	b := echoBackend(t, httptest.NewServer, "wamp.2.json")
	netDial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, b.srv.Listener.Addr().String())
	}
	_, srv := serveProxy(t, WebSocketProxyOptions{URL: "ws://backend.test/ws/path", NetDial: netDial})
	c, _ := dialProxy(t, srv, nil, nil)
	if hs := <-b.handshakes; hs.host != "backend.test" || hs.path != "/ws/path" {
		t.Fatalf("backend handshake for %s%s, want backend.test/ws/path", hs.host, hs.path)
	}
	c.write(ws.OpBinary, true, "x")
	if h, payload := c.read(); h.OpCode != ws.OpBinary || string(payload) != "x" {
		t.Fatalf("echo %v %q", h.OpCode, payload)
	}
}

// TestWebSocketProxyCloseHandshake: a close frame from either side reaches the
// other, and the answer comes back; then both connections end.
func TestWebSocketProxyCloseHandshake(t *testing.T) { onEngines(t, testWebSocketProxyCloseHandshake) }

func testWebSocketProxyCloseHandshake(t *testing.T) {
	tests := []struct {
		name   string
		after  []byte // the backend's frames after its handshake
		status ws.StatusCode
	}{
		{"client closes", nil, 4000},
		{"backend closes", frameBytes(ws.NewCloseFrame(ws.NewCloseFrameBody(4001, "bye"))), 4001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := rawBackend(t, tt.after)
			_, srv := serveProxy(t, WebSocketProxyOptions{URL: b.url})
			c, _ := dialProxy(t, srv, nil, nil)
			if tt.after == nil {
				c.write(ws.OpClose, true, string(ws.NewCloseFrameBody(tt.status, "bye")))
			}
			h, payload := c.read()
			if code, reason := ws.ParseCloseFrameData(payload); h.OpCode != ws.OpClose || code != tt.status || reason != "bye" {
				t.Fatalf("client got %v %d %q, want close %d bye", h.OpCode, code, reason, tt.status)
			}
			if tt.after != nil {
				c.write(ws.OpClose, true, string(payload)) // the client's answer
			}
			c.expectEnd()
			if got := <-b.ends; got != tt.status {
				t.Fatalf("backend got close status %d, want %d", got, tt.status)
			}
		})
	}
}

// TestWebSocketProxyCloseTimeout: a close frame that the other side does not
// answer ends the relay after relayCloseTimeout.
func TestWebSocketProxyCloseTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, client, backend := pipeRelay(t, WebSocketProxyOptions{})
		done := make(chan struct{})
		go func() { r.run(); close(done) }()
		start := time.Now()
		go client.Write(clientFrame(ws.OpClose, true, string(ws.NewCloseFrameBody(4000, ""))))
		br := bufio.NewReader(backend)
		if h, err := ws.ReadHeader(br); err != nil || h.OpCode != ws.OpClose {
			t.Fatalf("backend got %+v, %v; want the close frame", h, err)
		}
		io.Copy(io.Discard, br) // never answers; ends when the relay closes
		<-done
		if elapsed := time.Since(start); elapsed != relayCloseTimeout {
			t.Fatalf("relay ended after %v, want %v", elapsed, relayCloseTimeout)
		}
		if _, err := client.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("client read %v, want EOF", err)
		}
	})
}

// TestWebSocketProxyStalledPeer: a client that stops reading ends its relay once a
// write to it has made no progress for relayStallTimeout (the frame is cut
// short, so it gets no close frame), instead of holding the relay forever.
func TestWebSocketProxyStalledPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _, backend := pipeRelay(t, WebSocketProxyOptions{}) // the client end is never read
		done := make(chan struct{})
		go func() { r.run(); close(done) }()
		start := time.Now()
		go backend.Write(frameBytes(ws.NewTextFrame([]byte("for nobody"))))
		go io.Copy(io.Discard, backend)
		<-done
		if elapsed, want := time.Since(start), relayStallTimeout; elapsed != want {
			t.Fatalf("relay ended after %v, want %v", elapsed, want)
		}
	})
}

// TestWebSocketProxyShutdownBounded: Shutdown returns when its context ends, with the
// relays whose close frames cannot be written ended at once.
func TestWebSocketProxyShutdownBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _, backend := pipeRelay(t, WebSocketProxyOptions{}) // the client end is never read
		go io.Copy(io.Discard, backend)
		if !r.proxy.start(r) {
			t.Fatal("relay not started")
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		if err := r.proxy.Shutdown(ctx); err != context.DeadlineExceeded {
			t.Fatalf("Shutdown: %v, want %v", err, context.DeadlineExceeded)
		}
		if elapsed := time.Since(start); elapsed != time.Second {
			t.Fatalf("Shutdown returned after %v, want 1s", elapsed)
		}
	})
}

// TestWebSocketProxyConnectionDropped: when one side's connection ends without a
// close frame, the other side gets 1001 and loses its connection.
func TestWebSocketProxyConnectionDropped(t *testing.T) {
	for _, dropBackend := range []bool{false, true} {
		t.Run(fmt.Sprintf("backend=%v", dropBackend), func(t *testing.T) {
			r, client, backend := pipeRelay(t, WebSocketProxyOptions{})
			done := make(chan struct{})
			go func() { r.run(); close(done) }()
			dropped, other := client, backend
			if dropBackend {
				dropped, other = backend, client
			}
			dropped.Close()
			br := bufio.NewReader(other)
			f, ok := readFrame(br)
			if code, _ := ws.ParseCloseFrameData(f.Payload); !ok || f.Header.OpCode != ws.OpClose || code != ws.StatusGoingAway {
				t.Fatalf("other side got %+v %q, want close 1001", f.Header, f.Payload)
			}
			if wantMasked := !dropBackend; f.Header.Masked != wantMasked { // masked towards the backend
				t.Fatalf("close frame masked=%v, want %v", f.Header.Masked, wantMasked)
			}
			if _, err := br.ReadByte(); err != io.EOF {
				t.Fatalf("other side read %v after the close frame, want EOF", err)
			}
			<-done
		})
	}
}

// pipeRelay makes a relay between the ends of two net.Pipes and returns the
// client's and the backend's other ends, closed at cleanup.
func pipeRelay(t *testing.T, opts WebSocketProxyOptions) (r *relay, client, backend net.Conn) {
	opts.URL = "ws://backend.test/"
	p, err := NewWebSocketProxy(opts)
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := net.Pipe()
	b1, b2 := net.Pipe()
	t.Cleanup(func() { c2.Close(); b2.Close() })
	r = &relay{proxy: p, client: newSide("client", c1, nil, true), backend: newSide("backend", b1, nil, false), log: p.log}
	return r, c2, b2
}

func TestWebSocketProxyRefusals(t *testing.T) { onEngines(t, testWebSocketProxyRefusals) }

func testWebSocketProxyRefusals(t *testing.T) {
	unreachable := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		return "ws://" + l.Addr().String() + "/"
	}
	refusing := func(t *testing.T) string {
		srv := httptest.NewServer(http.NotFoundHandler())
		t.Cleanup(srv.Close)
		return "ws" + strings.TrimPrefix(srv.URL, "http")
	}
	const neverDialed = "ws://127.0.0.1:1/"
	tests := []struct {
		name    string
		opts    func(t *testing.T) WebSocketProxyOptions
		upgrade bool
		origin  string
		status  int
		text    string
	}{
		{"not an upgrade", func(*testing.T) WebSocketProxyOptions { return WebSocketProxyOptions{URL: neverDialed} },
			false, "", http.StatusUpgradeRequired, "upgrade required"},
		{"no Sec-WebSocket-Key", func(*testing.T) WebSocketProxyOptions { return WebSocketProxyOptions{URL: neverDialed} },
			true, noKey, http.StatusBadRequest, "websocket: bad upgrade request"},
		{"origin not allowed", func(*testing.T) WebSocketProxyOptions {
			return WebSocketProxyOptions{URL: neverDialed, AllowedOrigins: []string{"https://*.example.com"}}
		}, true, "https://example.com.evil.test", http.StatusForbidden, "websocket: origin not allowed"},
		{"backend unreachable", func(t *testing.T) WebSocketProxyOptions { return WebSocketProxyOptions{URL: unreachable(t)} },
			true, "", http.StatusServiceUnavailable, "websocket: reverse proxy backend not reachable"},
		{"backend refuses the handshake", func(t *testing.T) WebSocketProxyOptions { return WebSocketProxyOptions{URL: refusing(t)} },
			true, "", http.StatusServiceUnavailable, "websocket: reverse proxy backend not reachable"},
		{"backend silent", func(t *testing.T) WebSocketProxyOptions {
			return WebSocketProxyOptions{URL: neverDialed, DialTimeout: 50 * time.Millisecond, NetDial: silentDial(t)}
		}, true, "", http.StatusServiceUnavailable, "websocket: reverse proxy backend not reachable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, srv := serveProxy(t, tt.opts(t))
			resp, text := upgradeRequest(t, srv, tt.upgrade, tt.origin)
			if resp.StatusCode != tt.status || !strings.Contains(text, tt.text) {
				t.Fatalf("status %d %q, want %d %q", resp.StatusCode, text, tt.status, tt.text)
			}
			if tt.status == http.StatusUpgradeRequired && resp.Header.Get("Upgrade") != "websocket" {
				t.Fatalf("426 without Upgrade: websocket")
			}
		})
	}
}

// TestWebSocketProxyUnreachableLogLimit: every client refused while the backend is
// down gets 503, but the warning is logged once per interval, the next one
// saying how many were held back.
func TestWebSocketProxyUnreachableLogLimit(t *testing.T) {
	onEngines(t, testWebSocketProxyUnreachableLogLimit)
}

func testWebSocketProxyUnreachableLogLimit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	var logs syncBuffer
	_, srv := serveProxy(t, WebSocketProxyOptions{URL: "ws://" + l.Addr().String() + "/",
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for range 3 {
		if resp, _ := upgradeRequest(t, srv, true, ""); resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", resp.StatusCode)
		}
	}
	if n := strings.Count(logs.String(), "backend not reachable"); n != 1 {
		t.Fatalf("%d warnings for 3 refusals within %v, want 1:\n%s", n, unreachableLogEvery, logs.String())
	}
	if !strings.Contains(logs.String(), "refused_since_last_log=0") {
		t.Errorf("the first warning does not count the refusals held back:\n%s", logs.String())
	}
}

// silentDial connects to a peer that never answers the handshake.
func silentDial(t *testing.T) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(context.Context, string, string) (net.Conn, error) {
		c, other := net.Pipe()
		t.Cleanup(func() { other.Close() })
		return c, nil
	}
}

// upgradeRequest sends srv a request, with the upgrade headers if upgrade,
// and returns a refusal and its text. origin is the Origin header (none if
// ""), or noKey to leave Sec-WebSocket-Key out instead.
const noKey = "(no key)"

func upgradeRequest(t *testing.T, srv *front, upgrade bool, origin string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	if upgrade {
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	}
	switch origin {
	case noKey:
		req.Header.Del("Sec-WebSocket-Key")
	case "":
	default:
		req.Header.Set("Origin", origin)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp, string(text)
}

// TestWebSocketProxyProtocolErrors: a side that breaks the protocol gets a close
// frame with the reason's status, the other side 1001.
func TestWebSocketProxyProtocolErrors(t *testing.T) { onEngines(t, testWebSocketProxyProtocolErrors) }

func testWebSocketProxyProtocolErrors(t *testing.T) {
	unmasked := frameBytes(ws.NewTextFrame([]byte("x")))
	reserved := ws.MaskFrame(ws.NewTextFrame([]byte("x")))
	reserved.Header.Rsv = 4
	tests := []struct {
		name                string
		maxFrame            int
		client, backend     []byte // what each side sends
		toClient, toBackend ws.StatusCode
	}{
		{"client frame not masked", 0, unmasked, nil, ws.StatusProtocolError, ws.StatusGoingAway},
		{"reserved bits", 0, frameBytes(reserved), nil, ws.StatusProtocolError, ws.StatusGoingAway},
		{"long ping", 0, clientFrame(ws.OpPing, true, pattern(126)), nil, ws.StatusProtocolError, ws.StatusGoingAway},
		{"fragmented ping", 0, clientFrame(ws.OpPing, false, "p"), nil, ws.StatusProtocolError, ws.StatusGoingAway},
		{"reserved opcode", 0, clientFrame(ws.OpCode(3), true, "x"), nil, ws.StatusProtocolError, ws.StatusGoingAway},
		{"client frame too big", 16, clientFrame(ws.OpBinary, true, pattern(17)), nil, ws.StatusMessageTooBig, ws.StatusGoingAway},
		{"backend frame masked", 0, nil, clientFrame(ws.OpText, true, "x"), ws.StatusGoingAway, ws.StatusProtocolError},
		{"backend frame too big", 16, nil, frameBytes(ws.NewBinaryFrame([]byte(pattern(17)))), ws.StatusGoingAway, ws.StatusMessageTooBig},
		{"backend length's top bit", 0, nil, []byte{0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0}, ws.StatusGoingAway, ws.StatusProtocolError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := rawBackend(t, tt.backend)
			_, srv := serveProxy(t, WebSocketProxyOptions{URL: b.url, MaxFrameSize: tt.maxFrame})
			c, _ := dialProxy(t, srv, nil, nil)
			c.conn.Write(tt.client)
			if got := c.readClose(); got != tt.toClient {
				t.Fatalf("client got close status %d, want %d", got, tt.toClient)
			}
			c.expectEnd()
			if got := <-b.ends; got != tt.toBackend {
				t.Fatalf("backend got close status %d, want %d", got, tt.toBackend)
			}
		})
	}
}

// TestWebSocketProxyShutdownCloses: Shutdown ends live relays with 1001 to both
// sides, and refuses later upgrades with 503.
func TestWebSocketProxyShutdownCloses(t *testing.T) { onEngines(t, testWebSocketProxyShutdownCloses) }

func testWebSocketProxyShutdownCloses(t *testing.T) {
	b := echoBackend(t, httptest.NewServer)
	p, srv := serveProxy(t, WebSocketProxyOptions{URL: b.url})
	var clients []*rawClient
	for range 2 {
		c, _ := dialProxy(t, srv, nil, nil)
		c.write(ws.OpText, true, "up")
		c.read() // the relay runs
		clients = append(clients, c)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range clients {
		if got := c.readClose(); got != ws.StatusGoingAway {
			t.Fatalf("client got close status %d, want 1001", got)
		}
		c.expectEnd()
		if got := <-b.ends; got != ws.StatusGoingAway {
			t.Fatalf("backend got close status %d, want 1001", got)
		}
	}
	if resp, text := upgradeRequest(t, srv, true, ""); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("upgrade after Shutdown: %d %q, want 503", resp.StatusCode, text)
	}
}
