package router

import (
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// revokingRoles are the HELLO details of a client that announces the
// revocation features (and call_canceling).
func revokingRoles() wamp.Dict {
	return wamp.Dict{"roles": map[string]any{
		"caller": map[string]any{}, "publisher": map[string]any{},
		"subscriber": map[string]any{"features": map[string]any{"subscription_revocation": true}},
		"callee":     map[string]any{"features": map[string]any{"call_canceling": true, "registration_revocation": true}},
	}}
}

// allowPrefix allows every action on URIs that start with prefix.
func allowPrefix(prefix string) auth.Authorizer {
	return authzFunc(func(_ *auth.Identity, _ auth.Action, uri wamp.URI) auth.Permission {
		return auth.Permission{Allow: strings.HasPrefix(string(uri), prefix), Cache: true}
	})
}

// TestUpdateRealmRevokes: once the permissions no longer allow what a
// session holds, a session that announced the revocation features is
// sent UNREGISTERED/UNSUBSCRIBED (request 0, details with the ID and a
// reason) and keeps the rest, one that did not is closed with GOODBYE
// junction.close.config_changed, one that holds nothing stays; the
// answers kept by the sessions are dropped at once.
func TestUpdateRealmRevokes(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: allowPrefix("com.")}, {Name: "realm2"}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		told := join(t, r.Gate(), "realm1", revokingRoles())
		sub := told.subscribe("com.a.topic", nil)
		reg := told.register("com.a.proc", nil)
		kept := told.register("com.b.proc", nil)
		untold := join(t, r.Gate(), "realm1", nil)
		untold.register("com.a.other", nil)
		idle := join(t, r.Gate(), "realm1", nil)
		idle.call("com.a.proc", nil) // allowed and kept in its cache
		inv := expect[*wamp.Invocation](told)
		told.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		expect[*wamp.Result](idle)
		other := join(t, r.Gate(), "realm2", nil)

		res, err := r.UpdateRealm("realm1", RealmUpdate{Authorizer: allowPrefix("com.b.")})
		if err != nil {
			t.Fatal(err)
		}
		if want := (UpdateResult{Closed: 1, Unregistered: 1, Unsubscribed: 1}); res != want {
			t.Errorf("UpdateRealm = %+v, want %+v", res, want)
		}
		u := expect[*wamp.Unsubscribed](told)
		if u.Request != 0 || u.Details["subscription"] != sub || u.Details["reason"] != string(wamp.ErrNotAuthorized) {
			t.Errorf("UNSUBSCRIBED %+v", u)
		}
		g := expect[*wamp.Unregistered](told)
		if g.Request != 0 || g.Details["registration"] != reg || g.Details["reason"] != string(wamp.ErrNotAuthorized) {
			t.Errorf("UNREGISTERED %+v", g)
		}
		if bye := expect[*wamp.Goodbye](untold); bye.Reason != wamp.ErrConfigChanged {
			t.Errorf("GOODBYE %s, want %s", bye.Reason, wamp.ErrConfigChanged)
		}
		untold.waitDone()

		idle.call("com.a.proc", nil)
		idle.expectError(wamp.ErrNotAuthorized)
		idle.call("com.b.proc", nil)
		inv = expect[*wamp.Invocation](told)
		if inv.Registration != kept {
			t.Errorf("INVOCATION of registration %d, want %d", inv.Registration, kept)
		}
		told.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}})
		expect[*wamp.Result](idle)
		other.quiet()
		told.quiet()
	})
}

// TestUpdateRealmRemovesRole: the sessions of a removed role are closed
// with GOODBYE junction.close.config_changed and a new one is refused;
// the other roles' sessions stay.
func TestUpdateRealmRemovesRole(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Roles: []string{"old", "user"}}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		oldGate, userGate := r.Gate(auth.Anonymous("old")), r.Gate(auth.Anonymous("user"))
		gone := join(t, oldGate, "realm1", nil)
		stays := join(t, userGate, "realm1", nil)
		res, err := r.UpdateRealm("realm1", RealmUpdate{Roles: []string{"user"}})
		if err != nil || res.Closed != 1 {
			t.Fatalf("UpdateRealm = %+v, %v; want 1 closed", res, err)
		}
		if bye := expect[*wamp.Goodbye](gone); bye.Reason != wamp.ErrConfigChanged {
			t.Errorf("GOODBYE %s", bye.Reason)
		}
		gone.waitDone()
		late := attach(t, oldGate)
		late.send(&wamp.Hello{Realm: "realm1", Details: clientRoles()})
		late.expectAbort(wamp.ErrNoSuchRole)
		stays.quiet()
		if _, err := r.UpdateRealm("nope", RealmUpdate{}); err == nil {
			t.Error("UpdateRealm of an unknown realm: no error")
		}
	})
}

// TestGateSetAuths: new authenticators apply to the next handshakes, and
// CloseSessions ends only the gate's sessions it is asked to.
func TestGateSetAuths(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g := r.Gate(ticketAuth{role: "user"})
		alice, bob := ticketJoin(t, g, "realm1", "alice"), ticketJoin(t, g, "realm1", "bob")
		elsewhere := ticketJoin(t, r.Gate(ticketAuth{role: "user"}), "realm1", "alice")
		g.SetAuths([]auth.Authenticator{auth.Anonymous("guest")})
		n := g.CloseSessions(func(id auth.Identity) bool { return id.AuthID == "alice" }, wamp.ErrConfigChanged)
		if n != 1 {
			t.Errorf("CloseSessions = %d, want 1", n)
		}
		if bye := expect[*wamp.Goodbye](alice); bye.Reason != wamp.ErrConfigChanged {
			t.Errorf("GOODBYE %s", bye.Reason)
		}
		alice.waitDone()
		anon := join(t, g, "realm1", nil)
		if got := anon.wel.Details[wamp.KeyAuthRole]; got != "guest" {
			t.Errorf("authrole after SetAuths %v, want guest", got)
		}
		bob.quiet()
		elsewhere.quiet()
	})
}

// TestGateSetAuthsDuringHandshake: a session that authenticated with the
// authenticators SetAuths replaced while it was in the handshake (so that
// CloseSessions could not see it) is closed with GOODBYE
// junction.close.config_changed once it joins.
func TestGateSetAuthsDuringHandshake(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g := r.Gate(ticketAuth{role: "user"})
		c := attach(t, g)
		c.send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authid": "alice", "authmethods": []any{"ticket"}}})
		expect[*wamp.Challenge](c)
		g.SetAuths([]auth.Authenticator{ticketAuth{role: "user"}})
		if n := g.CloseSessions(func(auth.Identity) bool { return true }, wamp.ErrConfigChanged); n != 0 {
			t.Errorf("CloseSessions = %d, want 0 (nobody joined)", n)
		}
		c.send(&wamp.Authenticate{Signature: "secret", Extra: wamp.Dict{}})
		expect[*wamp.Welcome](c)
		if bye := expect[*wamp.Goodbye](c); bye.Reason != wamp.ErrConfigChanged {
			t.Errorf("GOODBYE %s, want %s", bye.Reason, wamp.ErrConfigChanged)
		}
		c.waitDone()
		stays := ticketJoin(t, g, "realm1", "bob")
		stays.quiet()
	})
}
