package router

import (
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// callKw sends a CALL with positional and keyword arguments; it returns
// the request ID.
func (c *client) callKw(proc wamp.URI, args wamp.List, kwargs wamp.Dict) wamp.ID {
	req := c.nextReq()
	c.send(&wamp.Call{Request: req, Options: wamp.Dict{}, Procedure: proc, Args: args, Kwargs: wamp.ObjectOf(kwargs)})
	return req
}

// result calls proc and returns the RESULT's first argument (nil if none).
func (c *client) result(proc wamp.URI, args wamp.List, kwargs wamp.Dict) any {
	c.t.Helper()
	req := c.callKw(proc, args, kwargs)
	r := expect[*wamp.Result](c)
	if r.Request != req {
		c.t.Fatalf("RESULT for request %d, want %d", r.Request, req)
	}
	if len(r.Args) == 0 {
		return nil
	}
	return r.Args[0]
}

// callFails calls proc and checks that it fails with uri.
func (c *client) callFails(proc wamp.URI, args wamp.List, kwargs wamp.Dict, uri wamp.URI) {
	c.t.Helper()
	req := c.callKw(proc, args, kwargs)
	if e := c.expectError(uri); e.Request != req || e.RequestType != wamp.TypeCall {
		c.t.Fatalf("ERROR %+v for request %d", e, req)
	}
}

// expectEvent receives an EVENT of subscription sub and returns its
// arguments.
func (c *client) expectEvent(sub wamp.ID) wamp.List {
	c.t.Helper()
	ev := expect[*wamp.Event](c)
	if ev.Subscription != sub {
		c.t.Fatalf("EVENT of subscription %d %v, want %d", ev.Subscription, ev.Args, sub)
	}
	return ev.Args
}

// leave sends GOODBYE, expects the router's reply and waits for the end.
func (c *client) leave() {
	c.t.Helper()
	c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
	expect[*wamp.Goodbye](c)
	c.waitDone()
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func TestMetaDisabled(t *testing.T) {
	opts := Options{Realms: []RealmOptions{{Name: "realm1", DisableMetaAPI: true}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		features := a.wel.Details["roles"].(wamp.Dict)["dealer"].(wamp.Dict)["features"].(wamp.Dict)
		if features["session_meta_api"] != nil || features["testament_meta_api"] != nil {
			t.Errorf("meta features announced: %v", features)
		}
		a.subscribe(topicSessionOnJoin, nil)
		for _, proc := range []wamp.URI{"wamp.session.count", "wamp.registration.list", "wamp.subscription.list", "wamp.session.add_testament"} {
			a.callFails(proc, nil, nil, wamp.ErrNoSuchProcedure)
		}
		join(t, r.Gate(), "realm1", nil)
		a.quiet() // no on_join
	})
}

func TestMetaAuthorization(t *testing.T) {
	deny := authzFunc(func(_ *auth.Identity, a auth.Action, uri wamp.URI) auth.Permission {
		return auth.Permission{Allow: uri != "wamp.session.kill" && uri != topicSessionOnLeave}
	})
	opts := Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: deny}}}
	bubble(t, opts, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		b := join(t, r.Gate(), "realm1", nil)
		a.callFails("wamp.session.kill", wamp.List{uint64(b.id)}, nil, wamp.ErrNotAuthorized)
		a.send(&wamp.Subscribe{Request: a.nextReq(), Options: wamp.Dict{}, Topic: topicSessionOnLeave})
		a.expectError(wamp.ErrNotAuthorized)
		equal(t, "count", a.result("wamp.session.count", nil, nil), 2)
	})
}

func TestMetaInvalidArguments(t *testing.T) {
	tests := []struct {
		proc   wamp.URI
		args   wamp.List
		kwargs wamp.Dict
		want   wamp.URI
	}{
		{"wamp.session.count", wamp.List{"user"}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.count", wamp.List{[]any{1}}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.count", wamp.List{nil, 2}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.count", nil, wamp.Dict{"nope": 1}, wamp.ErrInvalidArgument},
		{"wamp.session.list", wamp.List{[]any{"a"}}, wamp.Dict{"filter_authroles": []any{"a"}}, wamp.ErrInvalidArgument},
		{"wamp.session.get", nil, nil, wamp.ErrInvalidArgument},
		{"wamp.session.get", wamp.List{"1"}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.get", wamp.List{-1}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.get", wamp.List{1.5}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.get", wamp.List{1, 2}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.kill", wamp.List{"x"}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.kill", wamp.List{1}, wamp.Dict{"reason": 3}, wamp.ErrInvalidArgument},
		{"wamp.session.kill", wamp.List{1}, wamp.Dict{"message": false}, wamp.ErrInvalidArgument},
		{"wamp.session.kill", wamp.List{1}, wamp.Dict{"reason": "not a uri!"}, wamp.ErrInvalidURI},
		{"wamp.session.kill_by_authid", nil, nil, wamp.ErrInvalidArgument},
		{"wamp.session.kill_by_authid", wamp.List{7}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.kill_by_authrole", wamp.List{"r"}, wamp.Dict{"reason": ""}, wamp.ErrInvalidURI},
		{"wamp.session.add_testament", nil, nil, wamp.ErrInvalidArgument},
		{"wamp.session.add_testament", wamp.List{"com.t", "x"}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.add_testament", wamp.List{"com.t", nil, []any{}}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.add_testament", wamp.List{"com.t"}, wamp.Dict{"publish_options": "x"}, wamp.ErrInvalidArgument},
		{"wamp.session.add_testament", wamp.List{"com.t"}, wamp.Dict{"publish_options": wamp.Dict{"exclude": "x"}}, wamp.ErrInvalidArgument},
		{"wamp.session.add_testament", wamp.List{"com.t"}, wamp.Dict{"publish_options": wamp.Dict{"retain": 1}}, wamp.ErrInvalidArgument},
		{"wamp.session.add_testament", wamp.List{"com.t"}, wamp.Dict{"scope": "forever"}, wamp.ErrInvalidArgument},
		{"wamp.session.add_testament", wamp.List{"com..t"}, nil, wamp.ErrInvalidURI},
		{"wamp.session.add_testament", wamp.List{"wamp.session.on_leave"}, nil, wamp.ErrInvalidURI},
		{"wamp.session.flush_testaments", wamp.List{1}, nil, wamp.ErrInvalidArgument},
		{"wamp.session.flush_testaments", nil, wamp.Dict{"scope": "x"}, wamp.ErrInvalidArgument},
		{"wamp.registration.list", wamp.List{1}, nil, wamp.ErrInvalidArgument},
		{"wamp.registration.lookup", nil, nil, wamp.ErrInvalidArgument},
		{"wamp.registration.lookup", wamp.List{"com.p", "exact"}, nil, wamp.ErrInvalidArgument},
		{"wamp.registration.lookup", wamp.List{"com.p", wamp.Dict{"match": "fuzzy"}}, nil, wamp.ErrInvalidArgument},
		{"wamp.registration.lookup", wamp.List{"com..p"}, nil, wamp.ErrInvalidURI},
		{"wamp.registration.match", wamp.List{3}, nil, wamp.ErrInvalidArgument},
		{"wamp.registration.get", wamp.List{"1"}, nil, wamp.ErrInvalidArgument},
		{"wamp.registration.get", wamp.List{12345}, nil, wamp.ErrNoSuchRegistration},
		{"wamp.registration.list_callees", nil, nil, wamp.ErrInvalidArgument},
		{"wamp.registration.list_callees", wamp.List{12345}, nil, wamp.ErrNoSuchRegistration},
		{"wamp.registration.count_callees", wamp.List{12345}, nil, wamp.ErrNoSuchRegistration},
		{"wamp.subscription.list", nil, wamp.Dict{"session": 1}, wamp.ErrInvalidArgument},
		{"wamp.subscription.lookup", wamp.List{"com.t", nil, 3}, nil, wamp.ErrInvalidArgument},
		{"wamp.subscription.match", nil, nil, wamp.ErrInvalidArgument},
		{"wamp.subscription.get", wamp.List{true}, nil, wamp.ErrInvalidArgument},
		{"wamp.subscription.get", wamp.List{12345}, nil, wamp.ErrNoSuchSubscription},
		{"wamp.subscription.list_subscribers", wamp.List{12345}, nil, wamp.ErrNoSuchSubscription},
		{"wamp.subscription.count_subscribers", wamp.List{12345}, nil, wamp.ErrNoSuchSubscription},
	}
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		for _, tt := range tests {
			c.callFails(tt.proc, tt.args, tt.kwargs, tt.want)
		}
		equal(t, "count after bad calls", c.result("wamp.session.count", nil, nil), 1)
	})
}
