package router

import (
	"testing"

	"github.com/junction-wamp/junction/internal/wamp"
)

// TestAnonymousCannotClaimAuthID is the audit's F10: an anonymous client
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
