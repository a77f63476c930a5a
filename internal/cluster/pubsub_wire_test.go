package cluster

import (
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

func rawJSON(t testing.TB, payload string) wamp.Payload {
	t.Helper()
	p, err := codec.Payload(wamp.SerializerJSON, []byte(payload), 2)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEventRoundTrip(t *testing.T) {
	tests := []*router.Publication{
		{Topic: "com.t", ID: 1, Details: wamp.Dict{}},
		{Topic: "com.t", ID: wamp.MaxID, Details: wamp.Dict{"publisher": int64(7), "publisher_authid": "alice",
			"forward_for": []any{wamp.Object{{Key: "session", Value: int64(3)}}}},
			Payload: wamp.Payload{Args: wamp.List{int64(1), "x"}, Kwargs: wamp.Object{{Key: "k", Value: 1.5}}},
			Filter: router.Filter{Publisher: 9, Exclude: []wamp.ID{1, 2}, Eligible: []wamp.ID{}, HasEligible: true,
				Audience: &wamp.Audience{ExcludeAuthID: []string{"a"}, EligibleAuthID: []string{"b", ""}, HasEligibleAuthID: true,
					ExcludeAuthRole: []string{"r"}, EligibleAuthRole: []string{"s"}, HasEligibleAuthRole: true}}},
		{Topic: "com.t", ID: 3, Details: wamp.Dict{}, Filter: router.Filter{Audience: &wamp.Audience{HasEligibleAuthRole: true}}},
	}
	for _, p := range tests {
		b, err := appendEvent(nil, remoteEvent{"realm1", p})
		if err != nil {
			t.Fatal(err)
		}
		e, err := decodeEvent(b)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		want, got := *p, *e.pub
		if want.Filter.Eligible != nil && len(want.Filter.Eligible) == 0 {
			want.Filter.Eligible = nil // the flag keeps "given, empty"
		}
		args, kwargs, err := got.Payload.Values()
		if err != nil || !reflect.DeepEqual(args, p.Payload.Args) || !reflect.DeepEqual(kwargs, p.Payload.Kwargs) {
			t.Errorf("payload %v %v, %v; want %v %v", args, kwargs, err, p.Payload.Args, p.Payload.Kwargs)
		}
		want.Payload, got.Payload = wamp.Payload{}, wamp.Payload{}
		if e.realm != "realm1" || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
}

// TestEventRawPayload: a raw payload crosses as its bytes in its
// serializer, so that the receiving node's subscribers of that serializer
// get them unchanged.
func TestEventRawPayload(t *testing.T) {
	in := rawJSON(t, `[1.50, "x"] ,{"b":1,"b":2}`)
	b, err := appendEvent(nil, remoteEvent{"realm1", &router.Publication{Topic: "com.t", ID: 5, Payload: in}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := decodeEvent(b)
	if err != nil {
		t.Fatal(err)
	}
	raw := e.pub.Payload.Raw
	if raw == nil || raw.Serializer() != wamp.SerializerJSON || string(raw.Bytes()) != string(in.Raw.Bytes()) {
		t.Errorf("payload %+v, want the raw JSON bytes", e.pub.Payload)
	}
}

func TestDecodeEventErrors(t *testing.T) {
	good, err := appendEvent(nil, remoteEvent{"realm1", &router.Publication{Topic: "com.t", ID: 5, Details: wamp.Dict{"a": 1},
		Payload: rawJSON(t, `[1],{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range good {
		if _, err := decodeEvent(good[:i]); err == nil {
			t.Errorf("truncated to %d bytes: no error", i)
		}
	}
	for name, b := range map[string][]byte{
		"version":  append([]byte{2}, good[1:]...),
		"flags":    append([]byte{1, flagsEnd}, good[2:]...),
		"trailing": append(append([]byte(nil), good...), 0),
	} {
		if _, err := decodeEvent(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestInterestRoundTrip(t *testing.T) {
	in := interest{Member{"node-1", 1 << 60}, "realm1", router.Subscription{Topic: "com..t", Match: uriindex.Wildcard}}
	b := appendInterest(nil, in)
	got, err := decodeInterest(b)
	if err != nil || got != in {
		t.Errorf("got %+v, %v; want %+v", got, err, in)
	}
	bad := append([]byte(nil), b...)
	bad[1] = 3 // no such match policy
	if _, err := decodeInterest(bad); err == nil {
		t.Error("match 3: no error")
	}
}

// FuzzDecodeEvent: any bytes decode or fail, never panic; what decodes
// encodes again to an equal event.
func FuzzDecodeEvent(f *testing.F) {
	seeds := []remoteEvent{
		{"realm1", &router.Publication{Topic: "com.t", ID: 1}},
		{"realm1", &router.Publication{Topic: "com.t", ID: 2, Details: wamp.Dict{"publisher": int64(1)}, Payload: wamp.Payload{Args: wamp.List{"x"}},
			Filter: router.Filter{Exclude: []wamp.ID{3}, Audience: &wamp.Audience{HasEligibleAuthRole: true, EligibleAuthRole: []string{"r"}}}}},
	}
	fuzzRoundTrip(f, seeds, appendEvent, decodeEvent, func(e2, e remoteEvent) bool {
		a1, k1, _ := e.pub.Payload.Values()
		a2, k2, _ := e2.pub.Payload.Values()
		p1, p2 := *e.pub, *e2.pub
		p1.Payload, p2.Payload = wamp.Payload{}, wamp.Payload{}
		return e.realm == e2.realm && reflect.DeepEqual(p1, p2) && reflect.DeepEqual(a1, a2) && reflect.DeepEqual(k1, k2)
	})
}

// FuzzDecodeInterest: any bytes decode or fail, never panic; what
// decodes encodes to the same bytes.
func FuzzDecodeInterest(f *testing.F) {
	f.Add(appendInterest(nil, interest{Member{"n", 1}, "r", router.Subscription{Topic: "a", Match: uriindex.Prefix}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := decodeInterest(b)
		if err != nil {
			return
		}
		if again := appendInterest(nil, in); string(again) != string(b) {
			t.Fatalf("%q decoded as %+v, encodes as %q", b, in, again)
		}
	})
}
