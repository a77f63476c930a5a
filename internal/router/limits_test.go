package router

import (
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"weak"

	"github.com/junction-wamp/junction/internal/wamp"
)

// limitRealm is Options with realm "realm1" limited by lim, logging to
// logs.
func limitRealm(lim Limits, logs *recordHandler) Options {
	return Options{Realms: []RealmOptions{{Name: "realm1", Limits: lim}}, Logger: slog.New(logs)}
}

// expectRefused receives ERROR junction.error.limit_exceeded for request
// req of type typ.
func (c *client) expectRefused(typ wamp.MessageType, req wamp.ID) {
	c.t.Helper()
	if e := c.expectError(wamp.ErrLimitExceeded); e.RequestType != typ || e.Request != req {
		c.t.Fatalf("ERROR %+v, want for %s request %d", e, typ, req)
	}
}

// checkRefusals checks the realm's refusal count and that they were
// logged once (the log is rate-limited and time stands still in the
// bubble).
func checkRefusals(t *testing.T, r *Router, logs *recordHandler, want uint64) {
	t.Helper()
	if n := r.Stats().Realms["realm1"].LimitRefusals; n != want {
		t.Errorf("LimitRefusals = %d, want %d", n, want)
	}
	if n := logs.count("limit exceeded"); n != 1 {
		t.Errorf("%d limit exceeded lines, want 1", n)
	}
}

// sessionLimit is a limit per session of F11: hold sends the request
// that makes c hold one more, accepted checks its success and returns
// what release needs to give it back.
type sessionLimit struct {
	name     string
	lim      Limits
	typ      wamp.MessageType
	hold     func(c *client, i int) wamp.ID
	accepted func(c, callee *client) wamp.ID
	release  func(c, callee *client, held wamp.ID)
}

var sessionLimits = []sessionLimit{
	{
		name: "subscriptions", lim: Limits{SubscriptionsPerSession: 50}, typ: wamp.TypeSubscribe,
		hold: func(c *client, i int) wamp.ID {
			req := c.nextReq()
			c.send(&wamp.Subscribe{Request: req, Options: wamp.Dict{}, Topic: wamp.URI(fmt.Sprintf("com.t.%d", i))})
			return req
		},
		accepted: func(c, _ *client) wamp.ID { return expect[*wamp.Subscribed](c).Subscription },
		release: func(c, _ *client, sub wamp.ID) {
			c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: sub})
			expect[*wamp.Unsubscribed](c)
		},
	},
	{
		name: "registrations", lim: Limits{RegistrationsPerSession: 50}, typ: wamp.TypeRegister,
		hold: func(c *client, i int) wamp.ID {
			req := c.nextReq()
			c.send(&wamp.Register{Request: req, Options: wamp.Dict{}, Procedure: wamp.URI(fmt.Sprintf("com.p.%d", i))})
			return req
		},
		accepted: func(c, _ *client) wamp.ID { return expect[*wamp.Registered](c).Registration },
		release: func(c, _ *client, reg wamp.ID) {
			c.send(&wamp.Unregister{Request: c.nextReq(), Registration: reg})
			expect[*wamp.Unregistered](c)
		},
	},
	{
		// The attack of F11 (docs/SECURITY.md): calls to a callee that never yields.
		name: "calls in flight", lim: Limits{CallsInFlightPerSession: 50}, typ: wamp.TypeCall,
		hold:     func(c *client, i int) wamp.ID { return c.call("com.slow", nil, i) },
		accepted: func(_, callee *client) wamp.ID { return expect[*wamp.Invocation](callee).Request },
		release: func(c, callee *client, inv wamp.ID) {
			callee.send(&wamp.Yield{Request: inv, Options: wamp.Dict{}})
			expect[*wamp.Result](c)
		},
	},
}

// TestSessionLimits runs F11's floods (docs/SECURITY.md) scaled down: a session
// is refused at its limit and not before, may go on once it holds one
// less, and the node's own sessions (an Internal gate) are exempt.
func TestSessionLimits(t *testing.T) {
	const max = 50
	for _, tt := range sessionLimits {
		t.Run(tt.name, func(t *testing.T) {
			logs := &recordHandler{}
			bubble(t, limitRealm(tt.lim, logs), func(t *testing.T, r *Router) {
				callee := join(t, r.Gate(), "realm1", nil)
				callee.register("com.slow", nil)
				c := join(t, r.Gate(), "realm1", nil)
				var held []wamp.ID
				for i := range max {
					tt.hold(c, i)
					held = append(held, tt.accepted(c, callee))
				}
				c.expectRefused(tt.typ, tt.hold(c, max))
				tt.release(c, callee, held[0])
				tt.hold(c, max+1)
				tt.accepted(c, callee)
				c.quiet()

				own := join(t, internalGate(r), "realm1", nil)
				for i := range max + 1 {
					tt.hold(own, 1000+i)
					tt.accepted(own, callee)
				}
				own.quiet()
				checkRefusals(t, r, logs, 1)
			})
		})
	}
}

func TestSubscribeAgainAtLimit(t *testing.T) {
	bubble(t, limitRealm(Limits{SubscriptionsPerSession: 1}, &recordHandler{}), func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		id := c.subscribe("com.a", nil)
		if again := c.subscribe("com.a", nil); again != id {
			t.Errorf("subscribed again: %d, want %d", again, id)
		}
		other := join(t, r.Gate(), "realm1", nil)
		other.subscribe("com.b", nil) // a subscription of its own
		c.send(&wamp.Subscribe{Request: 9, Options: wamp.Dict{}, Topic: "com.b"})
		c.expectRefused(wamp.TypeSubscribe, 9)
	})
}

// retainedPayload is what each retained publication of the tests carries:
// they all have the same size, retainedSize.
var retainedPayload = strings.Repeat("R", 1000)

func retainedSize(t *testing.T) int {
	opts := wamp.Dict{"retain": true, "acknowledge": true}
	size := payloadSize("com.r.0", wamp.List{retainedPayload}, nil, opts)
	if size < 1000 {
		t.Fatalf("payloadSize %d", size)
	}
	return size
}

// TestRetainedLimits runs F5's flood of retained events on
// distinct topics (docs/SECURITY.md), scaled down, against each limit: 3 fit, the 4th
// is refused as a whole (not delivered), acknowledged or not; a
// replacement no bigger passes. The limits per session bind the node's
// own sessions too (the bridge's Publisher carries HTTP clients'
// retain), and leave the realm's room to the other sessions.
func TestRetainedLimits(t *testing.T) {
	size := retainedSize(t)
	tests := []struct {
		name       string
		lim        Limits
		perSession bool
		internal   bool
	}{
		{"events per realm", Limits{RetainedEventsPerRealm: 3}, false, false},
		{"bytes per realm", Limits{RetainedBytesPerRealm: 3 * size}, false, false},
		{"events per session", Limits{RetainedEventsPerSession: 3}, true, false},
		{"bytes per session", Limits{RetainedBytesPerSession: 3*size + size/2}, true, false},
		{"events per session, internal gate", Limits{RetainedEventsPerSession: 3}, true, true},
		{"bytes per realm, internal gate", Limits{RetainedBytesPerRealm: 3 * size}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &recordHandler{}
			bubble(t, limitRealm(tt.lim, logs), func(t *testing.T, r *Router) {
				sub := join(t, r.Gate(), "realm1", nil)
				all := sub.subscribe("com.r.", wamp.Dict{"match": "prefix"})
				g := r.Gate()
				if tt.internal {
					g = internalGate(r)
				}
				a, b := join(t, g, "realm1", nil), join(t, g, "realm1", nil)
				pubs := []*client{a, b} // the realm's limits: both publish
				if tt.perSession {
					pubs = []*client{a}
				}
				retain := func(c *client, i int, ack bool) wamp.ID {
					return c.publish(wamp.URI(fmt.Sprintf("com.r.%d", i)), wamp.Dict{"retain": true, "acknowledge": ack}, retainedPayload)
				}
				for i := range 3 {
					p := pubs[i%len(pubs)]
					retain(p, i, true)
					expect[*wamp.Published](p)
					sub.expectEvent(all)
				}
				a.expectRefused(wamp.TypePublish, retain(a, 3, true))
				retain(a, 4, false) // dropped, counted, logged
				retain(a, 0, true)  // a's own topic (realm: a published 0 and 2)
				expect[*wamp.Published](a)
				if ev := expect[*wamp.Event](sub); ev.Subscription != all || ev.Details["topic"] != "com.r.0" {
					t.Errorf("EVENT %+v, want the replacement on com.r.0", ev)
				}
				sub.quiet() // nothing of 3 or 4
				if tt.perSession {
					retain(b, 5, true) // the realm has room for b
					expect[*wamp.Published](b)
				}
				checkRefusals(t, r, logs, 2)
			})
		})
	}
}

// TestRetainedShares: a session's share follows its events: an event
// replaced by another session's no longer counts for it, and its share
// goes when it leaves while its events stay.
func TestRetainedShares(t *testing.T) {
	bubble(t, limitRealm(Limits{RetainedEventsPerSession: 2}, &recordHandler{}), func(t *testing.T, r *Router) {
		a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
		ack := wamp.Dict{"retain": true, "acknowledge": true}
		for _, topic := range []wamp.URI{"com.a", "com.b"} {
			a.publish(topic, ack, 1)
			expect[*wamp.Published](a)
		}
		a.expectRefused(wamp.TypePublish, a.publish("com.c", ack, 1))
		b.publish("com.a", ack, 2) // now b's
		expect[*wamp.Published](b)
		a.publish("com.c", ack, 3)
		expect[*wamp.Published](a)
		a.leave()

		st := &r.realm("realm1").broker.retained
		st.mu.Lock()
		shares, total := len(st.shares), st.total
		st.mu.Unlock()
		if shares != 1 || total.n != 3 {
			t.Errorf("%d shares (want b's only), realm total %+v (want 3 events)", shares, total)
		}
		late := join(t, r.Gate(), "realm1", nil)
		id := late.subscribe("com.", wamp.Dict{"match": "prefix", "get_retained": true})
		for range 3 {
			late.expectEvent(id)
		}
	})
}

// TestRetainedMemoryReleased: a retained event is freed once replaced,
// and when its realm goes away.
func TestRetainedMemoryReleased(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "realm1", nil)
		ack := wamp.Dict{"retain": true, "acknowledge": true}
		a.publish("com.a", ack, retainedPayload)
		expect[*wamp.Published](a)
		first := retainedWeak(r, "com.a")
		a.publish("com.a", ack, "small")
		expect[*wamp.Published](a)
		if !collected(first) {
			t.Error("replaced retained event not freed")
		}
		st := &r.realm("realm1").broker.retained
		st.mu.Lock()
		total := st.total
		st.mu.Unlock()
		if total != (usage{n: 1, bytes: payloadSize("com.a", wamp.List{"small"}, nil, ack)}) {
			t.Errorf("realm total %+v after the replacement", total)
		}
		last := retainedWeak(r, "com.a")
		r.RemoveRealm("realm1")
		expect[*wamp.Goodbye](a)
		a.waitDone()
		if !collected(last) {
			t.Error("retained event of a removed realm not freed")
		}
	})
}

// retainedWeak returns a weak pointer to topic's retained event.
func retainedWeak(r *Router, topic wamp.URI) weak.Pointer[outEvent] {
	st := &r.realm("realm1").broker.retained
	st.mu.Lock()
	defer st.mu.Unlock()
	return weak.Make(st.events[topic].e)
}

func collected(p weak.Pointer[outEvent]) bool {
	synctest.Wait()
	runtime.GC()
	return p.Value() == nil
}

// testamentPayload makes testaments of testamentSize bytes.
var testamentPayload = strings.Repeat("T", 900)

func testamentSize() int { return payloadSize("com.will", wamp.List{testamentPayload}, nil, nil) }

// TestTestamentLimits runs F5's big testaments (docs/SECURITY.md), scaled down,
// against each limit: 3 fit, the 4th is refused; a flush or a leave gives
// the room back.
func TestTestamentLimits(t *testing.T) {
	size := testamentSize()
	tests := []struct {
		name       string
		lim        Limits
		perSession bool
	}{
		{"testaments per realm", Limits{TestamentsPerRealm: 3}, false},
		{"bytes per realm", Limits{TestamentBytesPerRealm: 3*size + size/2}, false},
		{"testaments per session", Limits{TestamentsPerSession: 3}, true},
		{"bytes per session", Limits{TestamentBytesPerSession: 3 * size}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &recordHandler{}
			bubble(t, limitRealm(tt.lim, logs), func(t *testing.T, r *Router) {
				obs := join(t, r.Gate(), "realm1", nil)
				will := obs.subscribe("com.will", nil)
				a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
				pubs := []*client{a, b} // the realm's limits: a adds 2, b 1
				if tt.perSession {
					pubs = []*client{a}
				}
				args := wamp.List{"com.will", wamp.List{testamentPayload}}
				add := func(c *client, scope string) {
					c.result("wamp.session.add_testament", args, wamp.Dict{"scope": scope})
				}
				for i, scope := range []string{"destroyed", "detached", "destroyed"} {
					add(pubs[i%len(pubs)], scope)
				}
				a.callFails("wamp.session.add_testament", args, nil, wamp.ErrLimitExceeded)
				if tt.perSession {
					add(b, "detached") // the realm has room for b
				}
				equal(t, "flushed", a.result("wamp.session.flush_testaments", nil, nil), 2)
				add(a, "destroyed")
				checkRefusals(t, r, logs, 1)

				b.leave() // publishes b's one testament, gives its room back
				obs.expectEvent(will)
				add(join(t, r.Gate(), "realm1", nil), "destroyed")
				m := r.realm("realm1").hooks.(*metaAPI)
				m.mu.Lock()
				total := m.total
				m.mu.Unlock()
				n := 2 // a's new one and c's
				if tt.perSession {
					n = 3 // and a's detached one
				}
				if total != (usage{n: n, bytes: n * size}) {
					t.Errorf("realm total %+v, want %d testaments of %d bytes", total, n, size)
				}
			})
		})
	}
}

// TestRetainedTestamentOverLimit: a testament that asks for retain past
// the realm's limit is not published; the refusal is counted and logged.
func TestRetainedTestamentOverLimit(t *testing.T) {
	logs := &recordHandler{}
	bubble(t, limitRealm(Limits{RetainedEventsPerRealm: 1}, logs), func(t *testing.T, r *Router) {
		obs := join(t, r.Gate(), "realm1", nil)
		obs.subscribe("com.will", nil)
		full := join(t, r.Gate(), "realm1", nil)
		full.publish("com.full", wamp.Dict{"retain": true, "acknowledge": true})
		expect[*wamp.Published](full)
		a := join(t, r.Gate(), "realm1", nil)
		a.result("wamp.session.add_testament", wamp.List{"com.will", wamp.List{1}, nil, wamp.Dict{"retain": true}}, nil)
		a.leave()
		obs.quiet()
		checkRefusals(t, r, logs, 1)
	})
}
