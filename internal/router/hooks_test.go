package router

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/wamp"
)

// recordHooks records hook calls as strings, and checks that no broker or
// dealer lock is held when a hook runs.
type recordHooks struct {
	rm     *realm
	mu     sync.Mutex
	events []string
}

func (h *recordHooks) add(format string, a ...any) {
	if !h.rm.broker.mu.TryLock() || !h.rm.dealer.mu.TryLock() {
		panic("hook called with a lock held")
	}
	h.rm.broker.mu.Unlock()
	h.rm.dealer.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, fmt.Sprintf(format, a...))
}

func (h *recordHooks) SessionJoined(s sessionInfo) { h.add("join %s", s.AuthRole) }
func (h *recordHooks) SessionLeft(s sessionInfo)   { h.add("leave %s", s.AuthRole) }
func (h *recordHooks) SubscriptionCreated(_ wamp.ID, s subInfo) {
	h.add("sub created %s %s", s.Topic, s.Match)
}
func (h *recordHooks) Subscribed(_ wamp.ID, s subInfo)   { h.add("subscribed %s", s.Topic) }
func (h *recordHooks) Unsubscribed(_ wamp.ID, s subInfo) { h.add("unsubscribed %s", s.Topic) }
func (h *recordHooks) SubscriptionDeleted(_ wamp.ID, s subInfo) {
	h.add("sub deleted %s", s.Topic)
}
func (h *recordHooks) RegistrationCreated(_ wamp.ID, r regInfo) {
	h.add("reg created %s %s %s", r.Procedure, r.Match, r.Invoke)
}
func (h *recordHooks) Registered(_ wamp.ID, r regInfo)   { h.add("registered %s", r.Procedure) }
func (h *recordHooks) Unregistered(_ wamp.ID, r regInfo) { h.add("unregistered %s", r.Procedure) }
func (h *recordHooks) RegistrationDeleted(_ wamp.ID, r regInfo) {
	h.add("reg deleted %s", r.Procedure)
}

func TestHooks(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		rm := r.realm("realm1")
		h := &recordHooks{rm: rm}
		rm.hooks = h // before any session joins
		a := join(t, r.Gate(), "realm1", nil)
		a.subscribe("com.t", wamp.Dict{"match": "prefix"})
		a.register("com.p", wamp.Dict{"invoke": "first"})
		// The hooks run after the answer is sent: let them finish before the
		// next session joins.
		synctest.Wait()
		b := join(t, r.Gate(), "realm1", nil)
		b.subscribe("com.t", wamp.Dict{"match": "prefix"})
		synctest.Wait() // b's Subscribed hook, before a's leave
		a.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		a.waitDone()
		want := []string{
			"join anonymous", "sub created com.t prefix", "subscribed com.t",
			"reg created com.p exact first", "registered com.p",
			"join anonymous", "subscribed com.t",
			"unsubscribed com.t", "unregistered com.p", "reg deleted com.p", "leave anonymous",
		}
		if !slices.Equal(h.events, want) {
			t.Errorf("hooks:\n%q\nwant\n%q", h.events, want)
		}
	})
}

func TestPublishInternal(t *testing.T) {
	bubble(t, Options{}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		c.subscribe("wamp.session.on_join", nil)
		r.realm("realm1").publishInternal("wamp.session.on_join", nil, wamp.List{"x"}, nil)
		if ev := expect[*wamp.Event](c); ev.Args[0] != "x" || len(ev.Details) != 0 {
			t.Errorf("EVENT %+v", ev)
		}
	})
}
