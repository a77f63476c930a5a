package node

import (
	"bufio"
	"bytes"
	"compress/flate"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/httphead"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// writeChainCert writes a self-signed certificate (standing for an
// intermediate) to path and returns it.
func writeChainCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "junction test intermediate"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, path, "CERTIFICATE", der)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// TestChainCertificates: the web and RawSocket transports send the chain
// after the certificate.
func TestChainCertificates(t *testing.T) {
	dir := t.TempDir()
	pool := writeCert(t, dir)
	chain := writeChainCert(t, filepath.Join(dir, "chain.crt"))
	tlsKeys := `"tls": {"key": "server.key", "certificate": "server.crt", "chain_certificates": ["chain.crt"]}`
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, `+tlsKeys+`},
			 "paths": {"/": {"type": "nodeinfo"}}},
			{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, `+tlsKeys+`}}]}]}`, nil)
	n := start(t, cfg, dir)
	for _, tr := range []string{web0, "workers[0].transports[1]"} {
		t.Run(tr, func(t *testing.T) {
			c, err := tls.Dial("tcp", address(t, n, tr), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			peer := c.ConnectionState().PeerCertificates
			if len(peer) != 2 || !peer[1].Equal(chain) {
				t.Errorf("server sent %d certificates, want its certificate then the chain", len(peer))
			}
		})
	}
}

// TestHSTSMaxAgeZero: "hsts_max_age": 0 sends max-age=0, not the default.
func TestHSTSMaxAgeZero(t *testing.T) {
	dir := t.TempDir()
	pool := writeCert(t, dir)
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [{"type": "web", "options": {"hsts": true, "hsts_max_age": 0},
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, "tls": {"key": "server.key", "certificate": "server.crt"}},
			"paths": {"/": {"type": "nodeinfo"}}}]}]}`, nil)
	n := start(t, cfg, dir)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get("https://" + address(t, n, web0) + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Strict-Transport-Security"); got != "max-age=0" {
		t.Errorf("Strict-Transport-Security %q, want max-age=0", got)
	}
}

func TestClientTimeouts(t *testing.T) {
	tests := []struct {
		in, idle, header time.Duration
	}{
		{0, 120 * time.Second, 10 * time.Second},
		{config.DefaultClientTimeout, 120 * time.Second, 10 * time.Second},
		{5 * time.Second, 5 * time.Second, 5 * time.Second},
		{time.Hour, time.Hour, 10 * time.Second},
	}
	for _, tt := range tests {
		if idle, header := clientTimeouts(tt.in); idle != tt.idle || header != tt.header {
			t.Errorf("clientTimeouts(%v) = %v, %v; want %v, %v", tt.in, idle, header, tt.idle, tt.header)
		}
	}
}

// TestClientTimeoutClosesIdle: a keep-alive connection idle for
// "client_timeout" is closed by the server.
func TestClientTimeoutClosesIdle(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [{"type": "web", "options": {"client_timeout": 1},
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"/": {"type": "nodeinfo"}}}]}]}`, nil)
	n := start(t, cfg, t.TempDir())
	c, err := net.Dial("tcp", address(t, n, web0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: node\r\nAccept: application/json\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	// The server closes the idle connection (long before testTimeout).
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("read on the idle connection: %v, want EOF", err)
	}
}

// TestAllowNullOrigin: "allow_null_origin" decides about "Origin: null",
// whether allowed_origins is "*" or a list.
func TestAllowNullOrigin(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"any":      {"type": "websocket", "options": {"allow_null_origin": false}},
			"listed":   {"type": "websocket", "options": {"allowed_origins": ["https://example.com"]}},
			"listedno": {"type": "websocket", "options": {"allowed_origins": ["https://example.com"], "allow_null_origin": false}}}}]}]}`, nil)
	addr := address(t, start(t, cfg, t.TempDir()), web0)
	tests := []struct {
		path, origin string
		ok           bool
	}{
		{"any", "null", false},
		{"any", "https://other.example", true},
		{"listed", "null", true},
		{"listed", "https://example.com", true},
		{"listed", "https://other.example", false},
		{"listedno", "null", false},
		{"listedno", "https://example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.origin, func(t *testing.T) {
			opts := websocket.DialOptions{Header: http.Header{"Origin": {tt.origin}}}
			p, err := websocket.Dial(testCtx(t), "ws://"+addr+"/"+tt.path, opts)
			if err == nil {
				p.Close()
			}
			if (err == nil) != tt.ok {
				t.Errorf("dial with Origin %s: %v, want ok %v", tt.origin, err, tt.ok)
			}
		})
	}
}

// TestPermissionCacheLogged: "cache": true is accepted silently by config
// and logged at debug level, with its path, when the node is built.
func TestPermissionCacheLogged(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := zeroPorts(config.Default())
	if _, err := New(cfg, Options{Dir: t.TempDir(), Logger: log}); err != nil {
		t.Fatal(err)
	}
	want := "path=workers[0].realms[0].roles[0].permissions[0].cache"
	if !strings.Contains(buf.String(), "permission cache has no effect") || !strings.Contains(buf.String(), want) {
		t.Errorf("log lacks the permission cache line with %s:\n%s", want, buf.String())
	}
}

// TestRequireWebSocketSubprotocol: with require_websocket_subprotocol
// false, a client that offers no subprotocol is accepted (and speaks JSON);
// by default it is refused. Without the json serializer, false is an error
// at its path.
func TestRequireWebSocketSubprotocol(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"strict":  {"type": "websocket"},
			"lenient": {"type": "websocket", "options": {"require_websocket_subprotocol": false}}}}]}]}`, nil)
	addr := address(t, start(t, cfg, t.TempDir()), web0)
	for path, ok := range map[string]bool{"strict": false, "lenient": true} {
		conn, _, hs, err := ws.Dial(testCtx(t), "ws://"+addr+"/"+path)
		if err == nil {
			conn.Close()
		}
		if (err == nil) != ok {
			t.Errorf("%s: dial without a subprotocol: %v, want ok %v", path, err, ok)
		}
		if err == nil && hs.Protocol != "" {
			t.Errorf("%s: handshake chose %q, want none", path, hs.Protocol)
		}
	}

	bad := parse(t, `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
		"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 0}, "serializers": ["msgpack"],
			"options": {"require_websocket_subprotocol": false}}]}]}`, nil)
	_, err := New(bad, Options{Dir: t.TempDir()})
	want := "workers[0].transports[0].options.require_websocket_subprotocol: false needs the json serializer"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("New: %v, want %q", err, want)
	}
}

// TestWebSocketFrameOptions: a WebSocket path applies max_frame_size,
// auto_fragment_size, auto_ping_size and fail_by_drop.
func TestWebSocketFrameOptions(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "options": {"max_frame_size": 64, "auto_fragment_size": 16,
				"auto_ping_interval": 20, "auto_ping_timeout": 60000, "auto_ping_size": 10, "fail_by_drop": true}}}}]}]}`, nil)
	addr := address(t, start(t, cfg, t.TempDir()), web0)
	conn, br, _ := dialRawWS(t, "ws://"+addr+"/ws")
	send := func(op ws.OpCode, fin bool, payload string) {
		t.Helper()
		if err := ws.WriteFrame(conn, ws.MaskFrame(ws.NewFrame(op, fin, []byte(payload)))); err != nil {
			t.Fatal(err)
		}
	}
	hello := `[1,"realm1",{"roles":{"caller":{}}}]` // 36 bytes: two frames within 64
	send(ws.OpText, false, hello[:20])
	send(ws.OpContinuation, true, hello[20:])
	var welcome []byte
	done, pinged := false, false
	for !done || !pinged { // the WELCOME, then a ping (the client stays silent)
		h, err := ws.ReadHeader(br)
		if err != nil {
			t.Fatalf("reading the WELCOME and a ping: %v", err)
		}
		b := make([]byte, h.Length)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatal(err)
		}
		switch {
		case h.OpCode == ws.OpPing:
			if len(b) != 10 {
				t.Errorf("ping with %d bytes, want 10", len(b))
			}
			pinged = true
		case len(b) > 16:
			t.Fatalf("%v frame of %d bytes, want at most 16", h.OpCode, len(b))
		default:
			welcome = append(welcome, b...)
			done = done || h.Fin
		}
	}
	if !strings.HasPrefix(string(welcome), "[2,") {
		t.Fatalf("message %q, want a WELCOME", welcome)
	}
	send(ws.OpText, true, strings.Repeat(" ", 65)) // one frame over max_frame_size
	for {
		h, err := ws.ReadHeader(br)
		if err != nil {
			break // dropped
		}
		if h.OpCode == ws.OpClose {
			t.Fatal("got a close frame, want the connection dropped (fail_by_drop)")
		}
		io.CopyN(io.Discard, br, h.Length)
	}
}

// TestOpenHandshakeTimeout: a client that does not finish its upgrade
// request's headers within open_handshake_timeout loses the connection,
// on a web transport (the shortest of its WebSocket services) and on a
// websocket transport.
func TestOpenHandshakeTimeout(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
				"ws":   {"type": "websocket", "options": {"open_handshake_timeout": 60000}},
				"fast": {"type": "websocket", "options": {"open_handshake_timeout": 100}}}},
			{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
				"options": {"open_handshake_timeout": 100}}]}]}`, nil)
	n := start(t, cfg, t.TempDir())
	for _, transport := range []string{web0, "workers[0].transports[1]"} {
		t.Run(transport, func(t *testing.T) {
			start := time.Now() // before the server can start its timer
			conn, err := net.Dial("tcp", address(t, n, transport))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, "GET /ws HTTP/1.1\r\nHost: x\r\n"); err != nil { // and no more
				t.Fatal(err)
			}
			conn.SetReadDeadline(time.Now().Add(5 * time.Second)) // the transport's own limit is 10 s
			_, err = io.ReadAll(conn)
			if err != nil {
				t.Fatalf("read: %v, want the connection closed within 5 s", err)
			}
			if d := time.Since(start); d < 100*time.Millisecond {
				t.Errorf("closed after %v, before the 100 ms timeout", d)
			}
		})
	}
}

// TestWebSocketCompression: "compression": {"deflate": ...} offers
// permessage-deflate, each message compressed on its own.
func TestWebSocketCompression(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "options": {"compression": {"deflate": {"request_no_context_takeover": false,
				"request_max_window_bits": 12, "no_context_takeover": false, "max_window_bits": 13, "memory_level": 5}}}}}}]}]}`, nil)
	addr := address(t, start(t, cfg, t.TempDir()), web0)
	offer, _ := httphead.ParseOptions([]byte("permessage-deflate; client_max_window_bits"), nil)
	conn, br, hs := dialRawWS(t, "ws://"+addr+"/ws", offer...)
	var got wsflate.Parameters
	if len(hs.Extensions) != 1 || got.Parse(hs.Extensions[0]) != nil {
		t.Fatalf("accepted extensions %v, want permessage-deflate", hs.Extensions)
	}
	want := wsflate.Parameters{ServerNoContextTakeover: true, ClientNoContextTakeover: true, ClientMaxWindowBits: 12}
	if got != want {
		t.Fatalf("accepted %+v, want %+v", got, want)
	}
	// A compressed HELLO; the WELCOME (over 64 bytes) comes back compressed.
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestSpeed)
	io.WriteString(fw, `[1,"realm1",{"roles":{"caller":{},"callee":{},"publisher":{},"subscriber":{}}}]`)
	fw.Flush()
	f := ws.NewTextFrame(bytes.TrimSuffix(z.Bytes(), []byte{0, 0, 0xff, 0xff}))
	f.Header.Rsv = ws.Rsv(true, false, false)
	if err := ws.WriteFrame(conn, ws.MaskFrame(f)); err != nil {
		t.Fatal(err)
	}
	h, err := ws.ReadHeader(br)
	if err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, h.Length)
	if _, err := io.ReadFull(br, payload); err != nil {
		t.Fatal(err)
	}
	if !h.Rsv1() {
		t.Fatalf("WELCOME of %d bytes not compressed", len(payload))
	}
	welcome, err := io.ReadAll(flate.NewReader(io.MultiReader(bytes.NewReader(payload), bytes.NewReader([]byte{0, 0, 0xff, 0xff}))))
	if err != nil && err != io.ErrUnexpectedEOF {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(welcome), "[2,") {
		t.Fatalf("message %q, want a WELCOME", welcome)
	}
}

// TestCloseHandshakeTimeout: with close_handshake_timeout, after the
// router's close frame (here: the answer to the client's GOODBYE) TCP stays
// open for the client's close frame until the timeout.
func TestCloseHandshakeTimeout(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "options": {"close_handshake_timeout": 300}}}}]}]}`, nil)
	addr := address(t, start(t, cfg, t.TempDir()), web0)
	conn, br, _ := dialRawWS(t, "ws://"+addr+"/ws")
	goodbye := time.Now() // the router's close frame, and its timer, come after this
	for _, msg := range []string{`[1,"realm1",{"roles":{"caller":{}}}]`, `[6,{},"wamp.close.close_realm"]`} {
		if err := ws.WriteFrame(conn, ws.MaskFrame(ws.NewTextFrame([]byte(msg)))); err != nil {
			t.Fatal(err)
		}
	}
	for { // WELCOME, GOODBYE, then the close frame
		h, err := ws.ReadHeader(br)
		if err != nil {
			t.Fatalf("reading up to the close frame: %v", err)
		}
		io.CopyN(io.Discard, br, h.Length)
		if h.OpCode == ws.OpClose {
			break
		}
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("read after the close frame: %v, want EOF", err)
	}
	if d := time.Since(goodbye); d < 300*time.Millisecond {
		t.Errorf("TCP closed %v after GOODBYE was sent, before close_handshake_timeout (300 ms)", d)
	}
}

// dialRawWS opens a frame-level WebSocket connection speaking wamp.2.json,
// offering the extensions exts; it is closed when the test ends.
func dialRawWS(t *testing.T, url string, exts ...httphead.Option) (net.Conn, *bufio.Reader, ws.Handshake) {
	t.Helper()
	conn, br, hs, err := ws.Dialer{Protocols: []string{"wamp.2.json"}, Extensions: exts}.Dial(testCtx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if br == nil {
		br = bufio.NewReader(conn)
	}
	return conn, br, hs
}
