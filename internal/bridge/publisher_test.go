package bridge

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func newPublisher(t *testing.T, s Session, o PublisherOptions) *Publisher {
	t.Helper()
	p, err := NewPublisher(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPublisherEndToEnd(t *testing.T) {
	e := newEnv(t)
	events := e.subscribe("com.example.topic")
	h := newPublisher(t, e.bridge, PublisherOptions{})
	w := do(h, httpReq{body: `{"topic":"com.example.topic","args":[1,"a"],"kwargs":{"k":[true]},"options":{"exclude_me":false,"retain":true}}`})
	ev := waitFor(t, events, "event")
	if w.Code != 200 || w.Body.String() != fmt.Sprintf(`{"id":%d}`, ev.Publication) {
		t.Fatalf("got %d %s, publication %d", w.Code, w.Body, ev.Publication)
	}
	if !reflect.DeepEqual(ev.Args, wamp.List{int64(1), "a"}) || !reflect.DeepEqual(ev.Kwargs, wamp.Object{{Key: "k", Value: wamp.List{true}}}) {
		t.Fatalf("event %v %v", ev.Args, ev.Kwargs)
	}
	// The backend's session is excluded: no event, and the error is 200.
	id := e.backend.Session().ID()
	w = do(h, httpReq{body: fmt.Sprintf(`{"topic":"com.example.topic","options":{"exclude":%d}}`, id)})
	if w.Code != 200 {
		t.Fatalf("exclude: %d %s", w.Code, w.Body)
	}
	w = do(h, httpReq{body: `{"topic":"org.other.topic"}`})
	if w.Code != 200 || w.Body.String()[:38] != `{"error":"wamp.error.not_authorized","` {
		t.Fatalf("not authorized: %d %s", w.Code, w.Body)
	}
	w = do(h, httpReq{body: `{"topic":"com.example.topic","args":[2]}`})
	if ev := waitFor(t, events, "event"); w.Code != 200 || len(ev.Args) != 1 || ev.Args[0] != int64(2) {
		t.Fatalf("after exclude: got event %v", ev.Args)
	}
}

func TestPublisherOptions(t *testing.T) {
	fake := newFake(t)
	h := newPublisher(t, fake, PublisherOptions{})
	tests := []struct {
		options string
		status  int
		want    wamp.Dict // the PUBLISH options (acknowledge added)
	}{
		{`{}`, 200, wamp.Dict{}},
		{`null`, 200, wamp.Dict{}},
		{`{"exclude_me":false,"retain":true}`, 200, wamp.Dict{"exclude_me": false, "retain": true}},
		{`{"exclude":5,"eligible":[1,2]}`, 200, wamp.Dict{"exclude": wamp.List{int64(5)}, "eligible": wamp.List{int64(1), int64(2)}}},
		{`{"exclude_authid":"a","eligible_authid":["b"],"exclude_authrole":["r"],"eligible_authrole":"s"}`, 200,
			wamp.Dict{"exclude_authid": wamp.List{"a"}, "eligible_authid": wamp.List{"b"}, "exclude_authrole": wamp.List{"r"}, "eligible_authrole": wamp.List{"s"}}},
		{`{"unknown":1,"forward_for":[{"session":1}]}`, 200, wamp.Dict{}},
		{`[]`, 400, nil},
		{`{"exclude_me":"no"}`, 400, nil},
		{`{"retain":1}`, 400, nil},
		{`{"exclude":"1"}`, 400, nil},
		{`{"eligible":[1.5]}`, 400, nil},
		{`{"exclude":[-1]}`, 400, nil},
		{`{"exclude_authid":1}`, 400, nil},
		{`{"eligible_authrole":["a",2]}`, 400, nil},
	}
	for _, tt := range tests {
		before := len(fake.recorded())
		w := do(h, httpReq{body: `{"topic":"com.example.t","options":` + tt.options + `}`})
		if w.Code != tt.status {
			t.Errorf("options %s: %d %s", tt.options, w.Code, w.Body)
			continue
		}
		if tt.status != 200 {
			continue
		}
		rec := fake.recorded()[before]
		tt.want[wamp.OptAcknowledge] = true
		if !reflect.DeepEqual(rec.opts, tt.want) {
			t.Errorf("options %s: sent %v, want %v", tt.options, rec.opts, tt.want)
		}
	}
	for _, body := range []string{`{}`, `{"topic":1}`, `{"topic":"a b"}`, `{"topic":"com.example.t","args":{}}`} {
		if w := do(h, httpReq{body: body}); w.Code != 400 {
			t.Errorf("body %s: %d %s", body, w.Code, w.Body)
		}
	}
	w := do(h, httpReq{body: `{}`})
	if w.Body.String() != deny("Request body was valid JSON, but not well formed (missing key 'topic').") {
		t.Errorf("missing topic: %s", w.Body)
	}
}
