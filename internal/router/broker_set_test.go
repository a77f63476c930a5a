package router

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/wamp"
)

// heldPeer is a fakePeer whose Send of an EVENT blocks until release is
// closed: a fan-out caught in the middle (a real Send does not block, but
// a fan-out to many sessions takes a while). entered, if not nil, gets
// one value when the first EVENT arrives.
type heldPeer struct {
	*fakePeer
	entered chan<- struct{}
	release <-chan struct{}
	once    sync.Once
}

func (p *heldPeer) Send(m wamp.Message) error {
	if _, ok := wamp.Unwrap(m).(*wamp.Event); ok {
		if p.entered != nil {
			p.once.Do(func() { p.entered <- struct{}{} })
		}
		<-p.release
	}
	return p.fakePeer.Send(m)
}

// joinHeld joins realm1 over a heldPeer and subscribes it to topic.
func joinHeld(t *testing.T, r *Router, topic wamp.URI, entered chan<- struct{}, release <-chan struct{}) *client {
	hp := &heldPeer{fakePeer: newFakePeer(16), entered: entered, release: release}
	c := attachAs(t, r.Gate(), hp.fakePeer, hp)
	c.hello("realm1", nil)
	c.subscribe(topic, nil)
	return c
}

// TestSubscribeDuringFanOut: while a fan-out is under way, SUBSCRIBE and
// other publishers go ahead (they used to wait for the broker lock that
// the fan-out held). Real time, not synctest: before the fix they blocked
// on a mutex, which a bubble cannot see.
func TestSubscribeDuringFanOut(t *testing.T) {
	r := newTestRouter(t)
	defer r.Close()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock() // before Close, even when the test fails early
	held := joinHeld(t, r, "com.t", entered, release)
	pub := join(t, r.Gate(), "realm1", nil)
	pub.publish("com.t", nil, "caught")
	<-entered

	late := join(t, r.Gate(), "realm1", nil)
	late.subscribe("com.t", nil)
	other := join(t, r.Gate(), "realm1", nil)
	req := other.publish("com.u", wamp.Dict{"acknowledge": true})
	equal(t, "PUBLISHED", expect[*wamp.Published](other).Request, req)

	unblock()
	equal(t, "held's event", expect[*wamp.Event](held).Args, wamp.List{"caught"})
	pub.publish("com.t", nil, "after")
	// late subscribed after the first fan-out began: it gets only the next.
	equal(t, "late's first event", expect[*wamp.Event](late).Args, wamp.List{"after"})
}

// TestUnsubscribedAfterLastEvent: a session that unsubscribes while a
// fan-out that includes it is under way gets that fan-out's EVENT before
// its UNSUBSCRIBED, never after (clients such as autobahn treat an EVENT
// for an unknown subscription as a protocol violation).
func TestUnsubscribedAfterLastEvent(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		release := make(chan struct{})
		held := joinHeld(t, r, "com.t", nil, release)
		leaver := join(t, r.Gate(), "realm1", nil)
		sub := leaver.subscribe("com.t", nil) // after held in the fan-out
		join(t, r.Gate(), "realm1", nil).publish("com.t", nil, "caught")
		synctest.Wait() // the fan-out waits in held's Send

		unsub := leaver.nextReq()
		leaver.send(&wamp.Unsubscribe{Request: unsub, Subscription: sub})
		synctest.Wait()
		close(release)
		equal(t, "event", expect[*wamp.Event](leaver).Args, wamp.List{"caught"})
		equal(t, "UNSUBSCRIBED", expect[*wamp.Unsubscribed](leaver).Request, unsub)
		expect[*wamp.Event](held)
	})
}

// TestNoEventOutsideSubscription churns a subscription while others
// publish to its topic: the churning session never gets an EVENT before
// SUBSCRIBED or after UNSUBSCRIBED.
func TestNoEventOutsideSubscription(t *testing.T) {
	r := newTestRouter(t)
	defer r.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		p := join(t, r.Gate(), "realm1", nil)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					p.publish("com.t", nil)
				}
			}
		})
	}
	c := joinPeer(t, r.Gate(), "realm1", nil, newFakePeer(1<<16))
	for range 300 {
		c.send(&wamp.Subscribe{Request: c.nextReq(), Options: wamp.Dict{}, Topic: "com.t"})
		sub := expect[*wamp.Subscribed](c).Subscription // an EVENT first fails
		c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: sub})
		for m := c.recv(); ; m = c.recv() {
			if _, ok := m.(*wamp.Unsubscribed); ok {
				break
			}
			if e, ok := m.(*wamp.Event); !ok || e.Subscription != sub {
				t.Fatalf("got %T %+v while unsubscribing from %d", m, m, sub)
			}
		}
	}
	close(stop)
	wg.Wait()
}

// TestSubscriberSetBusy: a replaced set stays busy while a publish sends
// to it, and is dropped (with its sessions) once that publish is done.
func TestSubscriberSetBusy(t *testing.T) {
	s1, s2 := &session{id: 1}, &session{id: 2}
	sub := &subscription{}
	sub.add(s1)
	a := sub.set
	a.acquire() // a publish under way
	sub.add(s2)
	if len(sub.busy) != 1 || sub.busy[0] != a || sub.set == a {
		t.Fatalf("after adding to a set in use: current %p, busy %v; want a new set, a busy", sub.set, sub.busy)
	}
	b := sub.set
	if busy := sub.remove(s1); len(busy) != 1 || busy[0] != a || sub.set == b {
		t.Fatalf("after removing while a shares b's array: busy %v, want [a] and a copy", busy)
	}
	equal(t, "current", sub.subscribers(), []*session{s2})
	equal(t, "a unchanged by the changes after it", a.sessions, []*session{s1})
	a.release()
	select {
	case <-a.idle:
	default:
		t.Fatal("a not idle after its last release")
	}
	if busy := sub.remove(s2); len(busy) != 0 || sub.set != nil {
		t.Fatalf("after the last subscriber left: busy %v, set %v", busy, sub.set)
	}
	if a.sessions != nil {
		t.Error("an idle retired set still holds its sessions")
	}
}

// TestSubscriberSetInPlace: with no publish holding the current set and
// no replaced set in use, subscribe and unsubscribe change the set in
// place, in order, with no new array; while a publish holds it, a copy
// is made and what the publish reads does not change.
func TestSubscriberSetInPlace(t *testing.T) {
	s := []*session{{id: 1}, {id: 2}, {id: 3}, {id: 4}}
	sub := &subscription{}
	for _, x := range s[:3] {
		sub.add(x)
	}
	set := sub.set
	if busy := sub.remove(s[1]); busy != nil || sub.set != set {
		t.Fatalf("unused set not changed in place: busy %v, set %p (was %p)", busy, sub.set, set)
	}
	equal(t, "after removing s2", set.sessions, []*session{s[0], s[2]})
	if allocs := testing.AllocsPerRun(100, func() {
		sub.add(s[3])
		sub.remove(s[3])
	}); allocs != 0 {
		t.Errorf("subscribe and unsubscribe in place: %v allocs, want 0", allocs)
	}

	set.acquire() // a publish reads [s1 s3]
	sub.remove(s[0])
	if sub.set == set {
		t.Fatal("set in use changed in place")
	}
	equal(t, "held set", set.sessions, []*session{s[0], s[2]})
	equal(t, "current", sub.subscribers(), []*session{s[2]})
	set.release()
}

// TestChurnKeepsOtherSubscribers: while sessions subscribe to and
// unsubscribe from a topic without pause (changing its set in place or
// by copy, as publishes come and go), the other subscribers get every
// event of every publisher exactly once and in order, and the churners
// none outside their subscriptions.
func TestChurnKeepsOtherSubscribers(t *testing.T) {
	const publishers, events = 2, 300
	r := newTestRouter(t)
	defer r.Close()
	var steady []*client
	for range 3 {
		c := joinPeer(t, r.Gate(), "realm1", nil, newFakePeer(publishers*events))
		c.subscribe("com.t", nil)
		steady = append(steady, c)
	}
	stop := make(chan struct{})
	var churners sync.WaitGroup
	for range 3 {
		c := joinPeer(t, r.Gate(), "realm1", nil, newFakePeer(1<<16))
		churners.Go(func() { churnStrict(t, c, stop) })
	}
	var pubs sync.WaitGroup
	for p := range publishers {
		c := join(t, r.Gate(), "realm1", nil)
		pubs.Go(func() {
			for i := range events {
				c.publish("com.t", nil, p, i)
			}
		})
	}
	pubs.Wait()
	for _, c := range steady {
		next := make([]int, publishers)
		for range publishers * events {
			args := expect[*wamp.Event](c).Args
			p, i := args[0].(int), args[1].(int)
			if i != next[p] {
				t.Fatalf("session %d: event %d of publisher %d, want %d", c.id, i, p, next[p])
			}
			next[p]++
		}
	}
	close(stop)
	churners.Wait()
}

// churnStrict subscribes c to com.t and unsubscribes it until stop is
// closed, failing on an EVENT before SUBSCRIBED or after UNSUBSCRIBED.
func churnStrict(t *testing.T, c *client, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		c.send(&wamp.Subscribe{Request: c.nextReq(), Options: wamp.Dict{}, Topic: "com.t"})
		m := c.recv()
		sub, ok := m.(*wamp.Subscribed)
		if !ok {
			t.Errorf("got %T %+v, want SUBSCRIBED", m, m)
			return
		}
		c.send(&wamp.Unsubscribe{Request: c.nextReq(), Subscription: sub.Subscription})
		for m := c.recv(); ; m = c.recv() {
			if _, ok := m.(*wamp.Unsubscribed); ok {
				break
			}
			if e, ok := m.(*wamp.Event); !ok || e.Subscription != sub.Subscription {
				t.Errorf("got %T %+v while unsubscribing from %d", m, m, sub.Subscription)
				return
			}
		}
	}
}
