package router

import (
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// roleAuthz allows role "user" everything under com.user., role "bridge"
// everything, and discloses callers and publishers.
var roleAuthz = authzFunc(func(id *auth.Identity, _ auth.Action, uri wamp.URI) auth.Permission {
	switch id.AuthRole {
	case "bridge", "anonymous":
		return auth.Permission{Allow: true, Disclose: true}
	case "user":
		return auth.Permission{Allow: len(uri) > 9 && uri[:9] == "com.user.", Disclose: true}
	}
	return auth.Permission{}
})

var alice = &wamp.Identity{AuthID: "alice", AuthRole: "user"}

// actsForGate is the gate of the bridge's sessions.
func actsForGate(r *Router) *Gate {
	return r.NewGate(GateOptions{Auths: []auth.Authenticator{ticketAuth{role: "bridge"}}, ActsFor: true})
}

func TestActsForCall(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: roleAuthz}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", nil)
		callee.register("com.user.get", nil)
		callee.register("com.admin.drop", nil)
		br := ticketJoin(t, actsForGate(r), "realm1", "bridge-1")

		br.send(&wamp.Acting{Message: &wamp.Call{Request: br.nextReq(), Options: wamp.Dict{}, Procedure: "com.user.get"}, Identity: alice})
		inv := expect[*wamp.Invocation](callee)
		if inv.Details[wamp.OptCallerAuthID] != "alice" || inv.Details[wamp.OptCallerAuthRole] != "user" ||
			inv.Details[wamp.OptCaller] != uint64(br.id) {
			t.Fatalf("INVOCATION details %v, want alice/user disclosed with the bridge's session", inv.Details)
		}
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		expect[*wamp.Result](br)

		br.send(&wamp.Acting{Message: &wamp.Call{Request: br.nextReq(), Options: wamp.Dict{}, Procedure: "com.admin.drop"}, Identity: alice})
		br.expectError(wamp.ErrNotAuthorized)

		// Without an identity, the session's own role decides and shows.
		br.call("com.admin.drop", nil)
		inv = expect[*wamp.Invocation](callee)
		if inv.Details[wamp.OptCallerAuthID] != "bridge-1" || inv.Details[wamp.OptCallerAuthRole] != "bridge" {
			t.Fatalf("INVOCATION details %v, want the bridge's own identity", inv.Details)
		}
	})
}

// TestActsForRefused: a session whose gate does not let it act for others
// is refused when its messages carry an identity, whatever its role.
func TestActsForRefused(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: roleAuthz}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", nil)
		callee.register("com.user.get", nil)
		for _, g := range []*Gate{
			r.Gate(ticketAuth{role: "bridge"}), // outside
			r.NewGate(GateOptions{Auths: []auth.Authenticator{ticketAuth{role: "bridge"}}, Internal: true}),
		} {
			c := ticketJoin(t, g, "realm1", "mallory")
			c.send(&wamp.Acting{Message: &wamp.Call{Request: c.nextReq(), Options: wamp.Dict{}, Procedure: "com.user.get"}, Identity: alice})
			c.expectError(wamp.ErrNotAuthorized)
			c.send(&wamp.Acting{Message: &wamp.Publish{Request: c.nextReq(), Options: wamp.Dict{wamp.OptAcknowledge: true}, Topic: "com.user.x"}, Identity: alice})
			c.expectError(wamp.ErrNotAuthorized)
			c.send(&wamp.Acting{Message: &wamp.Subscribe{Request: c.nextReq(), Options: wamp.Dict{}, Topic: "com.user.x"}, Identity: alice})
			c.expectError(wamp.ErrNotAuthorized)
		}
		callee.quiet()
	})
}

func TestActsForPublishSubscribe(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: roleAuthz}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		sub := join(t, r.Gate(), "realm1", nil)
		sub.subscribe("com.user.news", nil)
		br := ticketJoin(t, actsForGate(r), "realm1", "bridge-1")

		br.send(&wamp.Acting{Message: &wamp.Publish{Request: br.nextReq(), Options: wamp.Dict{wamp.OptAcknowledge: true, wamp.OptDiscloseMe: true},
			Topic: "com.user.news"}, Identity: alice})
		expect[*wamp.Published](br)
		ev := expect[*wamp.Event](sub)
		if ev.Details[wamp.OptPublisherAuthID] != "alice" || ev.Details[wamp.OptPublisherAuthRole] != "user" {
			t.Fatalf("EVENT details %v, want alice/user", ev.Details)
		}
		br.send(&wamp.Acting{Message: &wamp.Publish{Request: br.nextReq(), Options: wamp.Dict{wamp.OptAcknowledge: true}, Topic: "com.admin.news"}, Identity: alice})
		br.expectError(wamp.ErrNotAuthorized)

		br.send(&wamp.Acting{Message: &wamp.Subscribe{Request: br.nextReq(), Options: wamp.Dict{}, Topic: "com.admin.news"}, Identity: alice})
		br.expectError(wamp.ErrNotAuthorized)
		br.send(&wamp.Acting{Message: &wamp.Subscribe{Request: br.nextReq(), Options: wamp.Dict{}, Topic: "com.user.news"}, Identity: alice})
		expect[*wamp.Subscribed](br)
		sub.quiet()
	})
}

// TestActsForAudience: the authid and authrole lists are not applied to a
// session that acts for others; it gets them with the event (Addressed).
// The session-ID lists still apply to it.
func TestActsForAudience(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: roleAuthz}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		br := ticketJoin(t, actsForGate(r), "realm1", "bridge-1")
		plain := ticketJoin(t, r.Gate(ticketAuth{role: "bridge"}), "realm1", "bridge-2")
		for _, c := range []*client{br, plain} {
			c.subscribe("com.user.news", nil)
		}
		pub := join(t, r.Gate(), "realm1", nil)
		pub.publish("com.user.news", wamp.Dict{wamp.OptEligibleAuthID: []any{"alice"}})
		ev := expect[*wamp.Addressed](br)
		if !ev.Audience.Allows("alice", "user") || ev.Audience.Allows("bob", "user") || ev.Event.Subscription == 0 {
			t.Fatalf("EVENT %+v with Audience %+v, want eligible alice only", ev.Event, ev.Audience)
		}
		plain.quiet() // bridge-2 is not alice

		pub.publish("com.user.news", wamp.Dict{wamp.OptExclude: []any{uint64(br.id)}})
		expect[*wamp.Event](plain) // no Audience: a plain EVENT
		br.quiet()                 // excluded by session ID
	})
}

// TestActsForOnlyRequests: only CALL, PUBLISH and SUBSCRIBE may act for
// an identity; anything else wrapped is a protocol violation.
func TestActsForOnlyRequests(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		br := ticketJoin(t, actsForGate(r), "realm1", "bridge-1")
		br.send(&wamp.Acting{Message: &wamp.Register{Request: br.nextReq(), Options: wamp.Dict{}, Procedure: "com.p"}, Identity: alice})
		br.expectAbort(wamp.ErrProtocolViolation)
	})
}

// TestActsForRetained: a retained event with authid lists reaches a
// session that acts for others addressed, at its subscription.
func TestActsForRetained(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		pub := join(t, r.Gate(), "realm1", nil)
		pub.publish("com.user.news", wamp.Dict{wamp.OptRetain: true, wamp.OptAcknowledge: true, wamp.OptExcludeAuthRole: []any{"guest"}})
		expect[*wamp.Published](pub)
		br := ticketJoin(t, actsForGate(r), "realm1", "bridge-1")
		br.send(&wamp.Acting{Message: &wamp.Subscribe{Request: br.nextReq(), Options: wamp.Dict{wamp.OptGetRetained: true}, Topic: "com.user.news"}, Identity: alice})
		expect[*wamp.Subscribed](br)
		ev := expect[*wamp.Addressed](br)
		if ev.Event.Details[wamp.OptRetained] != true || ev.Audience.Allows("x", "guest") || !ev.Audience.Allows("alice", "user") {
			t.Fatalf("retained EVENT %+v, Audience %+v", ev.Event, ev.Audience)
		}
	})
}
