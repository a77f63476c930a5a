package node

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// universalDoc is a node with one universal transport on 127.0.0.1:
// RawSocket, WebSocket at /ws (JSON only) and /ws2, and web paths (a
// static directory at the root, a JSON value at /info, a caller at
// /call). endpoint are extra endpoint members; wsOptions the "options"
// of /ws2.
func universalDoc(endpoint, wsOptions, webOptions string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "universal",
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0` + endpoint + `},
			"rawsocket": {"serializers": ["json", "msgpack"]},
			"websocket": {"ws": {"type": "websocket", "serializers": ["json"]}, "ws2": {"options": {` + wsOptions + `}}},
			"web": {"paths": {"/": {"type": "static", "directory": "web"}, "info": {"type": "json", "value": {"hello": "world"}},
				"call": {"type": "caller", "realm": "realm1", "role": "anonymous"}}, "options": {` + webOptions + `}}}]}]}`
}

// webDir makes dir/web/hello.txt.
func webDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "web", "hello.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUniversal: RawSocket, WebSocket on two paths and HTTP clients on one
// port.
func TestUniversal(t *testing.T) {
	dir := t.TempDir()
	webDir(t, dir)
	n := start(t, parse(t, universalDoc("", "", ""), nil), dir)
	addr := address(t, n, web0)

	raw := mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"})
	echo(t, raw, "com.example.echo")
	callEcho(t, mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2.json"}}, client.Config{Realm: "realm1"}), "com.example.echo")
	callEcho(t, mustWS(t, "ws://"+addr+"/ws2/any/thing", websocket.DialOptions{}, client.Config{Realm: "realm1"}), "com.example.echo")

	// /ws serves JSON only: its own serializers, not /ws2's.
	if p, err := websocket.Dial(testCtx(t), "ws://"+addr+"/ws", websocket.DialOptions{Subprotocols: []string{"wamp.2.msgpack"}}); err == nil {
		p.Close()
		t.Error("msgpack accepted on /ws, which serves json only")
	}

	hc := &http.Client{Timeout: testTimeout}
	for _, tt := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/hello.txt", "", 200, "hello"},
		{"GET", "/info", "", 200, `"hello":"world"`},
		{"POST", "/call", `{"procedure": "com.example.echo", "args": ["hi"]}`, 200, `"args":["hi"]`},
		{"GET", "/ws", "", http.StatusUpgradeRequired, "upgrade required"}, // a WebSocket path whatever the headers
		{"GET", "/ws2/x", "", http.StatusUpgradeRequired, "upgrade required"},
		{"GET", "/nope", "", 404, ""},
	} {
		req, _ := http.NewRequestWithContext(testCtx(t), tt.method, "http://"+addr+tt.path, strings.NewReader(tt.body))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s %s: %d %q, want %d with %q", tt.method, tt.path, resp.StatusCode, b, tt.status, tt.want)
		}
	}
}

// TestUniversalMQTTRefused: a client whose first byte is MQTT's CONNECT is
// closed when the transport has no "mqtt".
func TestUniversalMQTTRefused(t *testing.T) {
	n, logs := startLogged(t, universalDoc("", "", ""))
	c, err := net.Dial("tcp", address(t, n, web0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte{0x10, 0x0c, 0x00, 0x04, 'M', 'Q', 'T', 'T'}); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(testTimeout))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read: %v, want the connection closed", err)
	}
	if !strings.Contains(logs.String(), "protocol=MQTT") {
		t.Errorf("no log of the MQTT client:\n%s", logs)
	}
}

// TestUniversalSilentClient: a client that sends no first byte is closed
// after the transport's handshake timeout.
func TestUniversalSilentClient(t *testing.T) {
	n, _ := startLogged(t, universalDoc("", `"open_handshake_timeout": 100`, ""))
	c, err := net.Dial("tcp", address(t, n, web0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(testTimeout)) // bounds the test only: the server closes first
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read: %v, want the connection closed by the server", err)
	}
}

// TestUniversalTLS: the TLS handshake comes before the first byte; every
// protocol works over it, and HTTP requests know they came over TLS.
func TestUniversalTLS(t *testing.T) {
	dir := t.TempDir()
	pool := writeCert(t, dir)
	webDir(t, dir)
	n := start(t, parse(t, universalDoc(`, "tls": {"key": "server.key", "certificate": "server.crt"}`, "", `"hsts": true`), nil), dir)
	addr := address(t, n, web0)
	tc := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}

	p, err := rawsocket.Dial(testCtx(t), "tcp", addr, rawsocket.DialOptions{Serializer: "json", TLSConfig: tc})
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Join(testCtx(t), p, client.Config{Realm: "realm1"})
	raw, err := closeLater(t, s, err)
	if err != nil {
		t.Fatal(err)
	}
	echo(t, raw, "com.example.echo")
	callEcho(t, mustWS(t, "wss://"+addr+"/ws", websocket.DialOptions{TLSConfig: tc}, client.Config{Realm: "realm1"}), "com.example.echo")

	hc := &http.Client{Timeout: testTimeout, Transport: &http.Transport{TLSClientConfig: tc}}
	resp, err := hc.Get("https://" + addr + "/hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hello" || !strings.HasPrefix(resp.Header.Get("Strict-Transport-Security"), "max-age=") {
		t.Errorf("got %q, HSTS %q", b, resp.Header.Get("Strict-Transport-Security"))
	}
}

// TestUniversalMaxConnections: the endpoint's max_connections caps the
// universal listener.
func TestUniversalMaxConnections(t *testing.T) {
	n, _ := startLogged(t, universalDoc(`, "max_connections": 1`, "", ""))
	addr := address(t, n, web0)
	mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"})
	if _, err := websocket.Dial(testCtx(t), "ws://"+addr+"/ws", websocket.DialOptions{}); err == nil {
		t.Fatal("a second connection was served past max_connections 1")
	}
}
