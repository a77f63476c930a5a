package router

import (
	"testing"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// internalGate is the gate of the node's own sessions.
func internalGate(r *Router) *Gate { return r.NewGate(GateOptions{Internal: true}) }

// TestReservedPatterns: F8 (docs/SECURITY.md). A registration whose pattern can
// match a wamp.* procedure is refused with invalid_uri, unless the
// session is trusted: the node's own (an Internal gate) or role
// "trusted".
func TestReservedPatterns(t *testing.T) {
	tests := []struct {
		proc    wamp.URI
		match   string
		reaches bool
	}{
		{"w", wamp.MatchPrefix, true},
		{"wam", wamp.MatchPrefix, true},
		{"wamp", wamp.MatchPrefix, true},
		{"wamp.", wamp.MatchPrefix, true},
		{"wamp.session.", wamp.MatchPrefix, true},
		{"", wamp.MatchPrefix, true}, // every URI
		{".session.get", wamp.MatchWildcard, true},
		{"..count", wamp.MatchWildcard, true},
		{"wamp..get", wamp.MatchWildcard, true},
		{"wamp.session.get", wamp.MatchExact, true},
		{"wampx", wamp.MatchPrefix, false},
		{"com.", wamp.MatchPrefix, false},
		{"com..get", wamp.MatchWildcard, false},
		{"wampx..get", wamp.MatchWildcard, false},
		{"wamp", wamp.MatchWildcard, false}, // one component: matches "wamp" only
		{"", wamp.MatchWildcard, false},     // one component too
		{"wamp", wamp.MatchExact, false},
	}
	for _, tt := range tests {
		t.Run(tt.match+" "+string(tt.proc), func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				opts := wamp.Dict{"match": tt.match, "invoke": "roundrobin"}
				anon := join(t, r.Gate(), "realm1", nil)
				anon.send(&wamp.Register{Request: 1, Options: opts, Procedure: tt.proc})
				if tt.reaches {
					anon.expectError(wamp.ErrInvalidURI)
				} else {
					expect[*wamp.Registered](anon)
				}
				join(t, internalGate(r), "realm1", nil).register(tt.proc, opts)
				ticketJoin(t, r.Gate(ticketAuth{role: trustedRole}), "realm1", "component").register(tt.proc, opts)
			})
		})
	}
}

// TestReservedCallsReachOnlyTrusted: a call to a wamp.* procedure that
// the router does not serve never reaches a callee that is not trusted,
// even through a registration that got past handleRegister; it reaches a
// trusted one.
func TestReservedCallsReachOnlyTrusted(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", DisableMetaAPI: true}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		attacker := join(t, r.Gate(), "realm1", nil)
		attacker.send(&wamp.Register{Request: 1, Options: wamp.Dict{"match": "prefix"}, Procedure: "w"})
		attacker.expectError(wamp.ErrInvalidURI)
		caller := join(t, r.Gate(), "realm1", nil)
		caller.call("wamp.session.get", nil, 1)
		caller.expectError(wamp.ErrNoSuchProcedure)

		rm := r.realm("realm1")
		_, announced, _, err := rm.dealer.register(rm.session(attacker.id), "w", uriindex.Prefix, wamp.InvokeSingle, 0)
		if err != nil {
			t.Fatal(err)
		}
		close(announced)
		caller.call("wamp.nonexistent", nil)
		caller.expectError(wamp.ErrNoSuchProcedure)
		attacker.quiet()
		caller.call("wx.y", nil) // the registration itself works
		expect[*wamp.Invocation](attacker)

		own := join(t, internalGate(r), "realm1", nil)
		own.register("wamp.nonexistent", nil)
		caller.call("wamp.nonexistent", nil)
		expect[*wamp.Invocation](own)
	})
}
