package docs

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// sensor1Key is the private key whose public key examples/auth.yaml
// authorizes for authid "sensor1".
func sensor1Key() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("junction docs example: sensor1"))
	return ed25519.NewKeyFromSeed(seed[:])
}

// joinWS joins realm1 over WebSocket at url.
func joinWS(t *testing.T, url string, cfg client.Config) (*client.Session, error) {
	t.Helper()
	p, err := websocket.Dial(testCtx(t), url, websocket.DialOptions{})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	s, err := client.Join(testCtx(t), p, cfg)
	return closeLater(t, s, err)
}

// joinRaw joins realm1 over RawSocket (TCP) at addr.
func joinRaw(t *testing.T, addr string, cfg client.Config) (*client.Session, error) {
	t.Helper()
	p, err := rawsocket.Dial(testCtx(t), "tcp", addr, rawsocket.DialOptions{Serializer: "msgpack"})
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	s, err := client.Join(testCtx(t), p, cfg)
	return closeLater(t, s, err)
}

func closeLater(t *testing.T, s *client.Session, err error) (*client.Session, error) {
	if s != nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// must returns a function that returns a joined session, or fails t.
func must(t *testing.T) func(*client.Session, error) *client.Session {
	return func(s *client.Session, err error) *client.Session {
		t.Helper()
		if err != nil {
			t.Fatalf("join: %v", err)
		}
		return s
	}
}

func authRole(s *client.Session) any { return s.Details()[wamp.KeyAuthRole] }

// wampErr returns the WAMP error URI of err, or "".
func wampErr(err error) wamp.URI {
	var re *wamp.RequestError
	if errors.As(err, &re) {
		return re.URI
	}
	return ""
}

// TestAuthExample checks what docs/configuration.md says of
// examples/auth.yaml: who may log in where, with which role, and what each
// role may do.
func TestAuthExample(t *testing.T) {
	r := startExample(t, "auth.yaml")
	ws := "ws://" + r.addr(t, "workers[0].transports[0]") + "/ws"
	raw := r.addr(t, "workers[0].transports[1]")
	realm := wamp.URI("realm1")

	alice := must(t)(joinWS(t, ws, client.Config{Realm: realm, AuthID: "alice", Auth: []client.Authenticator{client.Ticket("alice-ticket")}}))
	sensor := must(t)(joinWS(t, ws, client.Config{Realm: realm, AuthID: "sensor1", Auth: []client.Authenticator{client.Cryptosign(sensor1Key())}}))
	worker1 := must(t)(joinRaw(t, raw, client.Config{Realm: realm, AuthID: "worker1", Auth: []client.Authenticator{client.WampCRA("worker1-secret")}}))
	worker2 := must(t)(joinRaw(t, raw, client.Config{Realm: realm, AuthID: "worker2", Auth: []client.Authenticator{client.WampCRA("worker2-password")}}))
	for s, want := range map[*client.Session]string{alice: "frontend", sensor: "device", worker1: "backend", worker2: "backend"} {
		if got := authRole(s); got != want {
			t.Errorf("authrole %v, want %s", got, want)
		}
	}

	// The backend registers, the frontend calls; the callee learns the caller.
	callers := make(chan any, 1)
	_, err := worker1.Register(testCtx(t), "com.example.api.echo", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		callers <- inv.Details["caller"]
		return &client.Result{Args: inv.Args}, nil
	}, nil)
	if err != nil {
		t.Fatalf("backend register: %v", err)
	}
	if _, err := alice.Call(testCtx(t), "com.example.api.echo", wamp.List{"hi"}, nil); err != nil {
		t.Fatalf("frontend call: %v", err)
	}
	if c := <-callers; c == nil {
		t.Error("caller not disclosed to the backend")
	}
	if _, err := alice.Register(testCtx(t), "com.example.api.other", noHandler, nil); wampErr(err) != wamp.ErrNotAuthorized {
		t.Errorf("frontend register: %v, want %s", err, wamp.ErrNotAuthorized)
	}

	// The device publishes; subscribers learn which session published.
	publishers := make(chan any, 1)
	_, err = worker2.Subscribe(testCtx(t), "com.example.public.readings", func(ev *client.Event) {
		publishers <- ev.Details["publisher"]
	}, nil)
	if err != nil {
		t.Fatalf("backend subscribe: %v", err)
	}
	if _, err := sensor.Publish(testCtx(t), "com.example.public.readings", wamp.List{21.5}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatalf("device publish: %v", err)
	}
	if p, _ := wamp.AsInt(<-publishers); p != int64(sensor.ID()) {
		t.Errorf("publisher %d, want %d", p, sensor.ID())
	}
}

// TestAuthExampleRefusals: no anonymous access, wrong secrets refused,
// WAMP-CRA only on the RawSocket transport.
func TestAuthExampleRefusals(t *testing.T) {
	r := startExample(t, "auth.yaml")
	ws := "ws://" + r.addr(t, "workers[0].transports[0]") + "/ws"
	raw := r.addr(t, "workers[0].transports[1]")
	tests := []struct {
		name string
		join func() (*client.Session, error)
		want wamp.URI
	}{
		{"anonymous on ws", func() (*client.Session, error) { return joinWS(t, ws, client.Config{Realm: "realm1"}) }, wamp.ErrNoAuthMethod},
		{"anonymous on rawsocket", func() (*client.Session, error) { return joinRaw(t, raw, client.Config{Realm: "realm1"}) }, wamp.ErrNoAuthMethod},
		{"wrong ticket", func() (*client.Session, error) {
			return joinWS(t, ws, client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("nope")}})
		}, wamp.ErrAuthenticationDenied},
		{"wampcra on ws", func() (*client.Session, error) {
			return joinWS(t, ws, client.Config{Realm: "realm1", AuthID: "worker1", Auth: []client.Authenticator{client.WampCRA("worker1-secret")}})
		}, wamp.ErrNoAuthMethod},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.join()
			if wampErr(err) != tt.want {
				t.Errorf("join: %v, want %s", err, tt.want)
			}
		})
	}
}

// noHandler is the handler of a registration the router must refuse.
func noHandler(context.Context, *client.Invocation) (*client.Result, error) { return nil, nil }
