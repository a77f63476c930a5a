package router

import (
	"bytes"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// pptRoles are HELLO details announcing payload_passthru_mode for every
// role (and call_canceling, as clientRoles).
func pptHello() wamp.Dict {
	f := map[string]any{"features": map[string]any{"payload_passthru_mode": true, "call_canceling": true}}
	return wamp.Dict{"roles": map[string]any{"caller": f, "callee": f, "publisher": f, "subscriber": f}}
}

var secret = []byte{0, 1, 2, 0xff}

func encOpts() wamp.Dict {
	return wamp.Dict{"enc_algo": "cryptobox", "enc_key": "k1", "enc_serializer": "json"}
}

func pptOpts() wamp.Dict {
	return wamp.Dict{"ppt_scheme": "wamp", "ppt_serializer": "cbor", "ppt_cipher": "xsalsa20poly1305", "ppt_keyid": "0xab"}
}

// hasOpts reports whether d holds every entry of want.
func hasOpts(d, want wamp.Dict) bool {
	for k, v := range want {
		if d[k] != v {
			return false
		}
	}
	return true
}

// TestPassthruPublish: a passthru payload reaches the subscriber as it
// came, in both forms, with its options as EVENT details; so does a
// retained one.
func TestPassthruPublish(t *testing.T) {
	tests := []struct {
		name string
		opts wamp.Dict
		p    wamp.Payload
	}{
		{"crossbar form", encOpts(), wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"mqtt, no key", wamp.Dict{"enc_algo": "mqtt"}, wamp.Payload{Raw: wamp.NewPassthru([]byte{})}},
		{"spec form", pptOpts(), wamp.Payload{Args: wamp.List{secret}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				sub := join(t, r.Gate(), "realm1", pptHello())
				sid := sub.subscribe("com.t", nil)
				pub := join(t, r.Gate(), "realm1", pptHello())
				opts := wamp.Dict{"acknowledge": true, "retain": true}
				for k, v := range tt.opts {
					opts[k] = v
				}
				pub.send(&wamp.Publish{Request: pub.nextReq(), Options: opts, Topic: "com.t", Args: tt.p.Args, Raw: tt.p.Raw})
				expect[*wamp.Published](pub)
				checkPassthruEvent(t, expect[*wamp.Event](sub), sid, tt.opts, tt.p)
				late := join(t, r.Gate(), "realm1", pptHello())
				lid := late.subscribe("com.t", wamp.Dict{"get_retained": true})
				checkPassthruEvent(t, expect[*wamp.Event](late), lid, tt.opts, tt.p)
			})
		})
	}
}

func checkPassthruEvent(t *testing.T, ev *wamp.Event, sub wamp.ID, opts wamp.Dict, p wamp.Payload) {
	t.Helper()
	if ev.Subscription != sub || !hasOpts(ev.Details, opts) {
		t.Errorf("EVENT %+v, want details holding %v", ev, opts)
	}
	got := wamp.PayloadOf(ev)
	if want := p.Passthru(); want != nil && (got.Passthru() == nil || !bytes.Equal(got.Passthru(), want) || got.Args != nil) {
		t.Errorf("EVENT payload %+v, want passthru %x", got, want)
	}
	if p.Args != nil && (len(got.Args) != 1 || !bytes.Equal(got.Args[0].([]byte), p.Args[0].([]byte))) {
		t.Errorf("EVENT payload %+v, want %v", got, p.Args)
	}
}

// TestPassthruCall: CALL -> INVOCATION -> YIELD -> RESULT, and a callee's
// ERROR, carry passthru payloads and their options.
func TestPassthruCall(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		callee := join(t, r.Gate(), "realm1", pptHello())
		callee.register("com.p", nil)
		caller := join(t, r.Gate(), "realm1", pptHello())
		req := caller.nextReq()
		caller.send(&wamp.Call{Request: req, Options: encOpts(), Procedure: "com.p", Raw: wamp.NewPassthru(secret)})
		inv := expect[*wamp.Invocation](callee)
		if !bytes.Equal(wamp.PayloadOf(inv).Passthru(), secret) || !hasOpts(inv.Details, encOpts()) {
			t.Errorf("INVOCATION %+v", inv)
		}
		callee.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{"enc_algo": "xbr"}, Raw: wamp.NewPassthru([]byte("r"))})
		res := expect[*wamp.Result](caller)
		if res.Request != req || string(wamp.PayloadOf(res).Passthru()) != "r" || res.Details["enc_algo"] != "xbr" {
			t.Errorf("RESULT %+v", res)
		}

		req = caller.nextReq()
		caller.send(&wamp.Call{Request: req, Options: pptOpts(), Procedure: "com.p", Args: wamp.List{secret}})
		inv = expect[*wamp.Invocation](callee)
		if !hasOpts(inv.Details, pptOpts()) || len(inv.Args) != 1 {
			t.Errorf("INVOCATION %+v", inv)
		}
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: pptOpts(), Error: "com.err", Args: wamp.List{[]byte("e")}})
		e := caller.expectError("com.err")
		if e.Request != req || !hasOpts(e.Details, pptOpts()) || len(e.Args) != 1 {
			t.Errorf("ERROR %+v", e)
		}
	})
}

// TestPassthruInvalid: invalid combinations of options and payload get
// ERROR wamp.error.invalid_argument (the CALL, the acknowledged PUBLISH;
// the caller, for a callee's YIELD or ERROR).
func TestPassthruInvalid(t *testing.T) {
	tests := []struct {
		name string
		opts wamp.Dict
		p    wamp.Payload
	}{
		{"enc_algo with arguments", wamp.Dict{"enc_algo": "mqtt"}, wamp.Payload{Args: wamp.List{1}}},
		{"enc_key alone", wamp.Dict{"enc_key": "k"}, wamp.Payload{}},
		{"binary without enc_algo", wamp.Dict{}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"unknown enc_algo", wamp.Dict{"enc_algo": "rot13"}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"custom enc_algo too short", wamp.Dict{"enc_algo": "x_a"}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"enc_algo not a string", wamp.Dict{"enc_algo": 1}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"enc_key not a string", wamp.Dict{"enc_algo": "mqtt", "enc_key": 1}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"unknown enc_serializer", wamp.Dict{"enc_algo": "mqtt", "enc_serializer": "xml"}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"forms mixed", wamp.Dict{"enc_algo": "mqtt", "ppt_scheme": "mqtt"}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"ppt_scheme with a binary payload", wamp.Dict{"ppt_scheme": "mqtt"}, wamp.Payload{Raw: wamp.NewPassthru(secret)}},
		{"ppt_scheme empty", wamp.Dict{"ppt_scheme": ""}, wamp.Payload{Args: wamp.List{secret}}},
		{"ppt_cipher alone", wamp.Dict{"ppt_cipher": "aes256gcm"}, wamp.Payload{Args: wamp.List{secret}}},
		{"ppt_keyid not a string", wamp.Dict{"ppt_scheme": "wamp", "ppt_keyid": 3}, wamp.Payload{Args: wamp.List{secret}}},
		{"ppt with two arguments", wamp.Dict{"ppt_scheme": "mqtt"}, wamp.Payload{Args: wamp.List{secret, secret}}},
		{"ppt with a string", wamp.Dict{"ppt_scheme": "mqtt"}, wamp.Payload{Args: wamp.List{"s"}}},
		{"ppt with kwargs", wamp.Dict{"ppt_scheme": "mqtt"}, wamp.Payload{Args: wamp.List{secret}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": 1})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, Options{}, func(t *testing.T, r *Router) {
				callee := join(t, r.Gate(), "realm1", pptHello())
				callee.register("com.p", nil)
				c := join(t, r.Gate(), "realm1", pptHello())
				opts := wamp.Dict{"acknowledge": true}
				for k, v := range tt.opts {
					opts[k] = v
				}
				c.send(&wamp.Publish{Request: c.nextReq(), Options: opts, Topic: "com.t", Args: tt.p.Args, Kwargs: tt.p.Kwargs, Raw: tt.p.Raw})
				c.expectError(wamp.ErrInvalidArgument)
				c.send(&wamp.Call{Request: c.nextReq(), Options: tt.opts, Procedure: "com.p", Args: tt.p.Args, Kwargs: tt.p.Kwargs, Raw: tt.p.Raw})
				c.expectError(wamp.ErrInvalidArgument)
				for _, answer := range []func(req wamp.ID) wamp.Message{
					func(req wamp.ID) wamp.Message {
						return &wamp.Yield{Request: req, Options: tt.opts, Args: tt.p.Args, Kwargs: tt.p.Kwargs, Raw: tt.p.Raw}
					},
					func(req wamp.ID) wamp.Message {
						return &wamp.Error{RequestType: wamp.TypeInvocation, Request: req, Details: tt.opts, Error: "com.e", Args: tt.p.Args, Kwargs: tt.p.Kwargs, Raw: tt.p.Raw}
					},
				} {
					req := c.call("com.p", nil)
					inv := expect[*wamp.Invocation](callee)
					callee.send(answer(inv.Request))
					if e := c.expectError(wamp.ErrInvalidArgument); e.Request != req || len(e.Args) != 1 ||
						!strings.HasPrefix(e.Args[0].(string), "the callee's answer: ") {
						t.Errorf("ERROR %+v for call %d", e, req)
					}
				}
				c.quiet()
				callee.quiet()
			})
		})
	}
}

// TestPassthruAnnouncement: the specification's form needs the feature
// payload_passthru_mode: from a client that did not announce it, a
// protocol violation; to a callee that did not, feature_not_supported.
// Crossbar's form needs nothing (Crossbar checks nothing).
func TestPassthruAnnouncement(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		plain := join(t, r.Gate(), "realm1", nil)
		plain.register("com.p", nil)
		c := join(t, r.Gate(), "realm1", pptHello())
		c.send(&wamp.Call{Request: c.nextReq(), Options: pptOpts(), Procedure: "com.p", Args: wamp.List{secret}})
		c.expectError(wamp.ErrFeatureNotSupported)
		c.send(&wamp.Call{Request: c.nextReq(), Options: encOpts(), Procedure: "com.p", Raw: wamp.NewPassthru(secret)})
		if inv := expect[*wamp.Invocation](plain); !bytes.Equal(wamp.PayloadOf(inv).Passthru(), secret) {
			t.Errorf("INVOCATION %+v", inv)
		}
		// A callee's answer in the specification's form to a caller that
		// did not announce the feature: feature_not_supported, for the
		// caller.
		callee := join(t, r.Gate(), "realm1", pptHello())
		callee.register("com.q", nil)
		u := join(t, r.Gate(), "realm1", nil)
		for _, answer := range []func(req wamp.ID) wamp.Message{
			func(req wamp.ID) wamp.Message {
				return &wamp.Yield{Request: req, Options: pptOpts(), Args: wamp.List{secret}}
			},
			func(req wamp.ID) wamp.Message {
				return &wamp.Error{RequestType: wamp.TypeInvocation, Request: req, Details: pptOpts(), Error: "com.e", Args: wamp.List{secret}}
			},
		} {
			req := u.call("com.q", nil)
			callee.send(answer(expect[*wamp.Invocation](callee).Request))
			if e := u.expectError(wamp.ErrFeatureNotSupported); e.Request != req {
				t.Errorf("ERROR %+v for call %d", e, req)
			}
		}
		for _, m := range []wamp.Message{
			&wamp.Publish{Request: 1, Options: pptOpts(), Topic: "com.t", Args: wamp.List{secret}},
			&wamp.Call{Request: 2, Options: pptOpts(), Procedure: "com.p", Args: wamp.List{secret}},
		} {
			u := join(t, r.Gate(), "realm1", nil)
			u.send(m)
			u.expectAbort(wamp.ErrProtocolViolation)
		}
	})
}

// TestWelcomeAnnouncesPassthru: both names of the feature, for the
// broker and the dealer.
func TestWelcomeAnnouncesPassthru(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		roles := c.wel.Details["roles"].(wamp.Dict)
		for _, role := range []string{"broker", "dealer"} {
			f := roles[role].(wamp.Dict)["features"].(wamp.Dict)
			if f["payload_transparency"] != true || f["payload_passthru_mode"] != true {
				t.Errorf("%s features %v", role, f)
			}
		}
	})
}

func TestEncName(t *testing.T) {
	for s, want := range map[string]bool{
		"mqtt": true, "cryptobox": true, "xbr": true, "x_": true, "x_my_algo2": true, "x_ab": true,
		"": false, "x_a": false, "x_A1": false, "x_1a": false, "x_my-algo": false, "MQTT": false, "y_ab": false,
	} {
		if got := encName(s, encAlgos); got != want {
			t.Errorf("encName(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestPassthruHistory: the event history keeps a passthru payload as its
// bytes ("payload") with its options.
func TestPassthruHistory(t *testing.T) {
	bubble(t, historyRealm(Limits{}, EventHistory{Topic: "com.h", Limit: 3}), func(t *testing.T, r *Router) {
		a := ticketJoin(t, r.Gate(ticketAuth{role: "user"}), "realm1", "alice")
		sub := a.lookup("com.h", "exact")
		opts := encOpts()
		opts["acknowledge"] = true
		a.send(&wamp.Publish{Request: a.nextReq(), Options: opts, Topic: "com.h", Raw: wamp.NewPassthru(secret)})
		expect[*wamp.Published](a)
		items := a.result("wamp.subscription.get_events", wamp.List{sub, 1}, nil).(wamp.List)
		item := items[0].(wamp.Dict)
		if !bytes.Equal(item["payload"].([]byte), secret) || !hasOpts(item, encOpts()) || item["args"] != nil {
			t.Errorf("history item %v", item)
		}
	})
}

// TestFabricPassthru: in a cluster, passthru payloads and their options
// cross nodes: an event (retained too), CALL -> INVOCATION -> YIELD ->
// RESULT and a callee's ERROR; a call in the specification's form to a
// callee on another node that did not announce the feature gets
// feature_not_supported.
func TestFabricPassthru(t *testing.T) {
	cluster(t, 2, Options{}, func(t *testing.T, rs []*Router, ns []*evNode) {
		sub := join(t, rs[1].Gate(), "realm1", pptHello())
		sid := sub.subscribe("com.t", nil)
		pub := join(t, rs[0].Gate(), "realm1", pptHello())
		opts := encOpts()
		opts["retain"] = true
		pub.send(&wamp.Publish{Request: pub.nextReq(), Options: opts, Topic: "com.t", Raw: wamp.NewPassthru(secret)})
		p := wamp.Payload{Raw: wamp.NewPassthru(secret)}
		checkPassthruEvent(t, expect[*wamp.Event](sub), sid, encOpts(), p)
		late := join(t, rs[1].Gate(), "realm1", nil)
		lid := late.subscribe("com.t", wamp.Dict{"get_retained": true})
		checkPassthruEvent(t, expect[*wamp.Event](late), lid, encOpts(), p)
	})
	linked(t, func(t *testing.T, c *fakeCluster, r1, r2 *Router) {
		callee := join(t, r1.Gate(), "realm1", nil)
		callee.register("com.p", nil)
		caller := join(t, r2.Gate(), "realm1", pptHello())
		req := caller.nextReq()
		caller.send(&wamp.Call{Request: req, Options: encOpts(), Procedure: "com.p", Raw: wamp.NewPassthru(secret)})
		inv := expect[*wamp.Invocation](callee)
		if !bytes.Equal(wamp.PayloadOf(inv).Passthru(), secret) || !hasOpts(inv.Details, encOpts()) {
			t.Errorf("INVOCATION %+v", inv)
		}
		callee.send(&wamp.Yield{Request: inv.Request, Options: encOpts(), Raw: wamp.NewPassthru([]byte("r"))})
		if res := expect[*wamp.Result](caller); res.Request != req || string(wamp.PayloadOf(res).Passthru()) != "r" || !hasOpts(res.Details, encOpts()) {
			t.Errorf("RESULT %+v", res)
		}
		req = caller.call("com.p", nil)
		inv = expect[*wamp.Invocation](callee)
		callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv.Request, Details: encOpts(), Error: "com.e", Raw: wamp.NewPassthru([]byte("e"))})
		if e := caller.expectError("com.e"); e.Request != req || string(wamp.PayloadOf(e).Passthru()) != "e" || !hasOpts(e.Details, encOpts()) {
			t.Errorf("ERROR %+v", e)
		}
		caller.send(&wamp.Call{Request: caller.nextReq(), Options: pptOpts(), Procedure: "com.p", Args: wamp.List{secret}})
		caller.expectError(wamp.ErrFeatureNotSupported)
		callee.quiet()
	})
}
