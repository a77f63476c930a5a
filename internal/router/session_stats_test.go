package router

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// meteredPeer is a fakePeer whose every message, either way, counts 300
// bytes in its wamp.Traffic, as a transport counts frames.
type meteredPeer struct {
	*fakePeer
	traffic wamp.Traffic
}

const meteredSize = 300

func (p *meteredPeer) Traffic() *wamp.Traffic { return &p.traffic }

func (p *meteredPeer) Send(m wamp.Message) error {
	err := p.fakePeer.Send(m)
	if err == nil { // as outbox.Send and its writer do
		p.traffic.Add(meteredSize)
		p.traffic.Check()
	}
	return err
}

func (p *meteredPeer) Recv() (wamp.Message, error) {
	m, err := p.fakePeer.Recv()
	if err == nil {
		p.traffic.Count(meteredSize)
	}
	return m, err
}

// joinMetered joins realm1 over a meteredPeer.
func joinMetered(t *testing.T, g *Gate) *client {
	t.Helper()
	fp := newFakePeer(256)
	c := attachAs(t, g, fp, &meteredPeer{fakePeer: fp})
	c.hello("realm1", nil)
	return c
}

// onStats receives the next wamp.session.on_stats event about c (mon's
// own, with a duration trigger, are skipped).
func onStats(t *testing.T, mon, c *client) wamp.Dict {
	t.Helper()
	for {
		ev := expect[*wamp.Event](mon)
		if len(ev.Args) != 2 {
			t.Fatalf("on_stats args %v, want (session, stats)", ev.Args)
		}
		info := ev.Args[0].(wamp.Dict)
		if info["session"] == uint64(mon.id) {
			continue
		}
		want := wamp.Dict{"realm": "realm1", "session": uint64(c.id), "authid": c.wel.Details["authid"], "authrole": "anonymous"}
		equal(t, "on_stats session", info, want)
		return ev.Args[1].(wamp.Dict)
	}
}

// noStatsFor checks that no on_stats event about c is pending for mon.
func noStatsFor(t *testing.T, mon, c *client) {
	t.Helper()
	synctest.Wait()
	for {
		select {
		case m := <-mon.p.out:
			if ev, ok := wamp.Unwrap(m).(*wamp.Event); !ok || ev.Args[0].(wamp.Dict)["session"] != uint64(mon.id) {
				t.Fatalf("unexpected %T %+v", m, wamp.Unwrap(m))
			}
		default:
			return
		}
	}
}

// checkStats compares the counts and flags of an on_stats event.
func checkStats(t *testing.T, st wamp.Dict, cycle, messages, rated uint64, first, last bool) {
	t.Helper()
	got := wamp.Dict{"cycle": st["cycle"], "messages": st["messages"], "first": st["first"], "last": st["last"],
		"bytes": st["bytes"], "rated_messages": st["rated_messages"]}
	want := wamp.Dict{"cycle": cycle, "messages": messages, "first": first, "last": last,
		"bytes": messages * meteredSize, "rated_messages": rated}
	equal(t, "on_stats stats", got, want)
}

func statsRealm(o StatsOptions) Options {
	o.RatedMessageSize = 256
	return Options{Realms: []RealmOptions{{Name: "realm1", Stats: o}}}
}

func TestSessionStatsTriggers(t *testing.T) {
	tests := []struct {
		name string
		opts StatsOptions
		run  func(t *testing.T, mon, c *client)
	}{
		{"no stats: the last event only", StatsOptions{}, func(t *testing.T, mon, c *client) {
			c.publish("com.example.a", nil)
			c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
			expect[*wamp.Goodbye](c)
			// HELLO, WELCOME, PUBLISH, GOODBYE both ways; rated by the default 512
			st := onStats(t, mon, c)
			equal(t, "messages, bytes, rated", wamp.List{st["messages"], st["bytes"], st["rated_messages"], st["first"], st["last"], st["cycle"]},
				wamp.List{uint64(5), uint64(5 * meteredSize), uint64(5), false, true, uint64(1)})
		}},
		{"on join", StatsOptions{Enabled: true, OnJoin: true, AfterRatedMessages: 1000}, func(t *testing.T, mon, c *client) {
			// HELLO and WELCOME, rated by the default 512 before the join
			checkStats(t, onStats(t, mon, c), 1, 2, 2, true, false)
			c.publish("com.example.a", nil)
			c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
			expect[*wamp.Goodbye](c)
			checkStats(t, onStats(t, mon, c), 2, 3, 6, false, true) // rated by 256 now
		}},
		{"after rated messages", StatsOptions{Enabled: true, AfterRatedMessages: 10}, func(t *testing.T, mon, c *client) {
			// HELLO and WELCOME 1 rated each, then 2 each: 4 PUBLISH make 10
			for range 4 {
				c.publish("com.example.a", nil)
			}
			checkStats(t, onStats(t, mon, c), 1, 6, 10, true, false)
			for range 5 {
				c.publish("com.example.a", nil)
			}
			checkStats(t, onStats(t, mon, c), 2, 5, 10, false, false)
			c.publish("com.example.a", nil)
			c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
			expect[*wamp.Goodbye](c)
			checkStats(t, onStats(t, mon, c), 3, 3, 6, false, true)
		}},
		{"after duration", StatsOptions{Enabled: true, AfterDuration: 10 * time.Second}, func(t *testing.T, mon, c *client) {
			noStatsFor(t, mon, c)
			time.Sleep(10 * time.Second)
			st := onStats(t, mon, c)
			checkStats(t, st, 1, 2, 2, true, false)
			equal(t, "duration", st["duration"], (10 * time.Second).Nanoseconds())
			c.publish("com.example.a", nil)
			time.Sleep(10 * time.Second)
			checkStats(t, onStats(t, mon, c), 2, 1, 2, false, false)
			c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
			expect[*wamp.Goodbye](c)
			checkStats(t, onStats(t, mon, c), 3, 2, 4, false, true)
			time.Sleep(time.Minute)
			noStatsFor(t, mon, c) // c's timer stopped with the last event
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, statsRealm(tt.opts), func(t *testing.T, r *Router) {
				mon := join(t, r.Gate(), "realm1", nil)
				mon.subscribe(topicSessionOnStats, nil)
				c := joinMetered(t, r.Gate())
				tt.run(t, mon, c)
				c.waitDone()
				noStatsFor(t, mon, c)
			})
		})
	}
}

// An embedded session (its peer counts nothing) gets messages counted by
// the router from its join, and no bytes.
func TestSessionStatsUnmetered(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		mon := join(t, r.Gate(), "realm1", nil)
		mon.subscribe(topicSessionOnStats, nil)
		c := join(t, r.Gate(), "realm1", nil)
		c.publish("com.example.a", nil)
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
		expect[*wamp.Goodbye](c)
		st := onStats(t, mon, c)
		equal(t, "counts", wamp.List{st["messages"], st["bytes"], st["rated_messages"], st["serializer"]},
			wamp.List{uint64(5), uint64(0), uint64(0), ""}) // HELLO, WELCOME, PUBLISH, GOODBYE both ways
	})
}

// With the meta API off, nothing is published.
func TestSessionStatsNoMetaAPI(t *testing.T) {
	opts := statsRealm(StatsOptions{Enabled: true, OnJoin: true, AfterRatedMessages: 1})
	opts.Realms[0].DisableMetaAPI = true
	bubble(t, opts, func(t *testing.T, r *Router) {
		mon := join(t, r.Gate(), "realm1", nil)
		mon.subscribe(topicSessionOnStats, nil)
		c := joinMetered(t, r.Gate())
		c.publish("com.example.a", nil)
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm})
		expect[*wamp.Goodbye](c)
		c.waitDone()
		mon.quiet()
	})
}
