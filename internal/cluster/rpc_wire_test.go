package cluster

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// rawPayload is the raw payload of a YIELD decoded from JSON: its bytes
// must reach the caller as they came.
func rawPayload(t testing.TB) *wamp.Raw {
	m, err := codec.JSON.Decode([]byte(`[70,1,{},[1,"two",{"x":[3]}],{"k":"v"}]`))
	if err != nil {
		t.Fatal(err)
	}
	y := m.(*wamp.Yield)
	if y.Raw == nil {
		t.Fatal("the JSON codec kept no raw payload")
	}
	return y.Raw
}

func callSamples(t testing.TB) []callMsg {
	raw := rawPayload(t)
	return []callMsg{
		{realm: "realm1", callee: 7, m: &wamp.Invocation{Request: 1, Registration: wamp.MaxID,
			Details: wamp.Dict{"caller": int64(9), "receive_progress": true}, Args: wamp.List{"a", int64(2)},
			Kwargs: wamp.ObjectOf(wamp.Dict{"k": true})}},
		{realm: "realm1", callee: 7, m: &wamp.Invocation{Request: 2, Registration: 3, Details: wamp.Dict{}, Raw: raw}},
		{realm: "r", callee: 1, m: &wamp.Interrupt{Request: 4, Options: wamp.Dict{"mode": "kill", "reason": "wamp.error.canceled"}}},
		{realm: "r", callee: 1, m: &wamp.Result{Request: 5, Details: wamp.Dict{"progress": true}, Raw: raw}},
		{realm: "r", callee: 1, m: &wamp.Result{Request: 6, Details: wamp.Dict{}}},
		{realm: "r", callee: 1, m: &wamp.Error{RequestType: wamp.TypeCall, Request: 7, Details: wamp.Dict{},
			Error: "com.err", Args: wamp.List{"bad"}}},
		{realm: "r"},
	}
}

func TestCallWire(t *testing.T) {
	for _, want := range callSamples(t) {
		b, err := appendCall(nil, want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeCall(b)
		if err != nil {
			t.Fatalf("%T: %v", want.m, err)
		}
		if got.realm != want.realm || got.callee != want.callee {
			t.Errorf("%T: realm %q callee %d, want %q %d", want.m, got.realm, got.callee, want.realm, want.callee)
		}
		if !sameCall(got.m, want.m) {
			t.Errorf("%T: got %+v, want %+v", want.m, got.m, want.m)
		}
	}
	if _, err := appendCall(nil, callMsg{m: &wamp.Call{}}); err == nil {
		t.Error("a CALL was encoded")
	}
}

// sameCall compares two call messages, their payloads by value (a raw
// payload by its serializer and bytes, which must pass through).
func sameCall(got, want wamp.Message) bool {
	if got == nil || want == nil {
		return got == want
	}
	gp, wp := wamp.PayloadOf(got), wamp.PayloadOf(want)
	if wp.Raw != nil {
		if gp.Raw == nil || gp.Raw.Serializer() != wp.Raw.Serializer() || !bytes.Equal(gp.Raw.Bytes(), wp.Raw.Bytes()) {
			return false
		}
	} else {
		ga, gk, _ := gp.Values()
		wa, wk, _ := wp.Values()
		if !reflect.DeepEqual(ga, wa) || !reflect.DeepEqual(gk.Dict(), wk.Dict()) {
			return false
		}
	}
	clear := func(m wamp.Message) wamp.Message {
		switch m := m.(type) {
		case *wamp.Invocation:
			c := *m
			c.Args, c.Kwargs, c.Raw = nil, nil, nil
			return &c
		case *wamp.Result:
			c := *m
			c.Args, c.Kwargs, c.Raw = nil, nil, nil
			return &c
		case *wamp.Error:
			c := *m
			c.Args, c.Kwargs, c.Raw = nil, nil, nil
			return &c
		}
		return m
	}
	return reflect.DeepEqual(clear(got), clear(want))
}

func TestRecordWire(t *testing.T) {
	want := &record{id: 42, realm: "realm1", match: "prefix", procedure: "com.a.", policy: "roundrobin", next: 4,
		callees: []entry{{Member{"node-1", 1 << 60}, 7, 1, true}, {Member{"n=2", 3}, wamp.MaxID, 3, false}}}
	got, err := decodeRecord(appendRecord(nil, want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, b := range [][]byte{nil, {2}, appendRecord(nil, want)[:10], append(appendRecord(nil, want), 0)} {
		if _, err := decodeRecord(b); err == nil {
			t.Errorf("%x decoded", b)
		}
	}
}

// FuzzCallWire: any bytes decode to a call message or an error, never a
// panic; what decodes encodes again to a message that decodes the same.
func FuzzCallWire(f *testing.F) {
	fuzzRoundTrip(f, callSamples(f), appendCall, decodeCall, func(d, c callMsg) bool {
		return d.realm == c.realm && d.callee == c.callee && sameCall(d.m, c.m)
	})
}

// FuzzRecordWire: any bytes decode to a record or an error, never a
// panic; a record decoded encodes and decodes again to an equal one.
func FuzzRecordWire(f *testing.F) {
	samples := []*record{{id: 1, realm: "r", match: "exact", procedure: "p", policy: "single", next: 2,
		callees: []entry{{Member{"a", 1}, 1, 1, true}}}}
	enc := func(b []byte, r *record) ([]byte, error) { return appendRecord(b, r), nil }
	f.Add([]byte{1, 0})
	fuzzRoundTrip(f, samples, enc, decodeRecord, func(got, want *record) bool { return reflect.DeepEqual(got, want) })
}
