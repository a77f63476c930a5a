package proxy

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// backend is a router with realm1 (roles anonymous and user) behind a
// gate that takes the given proxy logins: that gate.
func backend(t *testing.T, logins ...auth.Authenticator) *router.Gate {
	t.Helper()
	r, err := router.New(router.Options{Realms: []router.RealmOptions{{Name: "realm1", Roles: []string{"anonymous", "user", "trusted"}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.Shutdown(ctx)
	})
	return r.NewGate(router.GateOptions{Auths: logins})
}

// dialer connects to the attacher a over an in-memory pair; each dial's
// backend peer is sent on peers, if set.
func dialer(a interface{ Attach(wamp.Peer) }, peers chan<- wamp.Peer) func(context.Context) (wamp.Peer, error) {
	return func(context.Context) (wamp.Peer, error) {
		mine, theirs := local.Pair(local.Options{})
		if peers != nil {
			peers <- mine
		}
		go a.Attach(theirs)
		return mine, nil
	}
}

// relayTo is a relay with realm1's roles routed to b, shut down when the
// test ends.
func relayTo(t *testing.T, b *Backend, roles ...string) *Relay {
	t.Helper()
	var routes []Route
	for _, role := range roles {
		routes = append(routes, Route{Realm: "realm1", Role: role, Backends: []*Backend{b}})
	}
	r := New(Options{Routes: routes, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.Shutdown(ctx)
	})
	return r
}

// join joins realm through e with cfg.
func join(t *testing.T, e *Entry, cfg client.Config) (*client.Session, error) {
	t.Helper()
	mine, theirs := local.Pair(local.Options{})
	go e.Attach(theirs)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return client.Join(ctx, mine, cfg)
}

func mustJoin(t *testing.T, e *Entry, cfg client.Config) *client.Session {
	t.Helper()
	s, err := join(t, e, cfg)
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRelayCallsAndEventsAsTheClient(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	logins := map[string]struct {
		method string
		login  auth.Authenticator
	}{
		"anonymous-proxy": {auth.MethodAnonymousProxy, auth.AnonymousProxy()},
		"cryptosign-proxy": {auth.MethodCryptosignProxy, auth.CryptosignProxy(auth.Cryptosign(map[string]auth.CryptosignPrincipal{
			"node1": {AuthorizedKeys: []string{pub}, Role: "anonymous"}}))},
	}
	for name, tt := range logins {
		t.Run(name, func(t *testing.T) {
			r := backend(t, tt.login)
			b := &Backend{Name: "conn1", Dial: dialer(r, nil), Methods: []string{tt.method},
				Key: func() (ed25519.PrivateKey, error) { return key, nil }}
			rl := relayTo(t, b, "user")
			entry := rl.Entry(EntryOptions{Auths: []auth.Authenticator{auth.Ticket(map[string]auth.TicketPrincipal{
				"alice": {Ticket: "secret", Role: "user"}})}})
			cfg := client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret")}}
			callee := mustJoin(t, entry, cfg)
			caller := mustJoin(t, entry, cfg)
			if d := caller.Details(); d["authid"] != "alice" || d["authrole"] != "user" || d["authmethod"] != "ticket" {
				t.Fatalf("WELCOME details = %v, want alice/user by ticket", d)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := callee.Register(ctx, "com.example.whoami", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
				return &client.Result{Args: wamp.List{inv.Details["caller_authid"], inv.Details["caller_authrole"]}}, nil
			}, wamp.Dict{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := caller.Call(ctx, "com.example.whoami", nil, nil, client.WithOptions(wamp.Dict{"disclose_me": true}))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Args) != 2 || res.Args[0] != "alice" || res.Args[1] != "user" {
				t.Fatalf("the backend saw caller %v, want alice/user", res.Args)
			}
			events := make(chan *client.Event, 1)
			if _, err := callee.Subscribe(ctx, "com.example.news", func(ev *client.Event) { events <- ev }, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := caller.Publish(ctx, "com.example.news", wamp.List{"hi"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
				t.Fatal(err)
			}
			if ev := <-events; len(ev.Args) != 1 || ev.Args[0] != "hi" {
				t.Fatalf("event = %+v", ev)
			}
		})
	}
}

// wantAbort checks that joining failed with ABORT uri.
func wantAbort(t *testing.T, err error, uri wamp.URI) {
	t.Helper()
	var re *wamp.RequestError
	if !errors.As(err, &re) || re.URI != uri {
		t.Fatalf("join error = %v, want ABORT %s", err, uri)
	}
}

func TestRelayRefusals(t *testing.T) {
	r := backend(t, auth.AnonymousProxy())
	b := &Backend{Name: "conn1", Dial: dialer(r, nil), Methods: []string{auth.MethodAnonymousProxy}}
	failing := &Backend{Name: "down", Methods: []string{auth.MethodAnonymousProxy},
		Dial: func(context.Context) (wamp.Peer, error) { return nil, errors.New("connection refused") }}
	rl := New(Options{Routes: []Route{
		{Realm: "realm1", Role: "anonymous", Backends: []*Backend{b}},
		{Realm: "realm1", Role: "guest", Backends: []*Backend{b}},
		{Realm: "realm2", Role: "anonymous", Backends: []*Backend{failing}},
	}})
	defer rl.Shutdown(context.Background())
	tests := []struct {
		name  string
		auths []auth.Authenticator
		realm wamp.URI
		want  wamp.URI
	}{
		{"realm without a route", nil, "nowhere", wamp.ErrNoSuchRealm},
		{"role without a route", []auth.Authenticator{auth.Anonymous("admin")}, "realm1", wamp.ErrNoSuchRole},
		{"role the backend lacks", []auth.Authenticator{auth.Anonymous("guest")}, "realm1", wamp.ErrNoSuchRole},
		{"backend down", nil, "realm2", wamp.ErrAuthenticationFailed},
		{"no common method", []auth.Authenticator{auth.Ticket(nil)}, "realm1", wamp.ErrNoAuthMethod},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := join(t, rl.Entry(EntryOptions{Auths: tt.auths}), client.Config{Realm: tt.realm})
			wantAbort(t, err, tt.want)
		})
	}
}

// joinedVia is an anonymous session through a relay to an
// anonymous-proxy backend, and the relay's peer of its backend session.
func joinedVia(t *testing.T) (*client.Session, wamp.Peer) {
	t.Helper()
	peers := make(chan wamp.Peer, 1)
	b := &Backend{Name: "conn1", Dial: dialer(backend(t, auth.AnonymousProxy()), peers), Methods: []string{auth.MethodAnonymousProxy}}
	rl := relayTo(t, b, "anonymous")
	s := mustJoin(t, rl.Entry(EntryOptions{}), client.Config{Realm: "realm1"})
	return s, <-peers
}

func TestRelayBackendLostEndsTheClientSession(t *testing.T) {
	s, back := joinedVia(t)
	back.Close() // the backend connection breaks
	<-s.Done()
	var re *wamp.RequestError
	if !errors.As(s.Err(), &re) || re.URI != wamp.ErrCloseNormal {
		t.Fatalf("session ended with %v, want GOODBYE %s", s.Err(), wamp.ErrCloseNormal)
	}
}

func TestRelayClientGoneEndsTheBackendSession(t *testing.T) {
	s, back := joinedVia(t)
	s.Close()
	for {
		if _, err := back.Recv(); err != nil {
			return // closed by the relay
		}
	}
}

func TestRelayShutdownSaysGoodbye(t *testing.T) {
	r := backend(t, auth.AnonymousProxy())
	b := &Backend{Name: "conn1", Dial: dialer(r, nil), Methods: []string{auth.MethodAnonymousProxy}}
	rl := New(Options{Routes: []Route{{Realm: "realm1", Role: "anonymous", Backends: []*Backend{b}}}})
	s := mustJoin(t, rl.Entry(EntryOptions{}), client.Config{Realm: "realm1"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rl.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	var re *wamp.RequestError
	if !errors.As(s.Err(), &re) || re.URI != wamp.ErrSystemShutdown {
		t.Fatalf("session ended with %v, want GOODBYE %s", s.Err(), wamp.ErrSystemShutdown)
	}
	// A client that comes after gets ABORT at once, before its HELLO (a
	// client's join may fail to send HELLO on the closed transport, so
	// the test reads what the proxy sends).
	mine, theirs := local.Pair(local.Options{})
	defer mine.Close()
	go rl.Entry(EntryOptions{}).Attach(theirs)
	m, err := mine.Recv()
	if a, ok := m.(*wamp.Abort); err != nil || !ok || a.Reason != wamp.ErrSystemShutdown {
		t.Fatalf("a client after Shutdown got %v, %v; want ABORT %s", m, err, wamp.ErrSystemShutdown)
	}
}

func TestRelayJoinTimeout(t *testing.T) {
	rl := New(Options{})
	defer rl.Shutdown(context.Background())
	mine, theirs := local.Pair(local.Options{})
	defer mine.Close()
	go rl.Entry(EntryOptions{JoinTimeout: time.Millisecond}).Attach(theirs)
	m, err := mine.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := m.(*wamp.Abort); !ok || a.Reason != ErrJoinTimeoutURI {
		t.Fatalf("got %v, want ABORT %s", m, ErrJoinTimeoutURI)
	}
}

func TestRelayInternalSessionsTakeTheRealmsFirstRoute(t *testing.T) {
	r := backend(t, auth.AnonymousProxy())
	b := &Backend{Name: "conn1", Dial: dialer(r, nil), Methods: []string{auth.MethodAnonymousProxy}}
	rl := relayTo(t, b, "user")
	trusted := []auth.Authenticator{auth.Anonymous("trusted")}
	_, err := join(t, rl.Entry(EntryOptions{Auths: trusted}), client.Config{Realm: "realm1"})
	wantAbort(t, err, wamp.ErrNoSuchRole)
	s := mustJoin(t, rl.Entry(EntryOptions{Auths: trusted, Internal: true}), client.Config{Realm: "realm1"})
	if s.Details()["authrole"] != "trusted" {
		t.Fatalf("WELCOME details = %v, want role trusted", s.Details())
	}
}

// TestRelayRoutes: Routes are the routes given, in their order, and a
// copy: changing it changes neither the relay nor a later answer.
func TestRelayRoutes(t *testing.T) {
	a, b := &Backend{Name: "a"}, &Backend{Name: "b"}
	rl := New(Options{Routes: []Route{{Realm: "realm2", Role: "user", Backends: []*Backend{a, b}}, {Realm: "realm1", Role: "anonymous", Backends: []*Backend{b}}}})
	defer rl.Shutdown(context.Background())
	got := rl.Routes()
	got[0].Role, got[0].Backends[0] = "changed", b
	got = rl.Routes()
	if len(got) != 2 || got[0].Realm != "realm2" || got[0].Role != "user" || len(got[0].Backends) != 2 || got[0].Backends[0] != a ||
		got[1].Realm != "realm1" || got[1].Backends[0] != b {
		t.Fatalf("Routes() = %+v, want the routes given", got)
	}
}

// wantGoodbye checks that s ended with GOODBYE uri.
func wantGoodbye(t *testing.T, s *client.Session, uri wamp.URI) {
	t.Helper()
	<-s.Done()
	var re *wamp.RequestError
	if !errors.As(s.Err(), &re) || re.URI != uri {
		t.Fatalf("session ended with %v, want GOODBYE %s", s.Err(), uri)
	}
}

// TestRelaySetRoutes: the sessions whose route is gone, or now goes to
// another backend, get GOODBYE config_changed; the others keep running;
// new sessions take the new routes.
func TestRelaySetRoutes(t *testing.T) {
	r := backend(t, auth.AnonymousProxy())
	b1 := &Backend{Name: "conn1", Dial: dialer(r, nil), Methods: []string{auth.MethodAnonymousProxy}}
	b2 := &Backend{Name: "conn2", Dial: dialer(r, nil), Methods: []string{auth.MethodAnonymousProxy}}
	rl := relayTo(t, b1, "anonymous", "user", "trusted")
	as := func(role string) *Entry {
		return rl.Entry(EntryOptions{Auths: []auth.Authenticator{auth.Anonymous(role)}})
	}
	kept := mustJoin(t, as("anonymous"), client.Config{Realm: "realm1"})
	moved := mustJoin(t, as("user"), client.Config{Realm: "realm1"})
	removed := mustJoin(t, as("trusted"), client.Config{Realm: "realm1"})

	n := rl.SetRoutes([]Route{
		{Realm: "realm1", Role: "anonymous", Backends: []*Backend{b1, b2}},
		{Realm: "realm1", Role: "user", Backends: []*Backend{b2}},
	})
	if n != 2 {
		t.Fatalf("SetRoutes closed %d sessions, want 2", n)
	}
	wantGoodbye(t, removed, wamp.ErrConfigChanged)
	wantGoodbye(t, moved, wamp.ErrConfigChanged)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := kept.Publish(ctx, "com.example.still", nil, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatalf("the session on a route kept: %v", err)
	}
	_, err := join(t, as("trusted"), client.Config{Realm: "realm1"})
	wantAbort(t, err, wamp.ErrNoSuchRole)
	mustJoin(t, as("user"), client.Config{Realm: "realm1"})

	routes := append(rl.Routes(), Route{Realm: "realm1", Role: "trusted", Backends: []*Backend{b1}})
	if n := rl.SetRoutes(routes); n != 0 {
		t.Fatalf("SetRoutes adding a route closed %d sessions, want 0", n)
	}
	mustJoin(t, as("trusted"), client.Config{Realm: "realm1"})
	if got := rl.Routes(); len(got) != 3 || got[2].Role != "trusted" {
		t.Fatalf("Routes() = %+v, want the new routes", got)
	}
}

// TestEntrySetAuthsAndCloseSessions: new authenticators take the next
// clients; CloseSessions ends those of its entry that stale picks.
func TestEntrySetAuthsAndCloseSessions(t *testing.T) {
	r := backend(t, auth.AnonymousProxy())
	b := &Backend{Name: "conn1", Dial: dialer(r, nil), Methods: []string{auth.MethodAnonymousProxy}}
	rl := relayTo(t, b, "user")
	tickets := func(ticket string) []auth.Authenticator {
		return []auth.Authenticator{auth.Ticket(map[string]auth.TicketPrincipal{
			"alice": {Ticket: ticket, Role: "user"}, "bob": {Ticket: "bob", Role: "user"}})}
	}
	e, other := rl.Entry(EntryOptions{Auths: tickets("old")}), rl.Entry(EntryOptions{Auths: tickets("old")})
	as := func(authid, ticket string) client.Config {
		return client.Config{Realm: "realm1", AuthID: authid, Auth: []client.Authenticator{client.Ticket(ticket)}}
	}
	alice, bob, elsewhere := mustJoin(t, e, as("alice", "old")), mustJoin(t, e, as("bob", "bob")), mustJoin(t, other, as("alice", "old"))
	e.SetAuths(tickets("new"))
	_, err := join(t, e, as("alice", "old"))
	wantAbort(t, err, wamp.ErrAuthenticationDenied)
	mustJoin(t, e, as("alice", "new"))
	if n := e.CloseSessions(func(id auth.Identity) bool { return id.AuthID == "alice" }, wamp.ErrConfigChanged); n != 2 {
		t.Fatalf("CloseSessions closed %d sessions, want 2 (alice's by the entry)", n)
	}
	wantGoodbye(t, alice, wamp.ErrConfigChanged)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range []*client.Session{bob, elsewhere} {
		if _, err := s.Publish(ctx, "com.example.still", nil, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatalf("a session not picked: %v", err)
		}
	}
}

// TestRelaySetRoutesDuringLogin: a client whose backend login was under
// way when its route went is refused with ABORT config_changed.
func TestRelaySetRoutesDuringLogin(t *testing.T) {
	r := backend(t, auth.AnonymousProxy())
	dialing, release := make(chan struct{}), make(chan struct{})
	dial := dialer(r, nil)
	b := &Backend{Name: "conn1", Methods: []string{auth.MethodAnonymousProxy}, Dial: func(ctx context.Context) (wamp.Peer, error) {
		close(dialing)
		<-release
		return dial(ctx)
	}}
	rl := relayTo(t, b, "anonymous")
	errs := make(chan error, 1)
	go func() {
		_, err := join(t, rl.Entry(EntryOptions{}), client.Config{Realm: "realm1"})
		errs <- err
	}()
	<-dialing
	if n := rl.SetRoutes(nil); n != 0 {
		t.Errorf("SetRoutes closed %d sessions, want 0 (none joined)", n)
	}
	close(release)
	wantAbort(t, <-errs, wamp.ErrConfigChanged)
}
