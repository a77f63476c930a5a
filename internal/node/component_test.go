package node

import (
	"path/filepath"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
)

func TestComponentDialer(t *testing.T) {
	n, _, raw := startCrossbar(t)
	_, wsPort, _ := splitHostPort(t, address(t, n, web0))
	_, rawPort, _ := splitHostPort(t, raw)
	cra := client.Config{Realm: "realm1", AuthID: "worker1", Auth: []client.Authenticator{client.WampCRA("s3cret")}}
	tests := []struct {
		name string
		doc  string
		cfg  client.Config
	}{
		// The endpoint wins over the URL's host.
		{"websocket", `{"type": "websocket", "endpoint": {"type": "tcp", "host": "127.0.0.1", "port": ` + wsPort + `},
			"url": "ws://example.com/ws", "serializers": ["json"]}`, client.Config{Realm: "realm1"}},
		{"rawsocket", `{"type": "rawsocket", "endpoint": {"type": "tcp", "host": "127.0.0.1", "port": ` + rawPort + `},
			"serializer": "msgpack"}`, cra},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := componentTransport(t, tt.doc)
			dial, err := ComponentDialer(ct, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.Connect(testCtx(t), dial, tt.cfg, client.ReconnectOptions{})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer c.Close()
			if _, err := c.Call(testCtx(t), "com.example.public.nothing", nil, nil); wampURIOf(err) != "wamp.error.no_such_procedure" {
				t.Errorf("call: %v, want no_such_procedure", err)
			}
		})
	}
}

// componentTransport decodes a container component's transport.
func componentTransport(t *testing.T, transport string) *config.ComponentTransport {
	t.Helper()
	cfg := parse(t, `{"version": 2, "workers": [{"type": "container", "components": [{"type": "class",
		"classname": "router.adapter.rest.MessageForwarder", "realm": "realm1", "transport": `+transport+`,
		"extra": {"subscriptions": [{"topic": "com.example.t", "url": "http://127.0.0.1:1/x"}]}}]}]}`, nil)
	return cfg.Workers[0].(*config.ContainerWorker).Components[0].Transport
}

func TestLocalDialerIsTrusted(t *testing.T) {
	n, _, _ := startCrossbar(t)
	dial := localDialer(n.routers[0].router.Gate(anonymousAs("")))
	c, err := client.Connect(testCtx(t), dial, client.Config{Realm: "realm1"}, client.ReconnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := c.Session().Details()["authrole"]; r != TrustedRole {
		t.Errorf("authrole = %v, want %s", r, TrustedRole)
	}
	// No role of the config may register outside com.example; trusted may.
	echo(t, c.Session(), "org.other.echo")
	callEcho(t, c.Session(), "org.other.echo")
}

// TestComponentDialerUnixAndTLS: a component connects over WebSocket on a
// Unix socket, and over RawSocket with TLS.
func TestComponentDialerUnixAndTLS(t *testing.T) {
	dir := t.TempDir()
	writeCert(t, dir)
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [
			{"type": "web", "endpoint": {"type": "unix", "path": "web.sock"}, "paths": {"ws": {"type": "websocket"}}},
			{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
				"tls": {"key": "server.key", "certificate": "server.crt"}}}]}]}`, nil)
	n := start(t, cfg, dir)
	_, rawPort, _ := splitHostPort(t, address(t, n, "workers[0].transports[1]"))
	sock := filepath.Join(dir, "web.sock")
	tests := []struct {
		name, doc string
	}{
		{"websocket over unix", `{"type": "websocket", "endpoint": {"type": "unix", "path": "` + sock + `"},
			"url": "ws://localhost/ws", "serializers": ["cbor"]}`},
		{"rawsocket over tls", `{"type": "rawsocket", "endpoint": {"type": "tcp", "host": "127.0.0.1", "port": ` + rawPort + `,
			"tls": {"ca_certificates": ["` + filepath.Join(dir, "server.crt") + `"]}}, "serializer": "json"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dial, err := ComponentDialer(componentTransport(t, tt.doc), dir)
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.Connect(testCtx(t), dial, client.Config{Realm: "realm1"}, client.ReconnectOptions{})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer c.Close()
			if _, err := c.Call(testCtx(t), "com.example.nothing", nil, nil); wampURIOf(err) != "wamp.error.no_such_procedure" {
				t.Errorf("call: %v, want no_such_procedure", err)
			}
		})
	}
}
