package router

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/wamp"
)

func TestWelcomeDetails(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		d := c.wel.Details
		for k, want := range map[string]any{"authrole": "anonymous", "authmethod": "anonymous", "authprovider": "static", "agent": Agent} {
			if d[k] != want {
				t.Errorf("WELCOME.Details[%s] = %v, want %v", k, d[k], want)
			}
		}
		if id, _ := d["authid"].(string); id == "" {
			t.Error("no authid")
		}
		roles := d["roles"].(wamp.Dict)
		bf := roles["broker"].(wamp.Dict)["features"].(wamp.Dict)
		df := roles["dealer"].(wamp.Dict)["features"].(wamp.Dict)
		if bf["pattern_based_subscription"] != true || df["call_canceling"] != true || df["session_meta_api"] != true || bf["session_meta_api"] != true || bf["subscription_meta_api"] != true || df["registration_meta_api"] != true || df["testament_meta_api"] != true {
			t.Errorf("features: broker %v dealer %v", bf, df)
		}
		if c.id == 0 || c.id > wamp.MaxID {
			t.Errorf("session ID %d", c.id)
		}
	})
}

func TestChallengeFlow(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		g := r.Gate(ticketAuth{role: "user"})
		c := ticketJoin(t, g, "realm1", "alice")
		d := c.wel.Details
		if d["authid"] != "alice" || d["authrole"] != "user" || d["authmethod"] != "ticket" {
			t.Errorf("WELCOME.Details = %v", d)
		}
		if extra, _ := d["authextra"].(wamp.Dict); extra["color"] != "blue" {
			t.Errorf("authextra = %v", d["authextra"])
		}
	})
}

func TestHandshakeAborts(t *testing.T) {
	tests := []struct {
		name   string
		msgs   []any
		gate   func(r *Router) *Gate
		reason wamp.URI
	}{
		{"no such realm", []any{&wamp.Hello{Realm: "nope", Details: wamp.Dict{}}}, nil, wamp.ErrNoSuchRealm},
		{"no auth method", []any{&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authmethods": []any{"ticket"}}}}, nil, wamp.ErrNoAuthMethod},
		{"anonymous not offered by gate", []any{&wamp.Hello{Realm: "realm1", Details: wamp.Dict{}}}, ticketGate, wamp.ErrNoAuthMethod},
		{"role not on realm", []any{&wamp.Hello{Realm: "roles", Details: wamp.Dict{}}}, nil, wamp.ErrNoSuchRole},
		{"first message not HELLO", []any{&wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "a"}}, nil, wamp.ErrProtocolViolation},
		{"undecodable message", []any{fmt.Errorf("bad frame: %w", wamp.ErrProtocol)}, nil, wamp.ErrProtocolViolation},
		{"bad authmethods", []any{&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authmethods": "ticket"}}}, nil, wamp.ErrProtocolViolation},
		{"authenticator refuses", []any{&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authmethods": []any{"ticket"}}}}, ticketGate, wamp.ErrAuthenticationDenied},
		{"wrong ticket", []any{ticketHello("bob"), &wamp.Authenticate{Signature: "guess", Extra: wamp.Dict{}}}, ticketGate, wamp.ErrAuthenticationDenied},
		{"not AUTHENTICATE", []any{ticketHello("bob"), &wamp.Hello{Realm: "realm1", Details: wamp.Dict{}}}, ticketGate, wamp.ErrProtocolViolation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Realms: []RealmOptions{{Name: "realm1"}, {Name: "roles", Roles: []string{"admin"}}}}
			bubble(t, opts, func(t *testing.T, r *Router) {
				g := r.Gate()
				if tt.gate != nil {
					g = tt.gate(r)
				}
				c := attach(t, g)
				for i, m := range tt.msgs {
					c.send(m)
					if i == 0 && len(tt.msgs) > 1 {
						expect[*wamp.Challenge](c)
					}
				}
				a := c.expectAbort(tt.reason)
				if msg, _ := a.Details["message"].(string); msg == "" {
					t.Errorf("ABORT without message: %v", a.Details)
				}
				if st := r.Stats(); st.Sessions != 0 {
					t.Errorf("%d sessions left", st.Sessions)
				}
			})
		})
	}
}

func ticketGate(r *Router) *Gate { return r.Gate(ticketAuth{role: "user"}) }

func ticketHello(authid string) *wamp.Hello {
	return &wamp.Hello{Realm: "realm1", Details: wamp.Dict{"authid": authid, "authmethods": []any{"anonymous", "ticket"}}}
}

func TestClientAbortDuringHandshake(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c := attach(t, ticketGate(r))
		c.send(ticketHello("bob"))
		expect[*wamp.Challenge](c)
		c.send(&wamp.Abort{Details: wamp.Dict{}, Reason: "wamp.error.canceled"})
		c.waitDone()
		c.quiet()
	})
}

func TestGoodbyeFromClient(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		c.register("com.a", nil)
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		if g := expect[*wamp.Goodbye](c); g.Reason != wamp.ErrGoodbyeAndOut {
			t.Errorf("GOODBYE reason %s", g.Reason)
		}
		c.waitDone()
		st := r.Stats()
		if st.Sessions != 0 || st.Realms["realm1"].Registrations != 0 {
			t.Errorf("after GOODBYE: %+v", st)
		}
	})
}

func TestGoodbyeFromRouter(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "a"}, {Name: "b"}}}, func(t *testing.T, r *Router) {
		a1, a2 := join(t, r.Gate(), "a", nil), join(t, r.Gate(), "a", nil)
		b := join(t, r.Gate(), "b", nil)
		r.RemoveRealm("a")
		for _, c := range []*client{a1, a2} {
			if g := expect[*wamp.Goodbye](c); g.Reason != wamp.ErrCloseRealm {
				t.Errorf("GOODBYE reason %s", g.Reason)
			}
			c.waitDone()
		}
		late := attach(t, r.Gate())
		late.send(&wamp.Hello{Realm: "a", Details: wamp.Dict{}})
		late.expectAbort(wamp.ErrNoSuchRealm)

		waiting := attach(t, r.Gate()) // no HELLO yet
		synctest.Wait()
		r.Close()
		waiting.expectAbort(wamp.ErrSystemShutdown)
		if g := expect[*wamp.Goodbye](b); g.Reason != wamp.ErrSystemShutdown {
			t.Errorf("GOODBYE reason %s", g.Reason)
		}
		b.waitDone()
		after := attach(t, r.Gate())
		after.expectAbort(wamp.ErrSystemShutdown)
		r.Close() // idempotent
	})
}

func TestProtocolViolations(t *testing.T) {
	tests := []struct {
		name string
		msg  any
	}{
		{"undecodable", fmt.Errorf("bad: %w", wamp.ErrProtocol)},
		{"second HELLO", &wamp.Hello{Realm: "realm1", Details: wamp.Dict{}}},
		{"WELCOME", &wamp.Welcome{Session: 1, Details: wamp.Dict{}}},
		{"EVENT", &wamp.Event{Subscription: 1, Publication: 1, Details: wamp.Dict{}}},
		{"RESULT", &wamp.Result{Request: 1, Details: wamp.Dict{}}},
		{"INVOCATION", &wamp.Invocation{Request: 1, Registration: 1, Details: wamp.Dict{}}},
		{"AUTHENTICATE", &wamp.Authenticate{Signature: "x", Extra: wamp.Dict{}}},
		{"ERROR for CALL", &wamp.Error{RequestType: wamp.TypeCall, Request: 1, Details: wamp.Dict{}, Error: "a.b"}},
		{"CANCEL bad mode", &wamp.Cancel{Request: 1, Options: wamp.Dict{"mode": "nope"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				good := join(t, r.Gate(), "realm1", nil)
				good.register("com.echo", nil)
				bad := join(t, r.Gate(), "realm1", nil)
				bad.send(tt.msg)
				a := bad.expectAbort(wamp.ErrProtocolViolation)
				if a.Details["message"] == nil {
					t.Error("ABORT without message")
				}
				other := join(t, r.Gate(), "realm1", nil)
				other.call("com.echo", nil, 1)
				inv := expect[*wamp.Invocation](good)
				good.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Args: inv.Args})
				expect[*wamp.Result](other)
			})
		})
	}
}

func TestDuplicateCallRequestID(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", nil)
		callee.register("com.x", nil)
		c := join(t, r.Gate(), "realm1", nil)
		c.send(&wamp.Call{Request: 7, Options: wamp.Dict{}, Procedure: "com.x"})
		c.send(&wamp.Call{Request: 7, Options: wamp.Dict{}, Procedure: "com.x"})
		c.expectAbort(wamp.ErrProtocolViolation)
	})
}

// TestNullOptionsAreAbsent: an option whose value is null counts as not
// given, as wampy.js sends unset options over MessagePack and CBOR (a
// JavaScript undefined), in HELLO, SUBSCRIBE, REGISTER, CALL and PUBLISH;
// but a null eligible list of PUBLISH is refused.
func TestNullOptionsAreAbsent(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		details := clientRoles()
		details["authid"], details["authmethods"] = nil, nil
		c := join(t, r.Gate(), "realm1", details)
		if c.wel.Details["authmethod"] != "anonymous" {
			t.Errorf("WELCOME %v", c.wel.Details)
		}
		c.subscribe("com.t", wamp.Dict{"match": nil, "get_retained": nil})
		c.register("com.p", wamp.Dict{"match": nil, "invoke": nil})
		c.publish("com.t", wamp.Dict{"acknowledge": true, "exclude_me": nil, "exclude": nil, "exclude_authid": nil, "retain": nil, "disclose_me": nil})
		expect[*wamp.Published](c)
		for _, k := range []string{"eligible", "eligible_authid", "eligible_authrole"} {
			// null would mean everyone: refused rather than read as absent.
			c.publish("com.t", wamp.Dict{"acknowledge": true, k: nil})
			c.expectError(wamp.ErrInvalidArgument)
		}
		c.call("com.p", wamp.Dict{"timeout": nil, "receive_progress": nil, "disclose_me": nil})
		inv := expect[*wamp.Invocation](c)
		c.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{"progress": nil}})
		expect[*wamp.Result](c)
		c.quiet()
	})
}
