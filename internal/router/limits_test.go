package router

import (
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
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

// sessionLimit is a limit of F11, per session (lim) and per realm
// (realm): hold sends the request that makes c hold one more, accepted
// checks its success and returns what release needs to give it back;
// held is what the realm's limit counts.
type sessionLimit struct {
	name     string
	lim      Limits
	realm    Limits
	typ      wamp.MessageType
	hold     func(c *client, i int) wamp.ID
	accepted func(c, callee *client) wamp.ID
	release  func(c, callee *client, held wamp.ID)
	held     func(RealmStats) int
}

var sessionLimits = []sessionLimit{
	{
		name: "subscriptions", lim: Limits{SubscriptionsPerSession: 50}, realm: Limits{SubscriptionsPerRealm: 10},
		typ: wamp.TypeSubscribe, held: func(st RealmStats) int { return st.Subscribers },
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
		name: "registrations", lim: Limits{RegistrationsPerSession: 50}, realm: Limits{RegistrationsPerRealm: 10},
		typ: wamp.TypeRegister, held: func(st RealmStats) int { return st.Callees },
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
		name: "calls in flight", lim: Limits{CallsInFlightPerSession: 50}, realm: Limits{CallsInFlightPerRealm: 10},
		typ: wamp.TypeCall, held: func(st RealmStats) int { return st.CallsInFlight },
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

// TestRealmLimits: many sessions, each far under its own limit, are
// refused together at the realm's (F11 scaled out: one client with many
// sessions). The node's own sessions (an Internal gate) are never
// refused, but count: while one holds one more, an outside session that
// gave one back leaves no room.
func TestRealmLimits(t *testing.T) {
	const sessions, each = 5, 2 // the realm's limit: 10
	for _, tt := range sessionLimits {
		t.Run(tt.name, func(t *testing.T) {
			logs := &recordHandler{}
			bubble(t, limitRealm(tt.realm, logs), func(t *testing.T, r *Router) {
				callee := join(t, internalGate(r), "realm1", nil)
				if tt.typ == wamp.TypeCall {
					callee.register("com.slow", nil)
				}
				var holders []*client
				var held []wamp.ID
				for i := range sessions * each {
					if i%each == 0 {
						holders = append(holders, join(t, r.Gate(), "realm1", nil))
					}
					c := holders[len(holders)-1]
					tt.hold(c, i)
					held = append(held, tt.accepted(c, callee))
				}
				late := join(t, r.Gate(), "realm1", nil)
				late.expectRealmRefused(tt.typ, tt.hold(late, 100))

				own := join(t, internalGate(r), "realm1", nil)
				tt.hold(own, 200)
				tt.accepted(own, callee)
				tt.release(holders[0], callee, held[0])
				late.expectRealmRefused(tt.typ, tt.hold(late, 101))
				tt.release(holders[0], callee, held[1])
				tt.hold(late, 102)
				tt.accepted(late, callee)
				late.quiet()
				equal(t, "held in the realm", tt.held(r.Stats().Realms["realm1"]), sessions*each) // own's included
				checkRefusals(t, r, logs, 2)
			})
		})
	}
}

// expectRealmRefused receives the ERROR for request req of type typ
// that a realm's limit refused.
func (c *client) expectRealmRefused(typ wamp.MessageType, req wamp.ID) {
	c.t.Helper()
	e := c.expectError(wamp.ErrLimitExceeded)
	if msg, _ := e.Args[0].(string); e.RequestType != typ || e.Request != req || !strings.HasSuffix(msg, " per realm") {
		c.t.Fatalf("ERROR %+v, want for %s request %d, a limit per realm", e, typ, req)
	}
}

// TestRealmCountsGiveBack: what the realm's limits count goes back to
// zero however sessions let go of it: unsubscribing, unregistering, a
// call answered, failed, canceled in each mode, timed out, its caller or
// callee gone, a session calling itself, and sessions leaving with what
// they hold, long patterns that count more than one included. A count
// that leaked would shrink the realm's room for good.
func TestRealmCountsGiveBack(t *testing.T) {
	wild := wamp.URI("com" + strings.Repeat(".x", 100))
	prefix := wamp.URI("com.long." + strings.Repeat("x", 1000))
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
		for _, c := range []*client{a, b} {
			c.subscribe("com.shared", nil)
			c.subscribe("com.shared", nil) // again: counts once
			c.subscribe(wild, wamp.Dict{"match": "wildcard"})
			c.register("com.rr", wamp.Dict{"invoke": "roundrobin"})
			c.register(prefix, wamp.Dict{"match": "prefix", "invoke": "roundrobin"})
		}
		st := r.Stats().Realms["realm1"]
		equal(t, "subscriptions by weight", st.SubscriptionWeight, 3+subscriptionCost.weight(wild, uriindex.Wildcard))
		equal(t, "registrations by weight", st.RegistrationWeight, 3+registrationCost.weight(prefix, uriindex.Prefix))
		own := a.subscribe("com.own", nil)
		a.send(&wamp.Unsubscribe{Request: a.nextReq(), Subscription: own})
		expect[*wamp.Unsubscribed](a)
		reg := a.register("com.a", nil)
		a.send(&wamp.Unregister{Request: a.nextReq(), Registration: reg})
		expect[*wamp.Unregistered](a)
		a.register("com.slow", nil)
		b.register("com.b", nil)
		caller := join(t, r.Gate(), "realm1", nil)
		endCalls(caller, a)
		checkHeld(t, r, 4, 6, 0)

		caller.call("com.rr", nil) // round robin: a first
		caller.call("com.slow", nil)
		caller.call("com.b", nil)
		a.call("com.slow", nil) // a calls itself
		for range 3 {
			expect[*wamp.Invocation](a)
		}
		expect[*wamp.Invocation](b)
		checkHeld(t, r, 4, 6, 4)
		a.leave() // callee of three calls, caller of one
		checkHeld(t, r, 2, 3, 1)
		caller.expectError(wamp.ErrCanceled)
		caller.expectError(wamp.ErrCanceled)
		caller.leave() // caller of the call to b
		checkHeld(t, r, 2, 3, 0)
		expect[*wamp.Interrupt](b)
		b.leave()
		checkHeld(t, r, 0, 0, 0)
		st = r.Stats().Realms["realm1"]
		if st.SubscriptionWeight != 0 || st.RegistrationWeight != 0 {
			t.Errorf("subscriptions and registrations by weight: %d and %d, want 0", st.SubscriptionWeight, st.RegistrationWeight)
		}
	})
}

// checkHeld checks the subscriptions, registrations and calls in flight
// sessions hold on realm1.
func checkHeld(t *testing.T, r *Router, subs, regs, calls int) {
	t.Helper()
	synctest.Wait()
	st := r.Stats().Realms["realm1"]
	if st.Subscribers != subs || st.Callees != regs || st.CallsInFlight != calls {
		t.Errorf("held %d subscriptions, %d registrations, %d calls in flight; want %d, %d, %d",
			st.Subscribers, st.Callees, st.CallsInFlight, subs, regs, calls)
	}
}

// endCalls makes caller's calls to callee's "com.slow" end every way but
// by a session leaving.
func endCalls(caller, callee *client) {
	invoke := func(opts wamp.Dict) (req, inv wamp.ID) {
		req = caller.call("com.slow", opts)
		return req, expect[*wamp.Invocation](callee).Request
	}
	_, inv := invoke(wamp.Dict{"receive_progress": true})
	callee.send(&wamp.Yield{Request: inv, Options: wamp.Dict{"progress": true}}) // still in flight
	callee.send(&wamp.Yield{Request: inv, Options: wamp.Dict{}})
	expect[*wamp.Result](caller)
	expect[*wamp.Result](caller)
	_, inv = invoke(nil)
	callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv, Details: wamp.Dict{}, Error: "com.failed"})
	caller.expectError("com.failed")
	for _, mode := range []string{"skip", "kill", "killnowait"} {
		req, inv := invoke(nil)
		caller.send(&wamp.Cancel{Request: req, Options: wamp.Dict{"mode": mode}})
		if mode != "skip" {
			expect[*wamp.Interrupt](callee)
		}
		if mode == "kill" {
			callee.send(&wamp.Error{RequestType: wamp.TypeInvocation, Request: inv, Details: wamp.Dict{}, Error: wamp.ErrCanceled})
		}
		caller.expectError(wamp.ErrCanceled)
	}
	invoke(wamp.Dict{"timeout": 1000})
	time.Sleep(2 * time.Second) // fake time, in the bubble: lets the timer's deadline pass
	caller.expectError(wamp.ErrTimeout)
	expect[*wamp.Interrupt](callee)
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
	size := wamp.PayloadSize("com.r.0", wamp.Payload{Args: wamp.List{retainedPayload}}, opts)
	if size < 1000 {
		t.Fatalf("PayloadSize %d", size)
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

// TestRetainedTakeover: a publisher at its share's limit may replace its
// own retained event with one no bigger, but not another session's,
// however small: that would be one more event in its share.
func TestRetainedTakeover(t *testing.T) {
	logs := &recordHandler{}
	bubble(t, limitRealm(Limits{RetainedEventsPerSession: 1}, logs), func(t *testing.T, r *Router) {
		a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
		ack := wamp.Dict{"retain": true, "acknowledge": true}
		a.publish("com.a", ack, "big")
		expect[*wamp.Published](a)
		b.publish("com.b", ack, "big")
		expect[*wamp.Published](b)
		a.publish("com.a", ack, "sm")
		expect[*wamp.Published](a)
		a.expectRefused(wamp.TypePublish, a.publish("com.b", ack, "sm"))
		checkRefusals(t, r, logs, 1)
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
		if total != (usage{n: 1, bytes: wamp.PayloadSize("com.a", wamp.Payload{Args: wamp.List{"small"}}, ack)}) {
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

func testamentSize() int {
	return wamp.PayloadSize("com.will", wamp.Payload{Args: wamp.List{testamentPayload}}, nil)
}

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

// TestSetRealmLimits: new limits hold the requests admitted from then
// on, the URI length and the counts of the sessions already joined
// included; an unknown realm is an error.
func TestSetRealmLimits(t *testing.T) {
	logs := &recordHandler{}
	bubble(t, limitRealm(Limits{SubscriptionsPerSession: 1}, logs), func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		subscribe := func(topic string) wamp.ID {
			req := c.nextReq()
			c.send(&wamp.Subscribe{Request: req, Options: wamp.Dict{}, Topic: wamp.URI(topic)})
			return req
		}
		subscribe("com.a")
		expect[*wamp.Subscribed](c)
		c.expectRefused(wamp.TypeSubscribe, subscribe("com.b"))

		if err := r.SetRealmLimits("realm1", Limits{SubscriptionsPerSession: 2, URIBytesPerPattern: 8}); err != nil {
			t.Fatal(err)
		}
		c.expectRefused(wamp.TypeSubscribe, subscribe("com.longer")) // 10 bytes
		subscribe("com.b")
		expect[*wamp.Subscribed](c)
		c.expectRefused(wamp.TypeSubscribe, subscribe("com.c"))
		c.quiet()
		if err := r.SetRealmLimits("realm2", Limits{}); err == nil {
			t.Error("SetRealmLimits of an unknown realm: no error")
		}
	})
}
