package router

import (
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// TestAnonymousCannotClaimAuthID is F10 (docs/SECURITY.md): an anonymous client
// that asks for the authid of a ticket principal ("alice") gets a random
// authid, so an event for eligible_authid ["alice"] reaches the real alice
// and not the impostor. Both the router's default anonymous gate and a
// gate mixing anonymous and ticket are checked.
func TestAnonymousCannotClaimAuthID(t *testing.T) {
	gates := map[string]func(r *Router) *Gate{
		"default gate": func(r *Router) *Gate { return r.Gate() },
		"mixed gate":   mixedGate,
	}
	for name, anonGate := range gates {
		t.Run(name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				alice := ticketJoin(t, mixedGate(r), "realm1", "alice")
				imp := join(t, anonGate(r), "realm1", wamp.Dict{"authid": "alice"})
				if id := imp.wel.Details["authid"]; id == "alice" || id == "" {
					t.Fatalf("anonymous session asking for alice got authid %q", id)
				}
				alice.subscribe("com.private", nil)
				imp.subscribe("com.private", nil)
				pub := join(t, r.Gate(), "realm1", nil)
				pub.publish("com.private", wamp.Dict{"acknowledge": true, "eligible_authid": []any{"alice"}}, "for alice only")
				expect[*wamp.Published](pub)
				if ev := expect[*wamp.Event](alice); len(ev.Args) != 1 || ev.Args[0] != "for alice only" {
					t.Errorf("alice got %+v", ev)
				}
				imp.quiet()
			})
		})
	}
}

// TestJoinTimeout is F3, its join part (docs/SECURITY.md): a client that never
// sends HELLO, or never answers CHALLENGE, is ended with ABORT
// junction.error.join_timeout once the gate's JoinTimeout has passed, and
// not before. The timeout bounds each wait for the client on its own.
func TestJoinTimeout(t *testing.T) {
	const d = 3 * time.Second
	tests := []struct {
		name  string
		steps func(c *client) // what the client does before it falls silent
	}{
		{"no HELLO", func(*client) {}},
		{"CHALLENGE not answered", func(c *client) {
			c.send(ticketHello("alice"))
			expect[*wamp.Challenge](c)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				g := r.NewGate(GateOptions{Auths: []auth.Authenticator{ticketAuth{role: "user"}}, JoinTimeout: d})
				c := attach(t, g)
				tt.steps(c)
				time.Sleep(d - time.Millisecond)
				c.quiet()
				time.Sleep(time.Millisecond)
				a := c.expectAbort(ErrJoinTimeoutURI)
				if msg, _ := a.Details["message"].(string); msg == "" {
					t.Errorf("ABORT details %v, want a message", a.Details)
				}
			})
		})
	}
}

// TestJoinTimeoutPerStep: HELLO and AUTHENTICATE each come just within the
// timeout, together after it; the session joins.
func TestJoinTimeoutPerStep(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		const d = 3 * time.Second
		c := attach(t, r.NewGate(GateOptions{Auths: []auth.Authenticator{ticketAuth{role: "user"}}, JoinTimeout: d}))
		time.Sleep(d - time.Millisecond)
		c.send(ticketHello("alice"))
		expect[*wamp.Challenge](c)
		time.Sleep(d - time.Millisecond)
		c.send(&wamp.Authenticate{Signature: "secret", Extra: wamp.Dict{}})
		expect[*wamp.Welcome](c)
		time.Sleep(2 * d)
		c.quiet() // joined: the clock is off
	})
}

// TestNoJoinTimeout: internal gates and a negative JoinTimeout have no
// deadline.
func TestNoJoinTimeout(t *testing.T) {
	gates := map[string]GateOptions{
		"internal": {Internal: true, JoinTimeout: time.Second},
		"negative": {JoinTimeout: -1},
	}
	for name, o := range gates {
		t.Run(name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				c := attach(t, r.NewGate(o))
				time.Sleep(time.Hour)
				c.quiet()
				c.send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{}})
				expect[*wamp.Welcome](c)
			})
		})
	}
}

func TestGateJoinTimeout(t *testing.T) {
	tests := []struct {
		o    GateOptions
		want time.Duration
	}{
		{GateOptions{}, DefaultJoinTimeout},
		{GateOptions{JoinTimeout: time.Second}, time.Second},
		{GateOptions{JoinTimeout: -1}, 0},
		{GateOptions{Internal: true}, 0},
	}
	for _, tt := range tests {
		if got := (&Gate{opts: tt.o}).JoinTimeout(); got != tt.want {
			t.Errorf("joinTimeout(%+v) = %v, want %v", tt.o, got, tt.want)
		}
	}
}
