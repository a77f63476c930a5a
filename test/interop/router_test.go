package interop_test

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

const (
	realm  = "realm1"
	wsPath = "/ws"
)

// authCase is a way to authenticate, with the identity it must give.
type authCase struct {
	name     string
	method   string
	authid   string // "" lets the router choose
	secret   string
	wantRole string
}

// The principals the test router knows; see newRouter.
var (
	anonymous     = authCase{name: "anonymous", method: "anonymous", wantRole: "anonymous"}
	ticket        = authCase{name: "ticket", method: "ticket", authid: "alice", secret: "secret1", wantRole: "user"}
	wampcra       = authCase{name: "wampcra", method: "wampcra", authid: "bob", secret: "s3cr3t", wantRole: "user"}
	wampcraSalted = authCase{name: "wampcra-salted", method: "wampcra", authid: "carol", secret: "pw", wantRole: "user"}
	authCases     = []authCase{anonymous, ticket, wampcra, wampcraSalted}
	serializers   = []string{"json", "msgpack", "cbor"}
)

// endpoints are the URLs of a test router's transports.
type endpoints struct {
	ws string // ws://127.0.0.1:PORT/ws
	rs string // rs://127.0.0.1:PORT (RawSocket over TCP)
}

// startRouter starts a router with realm1 on every transport, on 127.0.0.1
// port 0. When the test ends the router closes its sessions with GOODBYE,
// then the servers stop (cleanups run last in, first out).
func startRouter(t *testing.T) endpoints {
	t.Helper()
	r, err := router.New(router.Options{
		Realms: []router.RealmOptions{{Name: realm}},
		Logger: testLogger(t),
	})
	if err != nil {
		t.Fatalf("router.New: %v", err)
	}
	gate := newGate(r)
	e := endpoints{ws: serveWebSocket(t, gate), rs: serveRawSocket(t, gate)}
	t.Cleanup(r.Close)
	return e
}

// newGate returns a gate of r that accepts anonymous, ticket and wampcra
// (unsalted and salted) sessions: the principals of authCases.
func newGate(r *router.Router) *router.Gate {
	return r.Gate(
		auth.Anonymous("anonymous"),
		auth.Ticket(map[string]auth.TicketPrincipal{"alice": {Ticket: "secret1", Role: "user"}}),
		auth.WampCRA(map[string]auth.CRAUser{
			"bob":   {Secret: "s3cr3t", Role: "user"},
			"carol": {Secret: "pw", Role: "user", Salt: "salt123", Iterations: 100, KeyLen: 32},
		}),
	)
}

// testLogger logs the router's warnings and errors into the test's output.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// serveWebSocket serves gate's WebSocket transport on 127.0.0.1 and returns
// its ws:// URL. The server is closed when the test ends.
func serveWebSocket(t *testing.T, gate *router.Gate) string {
	t.Helper()
	h, err := websocket.NewHandler(websocket.Options{Attacher: gate, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("websocket.NewHandler: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle(wsPath, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return "ws://" + strings.TrimPrefix(srv.URL, "http://") + wsPath
}

// serveRawSocket serves gate's RawSocket transport on 127.0.0.1 and returns
// its rs:// URL. The server is closed when the test ends.
func serveRawSocket(t *testing.T, gate *router.Gate) string {
	t.Helper()
	srv, err := rawsocket.NewServer(rawsocket.Options{Attacher: gate, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("rawsocket.NewServer: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("rawsocket: close: %v", err)
		}
		if err := <-served; !errors.Is(err, rawsocket.ErrServerClosed) {
			t.Errorf("rawsocket: Serve returned %v, want ErrServerClosed", err)
		}
	})
	return "rs://" + ln.Addr().String()
}
