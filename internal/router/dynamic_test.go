package router

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/wamp"
)

// answer is a dynamic authenticator that always answers res, err.
func answer(res any, err error) auth.AuthenticateFunc {
	return func(context.Context, wamp.URI, string, wamp.Dict) (any, error) { return res, err }
}

// twoRealms are realm1 (roles user and anonymous) and realm2 (user).
var twoRealms = Options{Realms: []RealmOptions{
	{Name: "realm1", Roles: []string{"user", "anonymous"}},
	{Name: "realm2", Roles: []string{"user"}},
}}

// TestDynamicRealm: a dynamic authenticator's "realm" puts the session on
// that realm, whatever realm the HELLO names, even one that does not
// exist; the realm and the role must exist. Static authentication still
// needs the HELLO's realm.
func TestDynamicRealm(t *testing.T) {
	tests := []struct {
		name   string
		hello  wamp.URI
		res    any
		joined wamp.URI // "" when refused with abort
		abort  wamp.URI
	}{
		{name: "stay", hello: "realm1", res: "user", joined: "realm1"},
		{name: "redirect", hello: "realm1", res: wamp.Dict{"role": "user", "realm": "realm2"}, joined: "realm2"},
		{name: "assign to unknown HELLO realm", hello: "portal", res: wamp.Dict{"role": "user", "realm": "realm2"}, joined: "realm2"},
		{name: "unknown HELLO realm kept", hello: "portal", res: "user", abort: wamp.ErrNoSuchRealm},
		{name: "redirect to unknown realm", hello: "realm1", res: wamp.Dict{"role": "user", "realm": "nowhere"}, abort: wamp.ErrNoSuchRealm},
		{name: "role not on the realm", hello: "realm1", res: wamp.Dict{"role": "anonymous", "realm": "realm2"}, abort: wamp.ErrNoSuchRole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, twoRealms, func(t *testing.T, r *Router) {
				g := r.Gate(auth.DynamicAnonymous(auth.DynamicOptions{Authenticate: answer(tt.res, nil)}))
				c := attach(t, g)
				c.send(&wamp.Hello{Realm: tt.hello, Details: wamp.Dict{}})
				if tt.abort != "" {
					c.expectAbort(tt.abort)
					return
				}
				w := expect[*wamp.Welcome](c)
				if w.Details["realm"] != string(tt.joined) || r.Stats().Realms[tt.joined].Sessions != 1 {
					t.Errorf("WELCOME realm %v, sessions %+v; want joined %s", w.Details["realm"], r.Stats().Realms, tt.joined)
				}
			})
		})
	}
	bubble(t, twoRealms, func(t *testing.T, r *Router) {
		c := attach(t, r.Gate(ticketAuth{role: "user"}))
		c.send(&wamp.Hello{Realm: "portal", Details: wamp.Dict{"authid": "a", "authmethods": []any{"ticket"}}})
		c.expectAbort(wamp.ErrNoSuchRealm)
	})
}

// TestDynamicWelcome: WELCOME carries what the authenticator gave:
// authid, role, provider "dynamic" and its extra as authextra.
func TestDynamicWelcome(t *testing.T) {
	bubble(t, twoRealms, func(t *testing.T, r *Router) {
		res := wamp.Dict{"role": "user", "authid": "bob", "extra": wamp.Dict{"plan": "gold"}}
		c := attach(t, r.Gate(auth.DynamicTicket(auth.DynamicOptions{Authenticate: answer(res, nil)})))
		c.send(&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authid": "alice", "authmethods": []any{"ticket"}}})
		expect[*wamp.Challenge](c)
		c.send(&wamp.Authenticate{Signature: "t", Extra: wamp.Dict{}})
		d := expect[*wamp.Welcome](c).Details
		extra, _ := d["authextra"].(wamp.Dict)
		if d["authid"] != "bob" || d["authrole"] != "user" || d["authprovider"] != "dynamic" || d["authmethod"] != "ticket" || extra["plan"] != "gold" {
			t.Errorf("WELCOME details %v", d)
		}
	})
}

// TestDynamicLoginsThrottled: a dynamic authenticator's refusal, at
// AUTHENTICATE (ticket) or at HELLO (anonymous), counts as a failed
// login: the next attempt from that address has its CHALLENGE held back.
// An authenticator that could not be asked is no failure of the client.
func TestDynamicLoginsThrottled(t *testing.T) {
	refused := &wamp.RequestError{URI: "com.example.invalid", Args: wamp.List{"no"}}
	unavailable := fmt.Errorf("%w: %w", auth.ErrUnavailable, wamp.Errorf(wamp.ErrNoSuchProcedure, "none"))
	tests := []struct {
		name   string
		first  auth.Authenticator
		hello  wamp.Dict
		ticket bool // the first attempt gets a CHALLENGE to answer
		abort  wamp.URI
		held   time.Duration
	}{
		{"ticket refused", auth.DynamicTicket(auth.DynamicOptions{Authenticate: answer(nil, refused)}), aliceTicket, true, refused.URI, loginguard.Delay(1)},
		{"anonymous refused", auth.DynamicAnonymous(auth.DynamicOptions{Authenticate: answer(nil, refused)}), wamp.Dict{}, false, refused.URI, loginguard.Delay(1)},
		{"ticket unavailable", auth.DynamicTicket(auth.DynamicOptions{Authenticate: answer(nil, unavailable)}), aliceTicket, true, wamp.ErrNoSuchProcedure, 0},
		{"anonymous unavailable", auth.DynamicAnonymous(auth.DynamicOptions{Authenticate: answer(nil, unavailable)}), wamp.Dict{}, false, wamp.ErrNoSuchProcedure, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, twoRealms, func(t *testing.T, r *Router) {
				const addr = "192.0.2.7:40000"
				c := attachFrom(t, r.Gate(tt.first), addr)
				c.send(&wamp.Hello{Realm: "realm1", Details: tt.hello})
				if tt.ticket {
					expect[*wamp.Challenge](c)
					c.send(&wamp.Authenticate{Signature: "t", Extra: wamp.Dict{}})
				}
				if a := c.expectAbort(tt.abort); tt.abort == refused.URI && a.Details["message"] != "no" {
					t.Errorf("ABORT details %v, want the authenticator's message", a.Details)
				}
				next := r.Gate(auth.DynamicTicket(auth.DynamicOptions{Authenticate: answer("user", nil)}))
				if tt.held == 0 {
					n := attachFrom(t, next, addr)
					n.send(&wamp.Hello{Realm: "realm1", Details: aliceTicket})
					expect[*wamp.Challenge](n)
					return
				}
				heldBackAll(t, tt.held, attempt{attachFrom(t, next, addr), aliceTicket})
			})
		})
	}
}

var aliceTicket = wamp.Dict{"authid": "alice", "authmethods": []any{"ticket"}}

// countingAuthz answers allow (with cache) and counts the questions, by
// session, action and URI; it checks that the router tells it the
// session's ID and peer.
type countingAuthz struct {
	t     *testing.T
	cache bool
	allow bool
	err   error
	asked atomic.Int64
}

func (a *countingAuthz) Authorize(id *auth.Identity, _ auth.Action, _ wamp.URI, _ wamp.Dict) (auth.Permission, error) {
	a.asked.Add(1)
	if id.Session == 0 || id.Peer.Transport != "fake" || id.Realm != "realm1" {
		a.t.Errorf("authorizer told %+v, want the session's ID, peer and realm", id)
	}
	return auth.Permission{Allow: a.allow, Cache: a.cache}, a.err
}

// TestAuthorizationCache: an answer with Cache is kept for the same
// action on the same URI by the same session, allow or deny, and never
// for another session, action or URI; without Cache nothing is kept.
func TestAuthorizationCache(t *testing.T) {
	for _, tt := range []struct {
		name         string
		cache, allow bool
		want         int64 // questions asked
	}{
		{"cached allow", true, true, 3},
		{"cached deny", true, false, 3},
		{"not cached", false, true, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			authz := &countingAuthz{t: t, cache: tt.cache, allow: tt.allow}
			bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: authz}}}, func(t *testing.T, r *Router) {
				a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
				ack := wamp.Dict{"acknowledge": true}
				for _, step := range []struct {
					c     *client
					topic wamp.URI
				}{{a, "t1"}, {a, "t1"}, {a, "t2"}, {a, "t2"}, {b, "t1"}, {b, "t1"}} {
					step.c.publish(step.topic, ack)
					if tt.allow {
						expect[*wamp.Published](step.c)
					} else {
						step.c.expectError(wamp.ErrNotAuthorized)
					}
				}
				a.send(&wamp.Subscribe{Request: a.nextReq(), Options: wamp.Dict{}, Topic: "t1"}) // another action
				expect[wamp.Message](a)
				if got := authz.asked.Load(); got != tt.want+1 {
					t.Errorf("authorizer asked %d times, want %d", got, tt.want+1)
				}
			})
		})
	}
}

// TestAuthorizationCacheBounded: a session keeps at most authzCacheSize
// answers; past that, the authorizer is asked again every time.
func TestAuthorizationCacheBounded(t *testing.T) {
	authz := &countingAuthz{t: t, cache: true, allow: true}
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: authz}}}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		ack := wamp.Dict{"acknowledge": true}
		for i := range authzCacheSize + 1 {
			c.publish(wamp.URI(fmt.Sprint("t", i)), ack)
			expect[*wamp.Published](c)
		}
		for _, topic := range []wamp.URI{"t0", wamp.URI(fmt.Sprint("t", authzCacheSize)), wamp.URI(fmt.Sprint("t", authzCacheSize))} {
			c.publish(topic, ack)
			expect[*wamp.Published](c)
		}
		if got, want := authz.asked.Load(), int64(authzCacheSize+3); got != want {
			t.Errorf("authorizer asked %d times, want %d (t0 kept, the last one not)", got, want)
		}
	})
}

// TestAuthorizationFailed: an authorizer that cannot decide refuses every
// action with wamp.error.authorization_failed, as Crossbar does.
func TestAuthorizationFailed(t *testing.T) {
	authz := &countingAuthz{t: t, allow: true, err: errors.New("auth: authorizer did not answer")}
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: authz}}}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		c.call("p", nil)
		c.expectError(wamp.ErrAuthorizationFailed)
		c.send(&wamp.Register{Request: c.nextReq(), Options: wamp.Dict{}, Procedure: "p"})
		c.expectError(wamp.ErrAuthorizationFailed)
		c.send(&wamp.Subscribe{Request: c.nextReq(), Options: wamp.Dict{}, Topic: "t"})
		c.expectError(wamp.ErrAuthorizationFailed)
		c.publish("t", wamp.Dict{"acknowledge": true})
		e := c.expectError(wamp.ErrAuthorizationFailed)
		if fmt.Sprint(e.Args) != `[failed to authorize session to publish to "t"]` {
			t.Errorf("ERROR args %v", e.Args)
		}
	})
}

// blockingAuthz makes session waiting's questions wait for release.
type blockingAuthz struct {
	waiting atomic.Uint64 // the session ID whose questions wait
	release chan struct{}
}

func (a *blockingAuthz) Authorize(id *auth.Identity, _ auth.Action, _ wamp.URI, _ wamp.Dict) (auth.Permission, error) {
	if uint64(id.Session) == a.waiting.Load() {
		<-a.release
	}
	return auth.Permission{Allow: true}, nil
}

// TestAuthorizerBlocksOnlyItsSession: while a session waits for its
// authorizer, the others go on.
func TestAuthorizerBlocksOnlyItsSession(t *testing.T) {
	authz := &blockingAuthz{}
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: authz}}}, func(t *testing.T, r *Router) {
		authz.release = make(chan struct{}) // in the bubble, so that synctest sees it block
		slow, other := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
		authz.waiting.Store(uint64(slow.id))
		defer func() { authz.waiting.Store(0) }()
		ack := wamp.Dict{"acknowledge": true}
		slow.publish("t", ack)
		other.register("p", nil)
		other.publish("t", ack)
		expect[*wamp.Published](other)
		slow.quiet()
		close(authz.release)
		expect[*wamp.Published](slow)
	})
}
