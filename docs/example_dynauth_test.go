package docs

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
	"github.com/junction-wamp/junction/wamp"
)

// This file is the dynamic authenticator of docs/authenticator.md, and the
// test that runs it against examples/dynamic-auth.yaml.

// user is what the authenticator knows of one user.
type user struct {
	ticket string // for ticket logins; "" for none
	secret string // for WAMP-CRA logins; "" for none
	role   string
}

// users would come from a database.
var users = map[string]user{
	"alice": {ticket: "alice-ticket", role: "user"},
	"bob":   {secret: "bob-secret", role: "admin"},
	"carol": {ticket: "carol-ticket", role: "app"},
}

// authenticate is com.example.authenticate, called by the router as
// authenticator(realm, authid, details) for every login on the ws path.
func authenticate(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	authid, _ := inv.Args[1].(string) // null when the client gave none
	details, _ := wamp.AsDict(inv.Args[2])
	u, known := users[authid]
	switch details["authmethod"] {
	case "ticket":
		// The ticket the client sent: compare in constant time, and
		// answer an unknown user exactly as a wrong ticket.
		ticket, _ := details["ticket"].(string)
		if known && u.ticket != "" && subtle.ConstantTimeCompare([]byte(ticket), []byte(u.ticket)) == 1 {
			return answer(wamp.Dict{"role": u.role, "extra": wamp.Dict{"greeting": "hello " + authid}})
		}
	case "wampcra":
		// Asked before the challenge: the router challenges the client
		// with the secret returned. An unknown user gets a random secret,
		// so that it is challenged and refused like a wrong password
		// rather than told at once that there is no such user.
		if !known || u.secret == "" {
			return answer(wamp.Dict{"secret": rand.Text(), "role": "user"})
		}
		return answer(wamp.Dict{"secret": u.secret, "role": u.role})
	}
	return nil, wamp.Errorf("com.example.invalid_login", "invalid login")
}

func answer(principal wamp.Dict) (*client.Result, error) {
	return &client.Result{Args: wamp.List{principal}}, nil
}

// authorize is com.example.authorize, called by the router as
// authorizer(session, uri, action, options) for every action of a session
// of role "app": each user may act under com.example.user.AUTHID. only;
// the router keeps the answer for the rest of the session.
func authorize(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	session, _ := wamp.AsDict(inv.Args[0])
	uri, _ := inv.Args[1].(string)
	authid, _ := session["authid"].(string)
	own := strings.HasPrefix(uri, "com.example.user."+authid+".")
	return &client.Result{Args: wamp.List{wamp.Dict{"allow": own, "cache": true}}}, nil
}

// component joins realm over the example's Unix socket with the static
// ticket of authid (from the environment) and registers procedure.
func component(t *testing.T, r *running, realm wamp.URI, authid, env string, procedure wamp.URI, h client.InvocationHandler) {
	t.Helper()
	p, err := rawsocket.Dial(testCtx(t), "unix", r.addr(t, "workers[0].transports[1]"), rawsocket.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Join(testCtx(t), p, client.Config{Realm: realm, AuthID: authid,
		Auth: []client.Authenticator{client.Ticket(exampleEnv[env])}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Register(testCtx(t), procedure, h, nil); err != nil {
		t.Fatal(err)
	}
}

// TestDynamicAuthExample runs the authenticator and the authorizer above
// as docs/authenticator.md describes: each joins its realm over the Unix
// socket with its static ticket and registers its procedure; they then
// decide who the clients of ws://HOST:8080/ws are, and what carol may do.
func TestDynamicAuthExample(t *testing.T) {
	r := startExample(t, "dynamic-auth.yaml")
	component(t, r, "auth", "authenticator", "AUTHENTICATOR_TICKET", "com.example.authenticate", authenticate)
	component(t, r, "realm1", "authorizer", "AUTHORIZER_TICKET", "com.example.authorize", authorize)

	ws := "ws://" + r.addr(t, "workers[0].transports[0]") + "/ws"
	alice := must(t)(joinWS(t, ws, client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("alice-ticket")}}))
	extra, _ := wamp.AsDict(alice.Details()["authextra"])
	if authRole(alice) != "user" || extra["greeting"] != "hello alice" || alice.Details()["authprovider"] != "dynamic" {
		t.Errorf("alice's WELCOME: %v", alice.Details())
	}
	bob := must(t)(joinWS(t, ws, client.Config{Realm: "realm1", AuthID: "bob", Auth: []client.Authenticator{client.WampCRA("bob-secret")}}))
	if authRole(bob) != "admin" {
		t.Errorf("bob's authrole %v, want admin", authRole(bob))
	}

	carol := must(t)(joinWS(t, ws, client.Config{Realm: "realm1", AuthID: "carol", Auth: []client.Authenticator{client.Ticket("carol-ticket")}}))
	ack := wamp.Dict{"acknowledge": true}
	if _, err := carol.Publish(testCtx(t), "com.example.user.carol.status", wamp.List{"here"}, nil, ack); err != nil {
		t.Errorf("carol publishes under her own prefix: %v", err)
	}
	if _, err := carol.Publish(testCtx(t), "com.example.user.dave.status", nil, nil, ack); wampErr(err) != wamp.ErrNotAuthorized {
		t.Errorf("carol publishes under dave's prefix: %v, want %s", err, wamp.ErrNotAuthorized)
	}

	refused := []struct {
		name string
		cfg  client.Config
		want wamp.URI
	}{
		{"wrong ticket", client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("guess")}}, "com.example.invalid_login"},
		{"unknown wampcra user", client.Config{Realm: "realm1", AuthID: "mallory", Auth: []client.Authenticator{client.WampCRA("guess")}}, wamp.ErrAuthenticationDenied},
		{"anonymous", client.Config{Realm: "realm1"}, wamp.ErrNoAuthMethod},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := joinWS(t, ws, tt.cfg); wampErr(err) != tt.want {
				t.Errorf("join: %v, want ABORT %s", err, tt.want)
			}
		})
	}
}

// TestAuthenticatorPageQuotesTheCode: the functions docs/authenticator.md
// shows are those above, which the test runs, word for word.
func TestAuthenticatorPageQuotesTheCode(t *testing.T) {
	page, src := readPage(t, "authenticator.md"), readPage(t, "example_dynauth_test.go")
	for _, start := range []string{"// authenticate is com.example.authenticate", "// authorize is com.example.authorize"} {
		i := strings.Index(src, start)
		n := strings.Index(src[i:], "\n}\n")
		if i < 0 || n < 0 {
			t.Fatalf("%q not found in example_dynauth_test.go", start)
		}
		if code := src[i : i+n+3]; !strings.Contains(page, "```go\n"+code+"```") {
			t.Errorf("authenticator.md does not show, as a Go block, the code that follows %q:\n%s", start, code)
		}
	}
}
