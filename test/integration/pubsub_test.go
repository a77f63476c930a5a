package integration

import (
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// subscribe subscribes s and returns the channel its events arrive on.
func subscribe(t *testing.T, s *client.Session, topic wamp.URI, opts wamp.Dict) <-chan *client.Event {
	t.Helper()
	events := make(chan *client.Event, 100)
	if _, err := s.Subscribe(ctx(t), topic, func(ev *client.Event) { events <- ev }, opts); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return events
}

func TestPublishSubscribe(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		sub, pub := e.anon(), e.anon()
		events := subscribe(t, sub, "com.example.topic", nil)
		id, err := pub.Publish(ctx(t), "com.example.topic", wamp.List{"hi", int64(2)}, wamp.ObjectOf(wamp.Dict{"k": "v"}),
			wamp.Dict{"acknowledge": true})
		if err != nil || id == 0 {
			t.Fatalf("acknowledged publish = %d, %v; want a publication ID", id, err)
		}
		ev := <-events
		if ev.Publication != id {
			t.Fatalf("event publication %d, PUBLISHED said %d", ev.Publication, id)
		}
		if !reflect.DeepEqual(ev.Args, wamp.List{"hi", int64(2)}) || !reflect.DeepEqual(ev.Kwargs, wamp.Object{{Key: "k", Value: "v"}}) ||
			ev.Topic != "com.example.topic" {
			t.Fatalf("event = %#v", ev)
		}
	})
}

// TestExcludeMe checks the default exclude_me=true and its override: the
// publisher, also subscribed, gets only the event published with
// exclude_me=false, and a marker event then proves nothing else arrived.
func TestExcludeMe(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		s := e.anon()
		events := subscribe(t, s, "com.example.self", nil)
		ack := wamp.Dict{"acknowledge": true}
		if _, err := s.Publish(ctx(t), "com.example.self", wamp.List{"excluded"}, nil, ack); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Publish(ctx(t), "com.example.self", wamp.List{"included"}, nil,
			wamp.Dict{"acknowledge": true, "exclude_me": false}); err != nil {
			t.Fatal(err)
		}
		if ev := <-events; ev.Args[0] != "included" {
			t.Fatalf("first event to the publisher = %v, want only the exclude_me=false one", ev.Args)
		}
	})
}

func TestPatternSubscriptions(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		sub, pub := e.anon(), e.anon()
		prefix := subscribe(t, sub, "com.example.p", wamp.Dict{"match": "prefix"})
		wild := subscribe(t, sub, "com..update", wamp.Dict{"match": "wildcard"})
		for _, topic := range []wamp.URI{"com.example.prefix", "com.user.update"} {
			if _, err := pub.Publish(ctx(t), topic, nil, nil, wamp.Dict{"acknowledge": true}); err != nil {
				t.Fatal(err)
			}
		}
		if ev := <-prefix; ev.Topic != "com.example.prefix" {
			t.Fatalf("prefix subscription got topic %q", ev.Topic)
		}
		if ev := <-wild; ev.Topic != "com.user.update" {
			t.Fatalf("wildcard subscription got topic %q", ev.Topic)
		}
	})
}

func TestEligibleAndPublisherDisclosure(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		a, b, pub := e.anon(), e.anon(), e.anon()
		evA := subscribe(t, a, "com.example.only", nil)
		evB := subscribe(t, b, "com.example.only", nil)
		opts := wamp.Dict{"acknowledge": true, "eligible": wamp.List{b.ID()}, "disclose_me": true}
		if _, err := pub.Publish(ctx(t), "com.example.only", wamp.List{"for b"}, nil, opts); err != nil {
			t.Fatal(err)
		}
		if _, err := pub.Publish(ctx(t), "com.example.only", wamp.List{"for all"}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
		ev := <-evB
		if id, _ := wamp.AsInt(ev.Details["publisher"]); ev.Args[0] != "for b" || wamp.ID(id) != pub.ID() {
			t.Fatalf("b's first event = %v details %v, want the eligible one with the publisher disclosed", ev.Args, ev.Details)
		}
		if ev := <-evA; ev.Args[0] != "for all" {
			t.Fatalf("a's first event = %v, want only the one for all", ev.Args)
		}
	})
}

func TestRetainedEvent(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		pub := e.anon()
		if _, err := pub.Publish(ctx(t), "com.example.state", wamp.List{"last"}, nil,
			wamp.Dict{"acknowledge": true, "retain": true}); err != nil {
			t.Fatal(err)
		}
		events := subscribe(t, e.anon(), "com.example.state", wamp.Dict{"get_retained": true})
		if ev := <-events; ev.Args[0] != "last" || ev.Details["retained"] != true {
			t.Fatalf("retained event = %v %v", ev.Args, ev.Details)
		}
	})
}

func TestManySubscribersOrdered(t *testing.T) {
	forEachTransport(t, func(t *testing.T, e *env) {
		pub := e.anon()
		var chans []<-chan *client.Event
		for i := 0; i < 5; i++ {
			chans = append(chans, subscribe(t, e.anon(), "com.example.seq", nil))
		}
		const n = 50
		for i := 0; i < n; i++ {
			if _, err := pub.Publish(ctx(t), "com.example.seq", wamp.List{i}, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, ch := range chans {
			for i := 0; i < n; i++ {
				ev := <-ch
				if got, _ := wamp.AsInt(ev.Args[0]); got != int64(i) {
					t.Fatalf("event %d carries %v: order lost", i, ev.Args)
				}
			}
		}
	})
}

// TestPassthruPayloads: payloads in passthru mode (payload transparency)
// reach the subscriber byte for byte with their options, over every
// transport and serializer: Crossbar's form (a binary in place of
// Arguments, enc_algo), retained too, and the specification's (one
// binary argument, ppt_scheme).
func TestPassthruPayloads(t *testing.T) {
	raw := []byte("\x00\x01\xfe\xff not UTF-8: \xc3")
	forEachTransport(t, func(t *testing.T, e *env) {
		sub, pub := e.anon(), e.anon()
		events := subscribe(t, sub, "com.example.raw", nil)
		enc := wamp.Dict{"enc_algo": "cryptobox", "enc_key": "k1", "enc_serializer": "cbor"}
		opts := wamp.Dict{"acknowledge": true, "retain": true}
		for k, v := range enc {
			opts[k] = v
		}
		if _, err := pub.PublishPassthru(ctx(t), "com.example.raw", raw, opts); err != nil {
			t.Fatal(err)
		}
		checkPassthru := func(ev *client.Event, what string) {
			t.Helper()
			if !reflect.DeepEqual(ev.Passthru, raw) || ev.Args != nil {
				t.Errorf("%s: payload %q args %v, want %q", what, ev.Passthru, ev.Args, raw)
			}
			for k, v := range enc {
				if ev.Details[k] != v {
					t.Errorf("%s: details %v, want %s %v", what, ev.Details, k, v)
				}
			}
		}
		checkPassthru(<-events, "event")
		late := subscribe(t, e.anon(), "com.example.raw", wamp.Dict{"get_retained": true})
		checkPassthru(<-late, "retained event")

		ppt := wamp.Dict{"acknowledge": true, "ppt_scheme": "x_mine", "ppt_serializer": "native"}
		if _, err := pub.Publish(ctx(t), "com.example.raw", wamp.List{raw}, nil, ppt); err != nil {
			t.Fatal(err)
		}
		ev := <-events
		if len(ev.Args) != 1 || !reflect.DeepEqual(ev.Args[0], raw) || ev.Details["ppt_scheme"] != "x_mine" || ev.Details["ppt_serializer"] != "native" {
			t.Errorf("ppt event %#v", ev)
		}
	})
}
