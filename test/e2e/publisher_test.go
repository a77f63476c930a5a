package e2e_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
)

// eventBound bounds the wait for an event the test caused.
const eventBound = 10 * time.Second

// publishBody is the body of the publisher tests; wantArgs and wantKwargs
// what the subscribers must receive.
const publishBody = `{"topic": "%s", "args": ["hello", 1, {"x": [true, null]}], "kwargs": {"k": "v", "n": 2.5}}`

var (
	wantArgs   = []any{"hello", 1.0, map[string]any{"x": []any{true, nil}}}
	wantKwargs = map[string]any{"k": "v", "n": 2.5}
)

// testPublisher publishes through /publish to the Go and the autobahn-js
// subscriber, and checks the refusals.
func testPublisher(t *testing.T, env *bridgeEnv) {
	goEvents := env.gp.subscribe(t, "com.e2e.go.topic")
	t.Run("go-subscriber", func(t *testing.T) {
		t.Parallel()
		id := publish(t, env.base+"/publish", "com.e2e.go.topic")
		ev := nextEvent(t, goEvents)
		checkEvent(t, uint64(ev.Publication), ev.Args, ev.Kwargs, id)
	})
	t.Run("js-subscriber", func(t *testing.T) {
		t.Parallel()
		id := publish(t, env.base+"/publish", "com.e2e.js.topic")
		l, ok := env.js.next(t, eventBound)
		if !ok || l.Event == nil {
			t.Fatalf("peer.js: line %q, want an event", l.Raw)
		}
		pub, err := l.Event.Publication.Int64()
		if err != nil || l.Event.Topic != "com.e2e.js.topic" {
			t.Errorf("peer.js event on %q publication %q", l.Event.Topic, l.Event.Publication)
		}
		checkEvent(t, uint64(pub), l.Event.Args, l.Event.Kwargs, id)
	})
	t.Run("not-authorized", func(t *testing.T) {
		t.Parallel()
		r := postJSON(t, env.base+"/publish", `{"topic": "org.other.topic", "args": [1]}`)
		checkError(t, r, 200, "wamp.error.not_authorized")
	})
	t.Run("bad-option-type", func(t *testing.T) {
		t.Parallel()
		r := postJSON(t, env.base+"/publish", `{"topic": "com.e2e.go.topic", "options": {"exclude_me": "yes"}}`)
		if r.status != 400 {
			t.Errorf("status %d, want 400; body %s", r.status, r.body)
		}
	})
}

// publish POSTs publishBody for topic to url and returns the publication
// ID of the answer {"id": N}.
func publish(t *testing.T, url, topic string) uint64 {
	t.Helper()
	r := postJSON(t, url, fmt.Sprintf(publishBody, topic))
	return publicationID(t, r)
}

// publicationID checks a publisher's answer {"id": N} and returns N.
func publicationID(t *testing.T, r response) uint64 {
	t.Helper()
	var body struct {
		ID *uint64 `json:"id"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &body) != nil || body.ID == nil || *body.ID == 0 {
		t.Fatalf("publish: status %d body %s, want 200 {\"id\": N}", r.status, r.body)
	}
	return *body.ID
}

func nextEvent(t *testing.T, events <-chan *client.Event) *client.Event {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(eventBound):
		t.Fatalf("no event within %s", eventBound)
		return nil
	}
}

// checkEvent compares an event with publishBody (through JSON, so that
// the serializers' number types do not matter) and its publication ID.
func checkEvent(t *testing.T, pub uint64, args, kwargs any, wantPub uint64) {
	t.Helper()
	if pub != wantPub {
		t.Errorf("event publication %d, want %d (the HTTP answer's id)", pub, wantPub)
	}
	if got := viaJSON(t, args); !reflect.DeepEqual(got, any(wantArgs)) {
		t.Errorf("event args %v, want %v", got, wantArgs)
	}
	if got := viaJSON(t, kwargs); !reflect.DeepEqual(got, any(wantKwargs)) {
		t.Errorf("event kwargs %v, want %v", got, wantKwargs)
	}
}

// viaJSON encodes v and decodes it again into plain JSON values.
func viaJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("event not JSON: %v", err)
	}
	return decodeJSON(t, "event", b)
}
