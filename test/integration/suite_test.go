// Package integration runs one suite of WAMP scenarios against the real
// router over every transport and serializer: WebSocket and RawSocket with
// each codec, and the in-memory local pair.
package integration

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

const realm = "realm1"

// The principals every environment's router knows.
var (
	cryptosignKey  = ed25519.NewKeyFromSeed([]byte("0123456789abcdef0123456789abcdef"))
	authenticators = []auth.Authenticator{
		auth.Ticket(map[string]auth.TicketPrincipal{"alice": {Ticket: "alice-ticket", Role: "user"}}),
		auth.WampCRA(map[string]auth.CRAUser{
			"bob":   {Secret: "bob-secret", Role: "user"},
			"carol": {Secret: "carol-pw", Role: "user", Salt: "salt123", Iterations: 100, KeyLen: 32},
		}),
		auth.Cryptosign(map[string]auth.CryptosignPrincipal{
			"dave": {AuthorizedKeys: []string{hex.EncodeToString(cryptosignKey.Public().(ed25519.PublicKey))}, Role: "user"},
		}),
		auth.Anonymous("anonymous"),
	}
)

// env is one router reachable over one transport with one serializer.
type env struct {
	t      *testing.T
	router *router.Router
	dial   func(ctx context.Context) (wamp.Peer, error)
}

// transportCase builds an env's dialer for a router gate.
type transportCase struct {
	name  string
	setup func(t *testing.T, g *router.Gate) func(ctx context.Context) (wamp.Peer, error)
}

func transportCases() []transportCase {
	var cases []transportCase
	for _, sub := range []string{"wamp.2.json", "wamp.2.msgpack", "wamp.2.cbor", "wamp.2.ubjson", "wamp.2.json.batched", "wamp.2.msgpack.batched"} {
		cases = append(cases, transportCase{"websocket/" + strings.TrimPrefix(sub, "wamp.2."), websocketSetup(sub)})
	}
	cases = append(cases, rawsocketCases()...)
	cases = append(cases, transportCase{"local", localSetup})
	return cases
}

func websocketSetup(subprotocol string) func(*testing.T, *router.Gate) func(context.Context) (wamp.Peer, error) {
	return func(t *testing.T, g *router.Gate) func(context.Context) (wamp.Peer, error) {
		h, err := websocket.NewHandler(websocket.Options{Attacher: g})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
		return func(ctx context.Context) (wamp.Peer, error) {
			return websocket.Dial(ctx, url, websocket.DialOptions{Subprotocols: []string{subprotocol}})
		}
	}
}

func localSetup(t *testing.T, g *router.Gate) func(context.Context) (wamp.Peer, error) {
	return func(context.Context) (wamp.Peer, error) {
		a, b := local.Pair(local.Options{})
		go g.Attach(b)
		return a, nil
	}
}

// forEachTransport runs test once per transport and serializer, each with a
// fresh router.
func forEachTransport(t *testing.T, test func(t *testing.T, e *env)) {
	for _, tc := range transportCases() {
		t.Run(tc.name, func(t *testing.T) {
			r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: realm}}})
			if err != nil {
				t.Fatal(err)
			}
			e := &env{t: t, router: r}
			e.dial = tc.setup(t, r.Gate(authenticators...))
			t.Cleanup(r.Close)
			test(t, e)
		})
	}
}

// join connects a new session with cfg (realm defaults to realm1) and
// leaves it at the end of the test.
func (e *env) join(cfg client.Config) *client.Session {
	e.t.Helper()
	if cfg.Realm == "" {
		cfg.Realm = realm
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := e.dial(ctx)
	if err != nil {
		e.t.Fatalf("dial: %v", err)
	}
	s, err := client.Join(ctx, p, cfg)
	if err != nil {
		e.t.Fatalf("join: %v", err)
	}
	e.t.Cleanup(func() { s.Close() })
	return s
}

func (e *env) anon() *client.Session { return e.join(client.Config{}) }

// ctx returns a context bounded so that no scenario can hang.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}
