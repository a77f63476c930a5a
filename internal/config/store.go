package config

import (
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// RealmStore is a realm's "store": Crossbar's realm store, of which
// Junction keeps the event histories.
type RealmStore struct {
	// Type is "type" (required): "memory", the only store Crossbar has.
	Type string
	// Limit is "limit" (>= 1, default DefaultStoreLimit): the events an
	// event history keeps when its own "limit" is absent.
	Limit int
	// EventHistory is "event-history".
	EventHistory []*EventHistory
}

// DefaultStoreLimit is a store's default "limit", as in Crossbar.
const DefaultStoreLimit = 100

// EventHistory is an item of a store's "event-history": the router
// subscribes to URI with Match when the realm starts and keeps the last
// Limit events published to it (wamp.subscription.get_events).
type EventHistory struct {
	URI   string         // "uri" (required)
	Match uriindex.Match // "match": "exact" (default), "prefix" or "wildcard"
	Limit int            // "limit" (>= 1, default the store's "limit")
}

// store decodes a realm's "store"; nil when absent.
func (d *decoder) store(o *object) *RealmStore {
	so, ok := o.child("store")
	if !ok {
		return nil
	}
	st := &RealmStore{}
	st.Type = so.reqStr("type")
	if st.Type != "" && st.Type != "memory" {
		d.errorf(so.at("type"), `unknown store type %q (want "memory")`, st.Type)
	}
	st.Limit = int(so.integer("limit", DefaultStoreLimit, 1, maxInt32))
	so.list("event-history", func(p string, v any) {
		if h := d.eventHistory(p, v, st.Limit); h != nil {
			st.EventHistory = append(st.EventHistory, h)
		}
	})
	so.ignored("call-queue", ": calls are never queued (Crossbar 21.3.1 ignores it too)")
	so.done()
	return st
}

func (d *decoder) eventHistory(path string, v any, limit int) *EventHistory {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	h := &EventHistory{URI: o.reqStr("uri")}
	s := o.enum("match", "exact", "match policy", "exact", "prefix", "wildcard")
	h.Match, _ = uriindex.ParseMatch(s)
	if o.has("uri") && !wamp.ValidURI(wamp.URI(h.URI), false, s) {
		d.errorf(o.at("uri"), "invalid URI %q for match %s", h.URI, s)
	}
	h.Limit = int(o.integer("limit", int64(limit), 1, maxInt32))
	o.done()
	return h
}
