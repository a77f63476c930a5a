package node

import (
	"errors"
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// storeNodeDoc is a node with realm1 keeping the last 2 events of com.h
// (its "store") and a RawSocket listener.
const storeNodeDoc = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}],
		"store": {"type": "memory", "limit": 5, "event-history": [{"uri": "com.h", "limit": 2}],
			"call-queue": [{"uri": "com.c"}]}}],
	"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`

// TestRealmStoreThroughMetaAPI checks a store's event history end to end:
// the router's subscription exists from the start, keeps the last 2
// events with no subscriber, and get_events answers newest first; a
// subscription with no history answers history_unavailable.
func TestRealmStoreThroughMetaAPI(t *testing.T) {
	n, _ := startLogged(t, storeNodeDoc)
	s := mustRaw(t, "tcp", address(t, n, web0), client.Config{Realm: "realm1"})
	ctx := testCtx(t)
	r, err := s.Call(ctx, "wamp.subscription.lookup", wamp.List{"com.h"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, ok := wamp.AsInt(r.Args[0])
	if !ok {
		t.Fatalf("lookup com.h = %v, want the history's subscription", r.Args)
	}
	var pubs []any
	for i := range 3 {
		id, err := s.Publish(ctx, "com.h", wamp.List{i}, wamp.ObjectOf(wamp.Dict{"n": i}), wamp.Dict{"acknowledge": true})
		if err != nil {
			t.Fatal(err)
		}
		pubs = append(pubs, int64(id))
	}
	r, err = s.Call(ctx, "wamp.subscription.get_events", wamp.List{sub}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, it := range r.Args[0].([]any) {
		item, _ := wamp.AsDict(it)
		if item["topic"] != "com.h" || item["realm"] != "realm1" || item["authrole"] != "anonymous" {
			t.Errorf("item %v", item)
		}
		id, _ := wamp.AsInt(item["publication"])
		got = append(got, id)
	}
	if want := []any{pubs[2], pubs[1]}; !reflect.DeepEqual(got, want) {
		t.Errorf("publications %v, want %v (newest first, limit 2)", got, want)
	}
	plain, err := s.Subscribe(ctx, "com.plain", func(*client.Event) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Call(ctx, "wamp.subscription.get_events", wamp.List{uint64(plain.ID())}, nil)
	var re *wamp.RequestError
	if !errors.As(err, &re) || re.URI != "wamp.error.history_unavailable" {
		t.Errorf("get_events of a subscription without history: %v", err)
	}
}
