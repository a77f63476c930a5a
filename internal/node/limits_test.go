package node

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/connlimit"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// dialFrom opens a TCP connection from the local IP address from (on
// Linux every 127.0.0.0/8 address is loopback) to addr.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.DialContext(testCtx(t), "tcp", addr)
	if err != nil {
		t.Fatalf("dial %s from %s: %v", addr, from, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// served reports whether the transport of kind answers on c: the RawSocket
// handshake's reply, or any HTTP response. A connection closed at once
// (refused) answers nothing.
func served(t *testing.T, kind string, c net.Conn) bool {
	t.Helper()
	probe, want := "\x7f\xf1\x00\x00", "\x7f" // RawSocket: JSON, 16 MiB
	if kind != "rawsocket" {
		probe, want = "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 "
	}
	if _, err := io.WriteString(c, probe); err != nil {
		return false
	}
	got := make([]byte, len(want))
	_, err := io.ReadFull(c, got)
	return err == nil && string(got) == want
}

// hangUp makes the server close c at once, as the server's own close is
// what frees a slot, and waits until it has: a RawSocket handshake with
// the wrong magic octet, or a malformed HTTP request.
func hangUp(t *testing.T, kind string, c net.Conn) {
	t.Helper()
	bad := "\x00\x00\x00\x00"
	if kind != "rawsocket" {
		bad = "BAD\r\n\r\n"
	}
	if _, err := io.WriteString(c, bad); err != nil {
		t.Fatalf("hang up: %v", err)
	}
	io.Copy(io.Discard, bufio.NewReader(c)) // until the server's close
}

// TestMaxConnections is F3's connection flood (docs/SECURITY.md), scaled down: with
// "max_connections": 2, a third connection is closed at once, on every
// listening transport type; once one of the two is closed, a new one is
// served. A WebSocket session (a connection net/http handed over) counts
// as long as it is open.
func TestMaxConnections(t *testing.T) {
	for _, kind := range []string{"rawsocket", "websocket", "web"} {
		t.Run(kind, func(t *testing.T) {
			n, log := startLogged(t, listenerDoc(kind, `"max_connections": 2`))
			addr := address(t, n, web0)
			var held net.Conn
			if kind == "rawsocket" {
				mustRaw(t, "tcp", addr, client.Config{Realm: "realm1"})
			} else {
				url := "ws://" + addr + "/"
				if kind == "web" {
					url += "ws"
				}
				mustWS(t, url, websocket.DialOptions{}, client.Config{Realm: "realm1"})
			}
			held = dialFrom(t, "127.0.0.1", addr)
			if served(t, kind, dialFrom(t, "127.0.0.1", addr)) {
				t.Fatal("a third connection was served with max_connections 2")
			}
			hangUp(t, kind, held)
			if !served(t, kind, dialFrom(t, "127.0.0.1", addr)) {
				t.Fatal("no connection served after one of two closed")
			}
			if s := n.listeners[0].ln.(*connlimit.Listener).Stats(); s.Refused != 1 {
				t.Errorf("Stats %+v, want 1 refused", s)
			}
			want := `msg="connection refused: the listener is at its connection cap" transport=workers[0].transports[0] max_connections=2`
			if !strings.Contains(log.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		})
	}
}

// TestMaxConnectionsPerIP: with "max_connections_per_ip": 1, a second
// connection from 127.0.0.1 is closed at once while 127.0.0.2 is served.
func TestMaxConnectionsPerIP(t *testing.T) {
	for _, kind := range []string{"rawsocket", "websocket"} {
		t.Run(kind, func(t *testing.T) {
			n, log := startLogged(t, listenerDoc(kind, `"max_connections_per_ip": 1`))
			addr := address(t, n, web0)
			first := dialFrom(t, "127.0.0.1", addr)
			if !served(t, kind, first) {
				t.Fatal("first connection from 127.0.0.1 not served")
			}
			if served(t, kind, dialFrom(t, "127.0.0.1", addr)) {
				t.Fatal("second connection from 127.0.0.1 served with max_connections_per_ip 1")
			}
			if !served(t, kind, dialFrom(t, "127.0.0.2", addr)) {
				t.Fatal("connection from 127.0.0.2 not served")
			}
			want := `msg="connection refused: its client IP is at its connection cap" transport=workers[0].transports[0] max_connections_per_ip=1 remote=127.0.0.1:`
			if !strings.Contains(log.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		})
	}
}

// TestDefaultMaxConnections: without max_connections, each listener gets
// connlimit.DefaultMax of the node's listener count, half of it (two
// descriptors a connection) on a listener with a reverseproxy or a
// websocket-reverseproxy path (nested in a "path" service too), and the
// "listening" line says so; an explicit one is kept.
func TestDefaultMaxConnections(t *testing.T) {
	n, log := startLogged(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}},
			{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, "max_connections": 7}},
			{"type": "rawsocket", "endpoint": {"type": "unix", "path": "r.sock"}},
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
				"paths": {"/": {"type": "static", "directory": "."},
					"app": {"type": "path", "paths": {"api": {"type": "reverseproxy", "host": "127.0.0.1", "port": 9}}}}},
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
				"paths": {"ws": {"type": "websocket-reverseproxy", "backend": {"type": "websocket",
					"endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 9}, "url": "ws://127.0.0.1:9/ws"}}}},
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
				"paths": {"ws": {"type": "websocket"}}}]}]}`)
	def, proxied := connlimit.DefaultMax(6, 1), connlimit.DefaultMax(6, 2)
	if proxied >= def && def > 1 {
		t.Fatalf("DefaultMax: %d for a proxy listener, %d for another", proxied, def)
	}
	for i, want := range []int{def, 7, def, proxied, proxied, def} {
		if got := n.listeners[i].limits.Max; got != want {
			t.Errorf("listener %d: max %d, want %d", i, got, want)
		}
	}
	line := fmt.Sprintf(`transport=workers[0].transports[0] type=rawsocket network=tcp4 address=%s max_connections=%d max_connections_per_ip=0`,
		address(t, n, web0), def)
	if !strings.Contains(log.String(), line) {
		t.Errorf("log lacks %q:\n%s", line, log)
	}
}

// TestInternalSessionsUncapped: the node's own sessions (a bridge
// service's and a router component's) do not use a listener: with
// "max_connections": 1 a client is still served.
func TestInternalSessionsUncapped(t *testing.T) {
	n, _ := startLogged(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, "max_connections": 1},
			"paths": {"ws": {"type": "websocket"}, "call": {"type": "caller", "realm": "realm1", "role": "anonymous"}}}],
		"components": [{"type": "class", "classname": "crossbar.bridge.rest.RESTCallee", "realm": "realm1",
			"extra": {"procedure": "com.example.rest", "baseurl": "http://127.0.0.1:9/"}}]}]}`)
	if s := n.listeners[0].ln.(*connlimit.Listener).Stats(); s.Open != 0 {
		t.Fatalf("%d connections open on the listener before any client", s.Open)
	}
	mustWS(t, "ws://"+address(t, n, web0)+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
}

// TestMaxConnectionsTLS: the cap counts TCP connections under TLS: with
// "max_connections": 1 and a wss:// session open, a second client's TLS
// handshake finds its connection closed.
func TestMaxConnectionsTLS(t *testing.T) {
	dir := t.TempDir()
	pool := writeCert(t, dir)
	n := start(t, parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web",
			"endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, "max_connections": 1,
				"tls": {"key": "server.key", "certificate": "server.crt"}},
			"paths": {"ws": {"type": "websocket"}}}]}]}`, nil), dir)
	addr := address(t, n, web0)
	tlsConfig := &tls.Config{RootCAs: pool}
	mustWS(t, "wss://"+addr+"/ws", websocket.DialOptions{TLSConfig: tlsConfig}, client.Config{Realm: "realm1"})
	d := tls.Dialer{Config: tlsConfig}
	c, err := d.DialContext(testCtx(t), "tcp", addr)
	if err == nil {
		c.Close()
		t.Fatal("a second TLS connection completed its handshake with max_connections 1")
	}
}
