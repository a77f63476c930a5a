package node

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// startCrossbar starts testdata/crossbar/config.json unchanged but for its
// ports; it returns the WebSocket URL and the RawSocket address.
func startCrossbar(t *testing.T) (n *Node, ws, raw string) {
	t.Helper()
	dir := filepath.Join("testdata", "crossbar")
	l := config.Loader{LookupEnv: func(k string) (string, bool) { return "joe-ticket", k == "JOE_TICKET" }}
	cfg, _, err := l.Load(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	n = start(t, zeroPorts(cfg), dir)
	web := address(t, n, web0)
	return n, "ws://" + web + "/ws", address(t, n, "workers[0].transports[1]")
}

func TestCrossbarConfig(t *testing.T) {
	n, ws, raw := startCrossbar(t)
	web := address(t, n, web0)
	resp, err := http.Get("http://" + web + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /index.html: %d", resp.StatusCode)
	}
	backend := mustRaw(t, "tcp", raw, client.Config{Realm: "realm1", AuthID: "worker1", Auth: []client.Authenticator{client.WampCRA("s3cret")}})
	salted := mustRaw(t, "tcp", raw, client.Config{Realm: "realm1", AuthID: "worker2",
		Auth: []client.Authenticator{client.WampCRA("prq7+YkJ1/KlW1X0YczMHw==")}})
	echo(t, backend, "com.example.echo")
	echo(t, backend, "com.example.public.echo")
	callEcho(t, salted, "com.example.echo")

	joe := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "joe", Auth: []client.Authenticator{client.Ticket("joe-ticket")}})
	if r := joe.Details()["authrole"]; r != "frontend" {
		t.Errorf("joe's authrole = %v", r)
	}
	callEcho(t, joe, "com.example.echo")
	anon := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1"})
	callEcho(t, anon, "com.example.public.echo")
	if info := nodeInfo(t, "http://"+web+"/info"); len(info.Realms) != 1 || info.Realms[0].Sessions != 4 {
		t.Errorf("nodeinfo realms = %+v, want realm1 with 4 sessions", info.Realms)
	}
}

func TestAuthRefused(t *testing.T) {
	_, ws, raw := startCrossbar(t)
	tests := []struct {
		name string
		join func() error
		want wamp.URI
	}{
		{"wrong ticket", func() error {
			_, err := joinWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "joe",
				Auth: []client.Authenticator{client.Ticket("wrong")}})
			return err
		}, wamp.ErrAuthenticationDenied},
		{"wrong wampcra secret", func() error {
			_, err := joinRaw(t, "tcp", raw, client.Config{Realm: "realm1", AuthID: "worker1",
				Auth: []client.Authenticator{client.WampCRA("wrong")}})
			return err
		}, wamp.ErrAuthenticationDenied},
		{"anonymous on rawsocket", func() error {
			_, err := joinRaw(t, "tcp", raw, client.Config{Realm: "realm1"})
			return err
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.join()
			if err == nil {
				t.Fatal("join succeeded")
			}
			if tt.want != "" && wampURIOf(err) != tt.want {
				t.Errorf("join: %v, want %s", err, tt.want)
			}
		})
	}
}

func TestPermissions(t *testing.T) {
	_, ws, raw := startCrossbar(t)
	backend := mustRaw(t, "tcp", raw, client.Config{Realm: "realm1", AuthID: "worker1", Auth: []client.Authenticator{client.WampCRA("s3cret")}})
	echo(t, backend, "com.example.private.echo")
	anon := mustWS(t, ws, websocket.DialOptions{}, client.Config{Realm: "realm1"})
	tests := []struct {
		name string
		do   func() error
	}{
		{"call outside the role's prefix", func() error {
			_, err := anon.Call(testCtx(t), "com.example.private.echo", nil, nil)
			return err
		}},
		{"register without register", func() error {
			_, err := anon.Register(testCtx(t), "com.example.public.mine", func(context.Context, *client.Invocation) (*client.Result, error) { return nil, nil }, nil)
			return err
		}},
		{"publish without publish", func() error {
			_, err := anon.Publish(testCtx(t), "com.example.public.news", nil, nil, wamp.Dict{"acknowledge": true})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); wampURIOf(err) != wamp.ErrNotAuthorized {
				t.Errorf("got %v, want %s", err, wamp.ErrNotAuthorized)
			}
		})
	}
}

func TestRoleNotOnRealm(t *testing.T) {
	cfg := parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "frontend", "allow-by-default": true}]}],
		"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`, nil)
	n := start(t, cfg, t.TempDir())
	_, err := joinWS(t, "ws://"+address(t, n, web0)+"/", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	if wampURIOf(err) != wamp.ErrNoSuchRole {
		t.Errorf("anonymous join: %v, want %s", err, wamp.ErrNoSuchRole)
	}
}
