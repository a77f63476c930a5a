package router

import (
	"fmt"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// TestWeight: what typical and realistic URIs count, as the docs say.
func TestWeight(t *testing.T) {
	realistic := string(realisticURI(t))
	tests := []struct {
		uri        string
		m          uriindex.Match
		sub, reg   int
		whatItIsIn string
	}{
		{"com.example.app.item.000000001", uriindex.Exact, 1, 1, "a 30-byte topic"},
		{strings.Repeat("x", 167), uriindex.Exact, 1, 1, "the longest exact URI that counts one"},
		{strings.Repeat("x", 168), uriindex.Exact, 2, 2, "one byte more"},
		{"com.example.", uriindex.Prefix, 1, 1, "a prefix"},
		{strings.Repeat("x", 16), uriindex.Prefix, 1, 1, "the longest prefix that counts one"},
		{"com.example..update", uriindex.Wildcard, 2, 2, "a wildcard of 4 components"},
		{realistic, uriindex.Exact, 2, 2, "a realistic long URI"},
		{realistic, uriindex.Wildcard, 5, 5, "a realistic long wildcard pattern"},
		{strings.Repeat("x", 4096), uriindex.Exact, 11, 10, "the longest URI by default"},
		{strings.Repeat(".", 4095), uriindex.Wildcard, 789, 674, "the longest wildcard pattern by default"},
	}
	for _, tt := range tests {
		sub := subscriptionCost.weight(wamp.URI(tt.uri), tt.m)
		reg := registrationCost.weight(wamp.URI(tt.uri), tt.m)
		if sub != tt.sub || reg != tt.reg {
			t.Errorf("%s (%d bytes, %v): a subscription counts %d, a registration %d; want %d, %d",
				tt.whatItIsIn, len(tt.uri), tt.m, sub, reg, tt.sub, tt.reg)
		}
	}
}

// realisticURI is a realistic long URI: 256 bytes, 16 components.
func realisticURI(t *testing.T) wamp.URI {
	uri := "com.example." + strings.Repeat("abcdefghijklmnopq.", 13) + "abcdefghij"
	if len(uri) != 256 || strings.Count(uri, ".") != 15 {
		t.Fatalf("%d bytes, %d components", len(uri), strings.Count(uri, ".")+1)
	}
	return wamp.URI(uri)
}

// patternKind is subscriptions or registrations, for the tests of their
// weights.
type patternKind struct {
	name   string
	typ    wamp.MessageType
	cost   itemCost
	limits func(perSession, perRealm int) Limits // and no cap on URIs
	msg    func(req wamp.ID, uri wamp.URI, opts wamp.Dict) wamp.Message
	ok     func(c *client)      // receives the request's success
	weight func(RealmStats) int // what the realm's limit counts
}

var patternKinds = []patternKind{
	{
		name: "subscriptions", typ: wamp.TypeSubscribe, cost: subscriptionCost,
		limits: func(s, r int) Limits {
			return Limits{SubscriptionsPerSession: s, SubscriptionsPerRealm: r, URIBytesPerPattern: -1}
		},
		msg: func(req wamp.ID, uri wamp.URI, o wamp.Dict) wamp.Message {
			return &wamp.Subscribe{Request: req, Options: o, Topic: uri}
		},
		ok:     func(c *client) { expect[*wamp.Subscribed](c) },
		weight: func(st RealmStats) int { return st.SubscriptionWeight },
	},
	{
		name: "registrations", typ: wamp.TypeRegister, cost: registrationCost,
		limits: func(s, r int) Limits {
			return Limits{RegistrationsPerSession: s, RegistrationsPerRealm: r, URIBytesPerPattern: -1}
		},
		msg: func(req wamp.ID, uri wamp.URI, o wamp.Dict) wamp.Message {
			return &wamp.Register{Request: req, Options: o, Procedure: uri}
		},
		ok:     func(c *client) { expect[*wamp.Registered](c) },
		weight: func(st RealmStats) int { return st.RegistrationWeight },
	},
}

// send sends the request that makes c hold (uri, match) and returns its
// ID.
func (k patternKind) send(c *client, uri wamp.URI, match string) wamp.ID {
	req := c.nextReq()
	c.send(k.msg(req, uri, wamp.Dict{"match": match}))
	return req
}

// longURI is the i-th of distinct exact URIs of 100 KB.
func longURI(i int) wamp.URI {
	return wamp.URI(fmt.Sprintf("com.long.%03d.", i) + strings.Repeat("x", 100_000))
}

// expectWeighed receives the ERROR for request req of type typ that a
// limit (per session or per realm) refused, saying what it counted.
func (c *client) expectWeighed(typ wamp.MessageType, req wamp.ID, per string, weight int) {
	c.t.Helper()
	e := c.expectError(wamp.ErrLimitExceeded)
	msg, _ := e.Args[0].(string)
	if e.RequestType != typ || e.Request != req || !strings.Contains(msg, " per "+per+" ") ||
		!strings.Contains(msg, fmt.Sprintf("counts as %d,", weight)) {
		c.t.Fatalf("ERROR %+v, want for %s request %d, a limit per %s, counted %d", e, typ, req, per, weight)
	}
}

// TestLongPatternsCount runs F11's long-URI floods (docs/SECURITY.md)
// scaled down, with no cap on a URI's length: subscriptions and
// registrations of 100 KB URIs count for their weight against the
// session's and the realm's limits, so that they are refused when the
// memory they take, not their number, reaches the limit. Counted one
// each, a session could hold its limit of them, and one wildcard pattern
// of 100 KB took 15 MB.
func TestLongPatternsCount(t *testing.T) {
	const limit = 1000
	wildcard := wamp.URI("x" + strings.Repeat(".a", 50_000)) // 100 KB, 50,001 components
	for _, k := range patternKinds {
		w := k.cost.weight(longURI(0), uriindex.Exact)
		fits := limit / w
		t.Run(k.name+", per session", func(t *testing.T) {
			bubble(t, limitRealm(k.limits(limit, -1), &recordHandler{}), func(t *testing.T, r *Router) {
				c := join(t, r.Gate(), "realm1", nil)
				for i := range fits {
					k.send(c, longURI(i), "exact")
					k.ok(c)
				}
				c.expectWeighed(k.typ, k.send(c, longURI(fits), "exact"), "session", w)
				c.expectWeighed(k.typ, k.send(c, wildcard, "wildcard"), "session", k.cost.weight(wildcard, uriindex.Wildcard))
				k.send(c, "com.short", "exact") // a URI of a few bytes counts one
				k.ok(c)
				equal(t, "the realm's count", k.weight(r.Stats().Realms["realm1"]), fits*w+1)
			})
		})
		t.Run(k.name+", per realm", func(t *testing.T) {
			bubble(t, limitRealm(k.limits(-1, limit), &recordHandler{}), func(t *testing.T, r *Router) {
				for i := range fits {
					c := join(t, r.Gate(), "realm1", nil)
					k.send(c, longURI(i), "exact")
					k.ok(c)
				}
				late := join(t, r.Gate(), "realm1", nil)
				late.expectWeighed(k.typ, k.send(late, longURI(fits), "exact"), "realm", w)
				late.quiet()
			})
		})
	}
}

// TestSharedSubscriptionCountsOnce: a session subscribing to a long
// pattern that others hold counts its whole weight against its own limit
// (it may be the last to hold it), but one for the realm, which holds the
// pattern once.
func TestSharedSubscriptionCountsOnce(t *testing.T) {
	w := subscriptionCost.weight(longURI(0), uriindex.Exact)
	bubble(t, limitRealm(Limits{SubscriptionsPerSession: w, URIBytesPerPattern: -1}, &recordHandler{}), func(t *testing.T, r *Router) {
		a, b := join(t, r.Gate(), "realm1", nil), join(t, r.Gate(), "realm1", nil)
		a.subscribe(longURI(0), nil)
		b.subscribe(longURI(0), nil)
		equal(t, "the realm's count", r.Stats().Realms["realm1"].SubscriptionWeight, w+1)
		b.send(&wamp.Subscribe{Request: 9, Options: wamp.Dict{}, Topic: "com.short"})
		b.expectRefused(wamp.TypeSubscribe, 9) // b holds w already
	})
}

// TestURIBytesPerPattern: a topic or procedure longer than the realm's
// cap (4 KiB by default) is refused when subscribed to or registered, with
// junction.error.limit_exceeded, counted and logged; one at the cap
// passes, and the node's own sessions are never refused. A URI that is
// only called or published to is not held, and not capped.
func TestURIBytesPerPattern(t *testing.T) {
	tests := []struct {
		name string
		lim  Limits
		max  int
	}{
		{"default", Limits{}, DefaultURIBytesPerPattern},
		{"configured", Limits{URIBytesPerPattern: 100}, 100},
	}
	for _, tt := range tests {
		for _, k := range patternKinds {
			t.Run(tt.name+", "+k.name, func(t *testing.T) {
				logs := &recordHandler{}
				bubble(t, limitRealm(tt.lim, logs), func(t *testing.T, r *Router) {
					at := wamp.URI("com." + strings.Repeat("x", tt.max-4))
					over := at + "x"
					c := join(t, r.Gate(), "realm1", nil)
					k.send(c, at, "prefix")
					k.ok(c)
					req := k.send(c, over, "wildcard")
					e := c.expectError(wamp.ErrLimitExceeded)
					what := strings.TrimSuffix(k.name[:len(k.name)-1], "s") // subscription, registration
					want := fmt.Sprintf("limit exceeded: at most %d bytes of URI per %s", tt.max, what)
					if e.RequestType != k.typ || e.Request != req || e.Args[0] != want {
						t.Errorf("ERROR %+v, want for %s request %d: %q", e, k.typ, req, want)
					}
					own := join(t, internalGate(r), "realm1", nil)
					k.send(own, over, "exact")
					k.ok(own)
					c.publish(over+".y", nil) // not held: no cap, no answer
					c.quiet()
					checkRefusals(t, r, logs, 1)
				})
			})
		}
	}
}

// TestRealisticURIsPass: a realistic long URI, 256 bytes and 16
// components, is never refused by the default limits, with any match
// policy.
func TestRealisticURIsPass(t *testing.T) {
	uri := realisticURI(t)
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		for _, k := range patternKinds {
			for _, match := range []string{"exact", "prefix", "wildcard"} {
				k.send(c, uri, match)
				k.ok(c)
			}
		}
	})
}
