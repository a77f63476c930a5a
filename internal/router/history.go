package router

import (
	"fmt"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// EventHistory is one event history of a realm's store (an item of
// Crossbar's store "event-history"): when the realm starts, the router
// makes a subscription to Topic with Match that it holds itself, and keeps
// the last Limit events published to a topic it matches. Clients read
// them with wamp.subscription.get_events, newest first.
type EventHistory struct {
	Topic wamp.URI
	Match string // wamp.MatchExact (also ""), MatchPrefix or MatchWildcard
	Limit int    // events kept; 0: DefaultHistoryLimit
}

// DefaultHistoryLimit is the events an EventHistory keeps when its Limit
// is 0: Crossbar's default store "limit".
const DefaultHistoryLimit = 100

// checkHistories reports the first invalid EventHistory of o.
func checkHistories(o RealmOptions) error {
	for i, h := range o.EventHistory {
		m := h.Match
		if m == "" {
			m = wamp.MatchExact
		}
		if _, ok := uriindex.ParseMatch(m); !ok || !wamp.ValidURI(h.Topic, o.StrictURIs, m) {
			return fmt.Errorf("router: event history %d: invalid topic %q (match %q)", i, h.Topic, h.Match)
		}
		if h.Limit < 0 {
			return fmt.Errorf("router: event history %d: limit must be >= 0, not %d", i, h.Limit)
		}
	}
	return nil
}

// historyStore is a realm's event histories: what they hold against the
// realm's limit on history bytes. mu is a leaf lock (LOCKS.md): an event
// is recorded after broker.mu was released, before its delivery.
type historyStore struct {
	mu     sync.Mutex // guards total and every history's events
	total  int        // bytes held by every history
	budget int        // limit on total (realmLimits.historyBytes)
}

// history is the event history of one subscription: its last events,
// oldest first. limit never changes; historyStore.mu guards events.
type history struct {
	limit  int
	events []storedEvent
	start  int // events[start:] are held; the slots before are cleared
}

// storedEvent is an event as wamp.subscription.get_events returns it
// (built once, never modified: results share it), with its size.
type storedEvent struct {
	item wamp.Dict
	size int
}

// addHistories makes the subscriptions of the realm's event histories.
// Called by newRealm, before any session can join: no lock is needed.
func (b *broker) addHistories(hs []EventHistory, budget int) {
	b.histories.budget = budget
	for _, h := range hs {
		m, _ := uriindex.ParseMatch(h.Match)
		limit := h.Limit
		if limit == 0 {
			limit = DefaultHistoryLimit
		}
		if sub, ok := b.index.Get(string(h.Topic), m); ok {
			sub.hist.limit = max(sub.hist.limit, limit)
			continue
		}
		sub := &subscription{
			id: b.newSubscriptionID(h.Topic, m), topic: h.Topic, match: m,
			weight: subscriptionCost.weight(h.Topic, m), created: time.Now(),
			hist: &history{limit: limit},
		}
		b.index.Set(string(h.Topic), m, sub)
		b.byID[sub.id] = sub
	}
}

// record adds e, published by pub (nil: the router), to the histories of
// ts that have one. An event that the realm's history bytes cannot hold,
// even once the history dropped all its older events, is not kept: the
// refusal is counted and logged, and the publication goes on. It must be
// called with no lock held.
func (b *broker) record(pub *session, e *outEvent, ts []target) {
	var ev storedEvent
	for _, t := range ts {
		if t.hist == nil {
			continue
		}
		if ev.item == nil {
			// The history holds values: a raw payload is decoded (it was
			// checked when received: an error leaves the item without).
			// A passthru payload is kept as its bytes, with its options.
			args, kwargs, _ := e.payload.Values()
			p := wamp.Payload{Args: args, Kwargs: kwargs}
			if e.payload.Passthru() != nil {
				p.Raw = e.payload.Raw
			}
			ev = storedEvent{item: historyItem(b.realm.name, pub, e, args, kwargs), size: wamp.PayloadSize(e.topic, p, nil)}
		}
		if err := b.histories.add(t.hist, ev); err != nil {
			b.realm.limits.note(pub, err)
		}
	}
}

// historyItem is e as get_events returns it, Crossbar's shape: the
// publisher is always given (the history is read by whom the
// configuration allows, not by the event's subscribers).
func historyItem(realm wamp.URI, pub *session, e *outEvent, args wamp.List, kwargs wamp.Object) wamp.Dict {
	item := wamp.Dict{
		"time_ns":     time.Now().UnixNano(),
		"realm":       string(realm),
		"session_id":  nil,
		"authid":      nil,
		"authrole":    nil,
		"publication": uint64(e.publication),
		"topic":       string(e.topic),
		"args":        nil,
		"kwargs":      nil,
	}
	if pub != nil {
		item["session_id"], item["authid"], item["authrole"] = uint64(pub.id), pub.ident.AuthID, pub.ident.AuthRole
	}
	if args != nil {
		item["args"] = args
	}
	if kwargs != nil {
		item["kwargs"] = kwargs
	}
	if b := e.payload.Passthru(); b != nil {
		item["payload"] = b
		copyPassthru(item, e.details)
	}
	return item
}

// setBudget replaces the limit on the bytes of every history: events
// added from now on are held to it.
func (st *historyStore) setBudget(n int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.budget = n
}

// add appends ev to h, dropping h's oldest events past its limit or past
// the realm's bytes; it returns the limitError that refuses ev when the
// realm cannot hold it even then. Takes st.mu.
func (st *historyStore) add(h *history, ev storedEvent) *limitError {
	st.mu.Lock()
	defer st.mu.Unlock()
	h.events = append(h.events, ev)
	st.total += ev.size
	for h.len() > h.limit || st.total > st.budget && h.len() > 0 {
		st.total -= h.pop().size
	}
	if h.len() == 0 { // ev itself was dropped
		return &limitError{what: "bytes of event history per realm", max: st.budget}
	}
	return nil
}

func (h *history) len() int { return len(h.events) - h.start }

// pop removes and returns the oldest event, compacting the slice once
// half of it is cleared slots. historyStore.mu must be held.
func (h *history) pop() storedEvent {
	ev := h.events[h.start]
	h.events[h.start] = storedEvent{}
	h.start++
	if h.start > len(h.events)/2 {
		n := copy(h.events, h.events[h.start:])
		clear(h.events[n:])
		h.events, h.start = h.events[:n], 0
	}
	return ev
}

// latest returns at most n events of h, newest first. Takes st.mu.
func (st *historyStore) latest(h *history, n int) wamp.List {
	st.mu.Lock()
	defer st.mu.Unlock()
	n = min(max(n, 0), h.len())
	l := make(wamp.List, n)
	for i := range l {
		l[i] = h.events[len(h.events)-1-i].item
	}
	return l
}
