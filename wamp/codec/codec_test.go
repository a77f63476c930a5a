package codec

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

var allCodecs = []Codec{JSON, Msgpack, CBOR, UBJSON}

// payload holds values of every kind, already in the generic domain (as
// decoded: dictionaries in payloads are Objects).
func payload() (wamp.List, wamp.Dict) {
	args := wamp.List{
		nil, true, false, int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		uint64(math.MaxUint64), uint64(math.MaxInt64) + 1, int64(1<<53 + 1), 1.5, -0.25, 1.0, 1e300, 5e-324,
		"", "hello", "ünïcödé ✓ 😀", "quote\" back\\ ctl\n\t\x01", []byte{}, []byte{0, 1, 2, 0xff},
		int64(127), int64(128), int64(255), int64(256), int64(-32), int64(-33), int64(-129), int64(65536), int64(-40000),
		int64(1 << 40), int64(-1 << 40),
		wamp.List{}, wamp.List{int64(1), wamp.List{"a", wamp.Object{}}},
		wamp.Object{{Key: "x", Value: wamp.Object{{Key: "y", Value: wamp.List{}}}}, {Key: "n", Value: nil}},
	}
	kwargs := wamp.Dict{"a": int64(1), "": "empty key", "ü": []byte("bin"), "f": 3.25}
	return args, kwargs
}

func allMessages() []wamp.Message {
	args, kw := payload()
	d := func() wamp.Dict { return wamp.Dict{"k": "v", "n": int64(7)} }
	return []wamp.Message{
		&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"roles": wamp.Dict{"caller": wamp.Dict{}}}},
		&wamp.Welcome{Session: 1 << 53, Details: d()},
		&wamp.Abort{Details: d(), Reason: wamp.ErrNoSuchRealm},
		&wamp.Challenge{AuthMethod: "wampcra", Extra: d()},
		&wamp.Authenticate{Signature: "sig", Extra: wamp.Dict{}},
		&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseRealm},
		&wamp.Error{RequestType: wamp.TypeCall, Request: 5, Details: d(), Error: wamp.ErrRuntimeError, Args: args, Kwargs: wamp.ObjectOf(kw)},
		&wamp.Error{RequestType: wamp.TypeCall, Request: 5, Details: d(), Error: wamp.ErrRuntimeError},
		&wamp.Publish{Request: 1, Options: d(), Topic: "com.a", Args: args},
		&wamp.Publish{Request: 1, Options: d(), Topic: "com.a", Kwargs: wamp.ObjectOf(kw)},
		&wamp.Published{Request: 1, Publication: 2},
		&wamp.Subscribe{Request: 3, Options: d(), Topic: "com.a"},
		&wamp.Subscribed{Request: 3, Subscription: 4},
		&wamp.Unsubscribe{Request: 5, Subscription: 4},
		&wamp.Unsubscribed{Request: 5},
		&wamp.Unsubscribed{Request: 0, Details: wamp.Dict{"reason": "revoked"}},
		&wamp.Event{Subscription: 4, Publication: 9, Details: d(), Args: args, Kwargs: wamp.ObjectOf(kw)},
		&wamp.Call{Request: 6, Options: d(), Procedure: "com.add", Args: wamp.List{int64(1), "hello", 3.5}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": int64(1)})},
		&wamp.Cancel{Request: 6, Options: d()},
		&wamp.Result{Request: 6, Details: d(), Args: args},
		&wamp.Register{Request: 7, Options: d(), Procedure: "com.add"},
		&wamp.Registered{Request: 7, Registration: 8},
		&wamp.Unregister{Request: 9, Registration: 8},
		&wamp.Unregistered{Request: 9},
		&wamp.Unregistered{Request: 0, Details: d()},
		&wamp.Invocation{Request: 10, Registration: 8, Details: d(), Args: args, Kwargs: wamp.ObjectOf(kw)},
		&wamp.Interrupt{Request: 10, Options: d()},
		&wamp.Yield{Request: 10, Options: d(), Args: args, Kwargs: wamp.ObjectOf(kw)},
		// Passthru payloads (autobahn's and Crossbar's payload transparency).
		&wamp.Publish{Request: 1, Options: enc(), Topic: "com.a", Raw: wamp.NewPassthru([]byte{0, 1, 0xff})},
		&wamp.Event{Subscription: 4, Publication: 9, Details: enc(), Raw: wamp.NewPassthru([]byte("mqtt bytes"))},
		&wamp.Call{Request: 6, Options: enc(), Procedure: "com.add", Raw: wamp.NewPassthru([]byte{})},
		&wamp.Invocation{Request: 10, Registration: 8, Details: enc(), Raw: wamp.NewPassthru([]byte{0})},
		&wamp.Yield{Request: 10, Options: enc(), Raw: wamp.NewPassthru([]byte("result"))},
		&wamp.Result{Request: 6, Details: enc(), Raw: wamp.NewPassthru([]byte("result"))},
		&wamp.Error{RequestType: wamp.TypeInvocation, Request: 10, Details: enc(), Error: "com.err", Raw: wamp.NewPassthru([]byte("why"))},
	}
}

// enc returns the options of a passthru payload.
func enc() wamp.Dict { return wamp.Dict{"enc_algo": "x_test", "enc_serializer": "json"} }

// equal compares decoded messages like reflect.DeepEqual, except that NaN
// equals NaN and that an Object equals a Dict or an Object of the same
// entries in any order (tests of order compare the Objects themselves).
func equal(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	return reflect.DeepEqual(replaceNaN(a), replaceNaN(b))
}

type nanMarker struct{}

// orderedObject is an Object that replaceNaN keeps as an Object (in
// order), for equalOrdered.
type orderedObject wamp.Object

// equalOrdered is equal, but Objects must hold their keys in the same
// order.
func equalOrdered(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	return reflect.DeepEqual(replaceNaN(ordered(a)), replaceNaN(ordered(b)))
}

// ordered marks the Objects of a message or value as orderedObjects.
func ordered(v any) any {
	switch x := v.(type) {
	case wamp.Object:
		o := make(orderedObject, len(x))
		for i, f := range x {
			o[i] = wamp.Field{Key: f.Key, Value: ordered(f.Value)}
		}
		return o
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = ordered(e)
		}
		return l
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = ordered(e)
		}
		return m
	case wamp.Message:
		rv := reflect.ValueOf(x).Elem()
		out := make([]any, rv.NumField()+1)
		out[0] = x.Type()
		for i := range rv.NumField() {
			out[i+1] = ordered(rv.Field(i).Interface())
		}
		return out
	}
	return v
}

// replaceNaN copies a message or value with every NaN replaced by a marker
// and every Object by a Dict.
func replaceNaN(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) {
			return nanMarker{}
		}
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = replaceNaN(e)
		}
		return l
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = replaceNaN(e)
		}
		return m
	case wamp.Object:
		if x == nil {
			return map[string]any(nil)
		}
		return replaceNaN(x.Dict())
	case orderedObject:
		o := make(wamp.Object, len(x))
		for i, f := range x {
			o[i] = wamp.Field{Key: f.Key, Value: replaceNaN(f.Value)}
		}
		return o
	case wamp.Message:
		return replaceNaNMessage(x)
	}
	return v
}

// replaceNaNMessage copies m, replacing NaN in its Dict and List fields.
func replaceNaNMessage(m wamp.Message) any {
	rv := reflect.ValueOf(m).Elem()
	out := make([]any, rv.NumField()+1)
	out[0] = m.Type()
	for i := range rv.NumField() {
		out[i+1] = replaceNaN(rv.Field(i).Interface())
	}
	return out
}

func roundTrip(t *testing.T, c Codec, m wamp.Message) wamp.Message {
	t.Helper()
	b, err := c.Encode(m)
	if err != nil {
		t.Fatalf("%s: Encode(%T): %v", c.Name(), m, err)
	}
	got, err := decodeValues(c, b)
	if err != nil {
		t.Fatalf("%s: Decode(Encode(%T)): %v\nbytes: %q", c.Name(), m, err, b)
	}
	return got
}

func TestRoundTripEveryMessage(t *testing.T) {
	for _, c := range allCodecs {
		for _, m := range allMessages() {
			t.Run(c.Name()+"/"+m.Type().String(), func(t *testing.T) {
				if got := roundTrip(t, c, m); !equal(got, m) {
					t.Errorf("round trip:\n got %#v\nwant %#v", got, m)
				}
			})
		}
	}
}

func TestRoundTripNonFiniteBinary(t *testing.T) {
	m := &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{},
		Args: wamp.List{math.NaN(), math.Inf(1), math.Inf(-1)}}
	for _, c := range []Codec{Msgpack, CBOR, UBJSON} {
		if got := roundTrip(t, c, m); !equal(got, m) {
			t.Errorf("%s: got %#v", c.Name(), got)
		}
	}
}

// TestEncodeNormalises checks the Go types Encode accepts besides the
// generic domain, and what they decode to.
func TestEncodeNormalises(t *testing.T) {
	type point struct {
		X int    `json:"x"`
		Y string `json:"label,omitempty"`
	}
	in := wamp.List{
		int(-5), int8(-6), int16(-7), int32(-8), uint(9), uint8(10), uint16(11), uint32(12),
		uint64(13), uint(math.MaxUint64), float32(0.5), wamp.ID(1 << 53), wamp.URI("com.x"),
		[]string{"a", "b"}, map[string]string{"k": "v"}, point{X: 3, Y: "p"}, &point{X: 4},
		[]int{1, 2}, map[string]int{"z": 26}, wamp.List(nil), wamp.Dict(nil),
	}
	want := wamp.List{
		int64(-5), int64(-6), int64(-7), int64(-8), int64(9), int64(10), int64(11), int64(12),
		int64(13), uint64(math.MaxUint64), 0.5, int64(1 << 53), "com.x",
		wamp.List{"a", "b"}, wamp.Dict{"k": "v"}, wamp.Dict{"x": int64(3), "label": "p"}, wamp.Dict{"x": int64(4)},
		wamp.List{int64(1), int64(2)}, wamp.Dict{"z": int64(26)}, wamp.List{}, wamp.Dict{},
	}
	for _, c := range allCodecs {
		got := roundTrip(t, c, &wamp.Yield{Request: 1, Options: nil, Args: in})
		wantMsg := &wamp.Yield{Request: 1, Options: wamp.Dict{}, Args: want}
		if !equal(got, wantMsg) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.Name(), got, wantMsg)
		}
	}
}

// TestEmptyPayloadOmitted: empty args are not sent, and args are sent
// (empty) before non-empty kwargs.
func TestEmptyPayloadOmitted(t *testing.T) {
	for _, c := range allCodecs {
		got := roundTrip(t, c, &wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "p", Args: wamp.List{}, Kwargs: wamp.ObjectOf(wamp.Dict{})})
		want := &wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "p"}
		if !equal(got, want) {
			t.Errorf("%s: empty payload: got %#v", c.Name(), got)
		}
		got = roundTrip(t, c, &wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "p", Kwargs: wamp.ObjectOf(wamp.Dict{"a": nil})})
		want = &wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "p", Args: wamp.List{}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": nil})}
		if !equal(got, want) {
			t.Errorf("%s: kwargs only: got %#v", c.Name(), got)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	cyclic := wamp.Dict{}
	cyclic["self"] = cyclic
	deep := wamp.List{}
	for range maxDepth {
		deep = wamp.List{deep}
	}
	tests := []struct {
		name   string
		m      wamp.Message
		codecs []Codec
	}{
		{"nil message", nil, allCodecs},
		{"foreign message", foreign{}, allCodecs},
		{"nil message pointer", (*wamp.Event)(nil), allCodecs},
		{"channel", event(make(chan int)), allCodecs},
		{"function", event(func() {}), allCodecs},
		{"invalid UTF-8 value", event("a\xffb"), allCodecs},
		{"invalid UTF-8 key", &wamp.Event{Subscription: 1, Publication: 1, Details: wamp.Dict{"\xff": 1}}, allCodecs},
		{"invalid UTF-8 URI", &wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: "a\xff"}, allCodecs},
		{"invalid UTF-8 in []string", event([]string{"\xfe"}), allCodecs},
		{"cycle", event(cyclic), allCodecs},
		{"too deep", event(deep), allCodecs},
		{"NaN in JSON", event(math.NaN()), []Codec{JSON}},
		{"Inf in JSON", event(math.Inf(-1)), []Codec{JSON}},
		{"NaN in a struct", event(struct{ F float64 }{math.NaN()}), allCodecs},
	}
	for _, tt := range tests {
		for _, c := range tt.codecs {
			_, err := c.Encode(tt.m)
			if !errors.Is(err, ErrEncode) {
				t.Errorf("%s: %s: err = %v, want ErrEncode", c.Name(), tt.name, err)
			}
			if tt.m != nil && !errors.Is(err, wamp.ErrUnencodable) {
				t.Errorf("%s: %s: err = %v, want wamp.ErrUnencodable", c.Name(), tt.name, err)
			}
		}
	}
}

func TestEncodeDepthLimitIsDecodable(t *testing.T) {
	// The deepest value Encode accepts decodes again with every codec.
	deep := wamp.List{}
	for range maxDepth - 3 { // message array, args list, deep's own level
		deep = wamp.List{deep}
	}
	for _, c := range allCodecs {
		got := roundTrip(t, c, event(deep))
		if !equal(got, event(deep)) {
			t.Errorf("%s: deep value changed", c.Name())
		}
	}
}

type foreign struct{}

func (foreign) Type() wamp.MessageType { return 99 }

func event(arg any) *wamp.Event {
	return &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{arg}}
}

// counter counts how often encoding/json marshals it.
type counter struct{ n *int }

func (c counter) MarshalJSON() ([]byte, error) {
	*c.n++
	return []byte(`"counted"`), nil
}

func TestSharedEncodedOncePerSerializer(t *testing.T) {
	var n int
	s := wamp.NewShared(event(counter{&n}))
	for _, c := range allCodecs {
		first, err := c.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			again, err := c.Encode(s)
			if err != nil || &again[0] != &first[0] {
				t.Fatalf("%s: second Encode gave other bytes (err %v)", c.Name(), err)
			}
		}
		got, err := decodeValues(c, first)
		if err != nil || !equal(got, event("counted")) {
			t.Errorf("%s: Decode = %#v, %v", c.Name(), got, err)
		}
	}
	if n != len(allCodecs) {
		t.Errorf("value marshalled %d times, want %d", n, len(allCodecs))
	}
}

func TestRegistry(t *testing.T) {
	want := []string{"wamp.2.cbor", "wamp.2.msgpack", "wamp.2.json", "wamp.2.ubjson",
		"wamp.2.cbor.batched", "wamp.2.msgpack.batched", "wamp.2.json.batched", "wamp.2.ubjson.batched"}
	if got := Subprotocols(); !slices.Equal(got, want) {
		t.Errorf("Subprotocols() = %v", got)
	}
	for i, sp := range want {
		c, batched, ok := Lookup(sp)
		if !ok || batched != (i >= 4) || c.Subprotocol()+map[bool]string{true: ".batched"}[batched] != sp {
			t.Errorf("Lookup(%q) = %v, %v, %v", sp, c, batched, ok)
		}
	}
	for _, sp := range []string{"", "wamp.2.xml", "wamp.2.json.batchedx", "wamp.2.JSON"} {
		if _, _, ok := Lookup(sp); ok {
			t.Errorf("Lookup(%q) found a codec", sp)
		}
	}
}

func TestCodecProperties(t *testing.T) {
	props := []struct {
		c      Codec
		name   string
		ser    wamp.Serializer
		id     byte
		binary bool
	}{
		{JSON, "json", wamp.SerializerJSON, 1, false},
		{Msgpack, "msgpack", wamp.SerializerMsgpack, 2, true},
		{CBOR, "cbor", wamp.SerializerCBOR, 3, true},
		{UBJSON, "ubjson", wamp.SerializerUBJSON, 4, true},
	}
	for _, p := range props {
		if p.c.Name() != p.name || p.c.Serializer() != p.ser || p.c.RawSocketID() != p.id || p.c.Binary() != p.binary {
			t.Errorf("%s: properties wrong", p.name)
		}
		if c, ok := ByRawSocketID(p.id); !ok || c != p.c {
			t.Errorf("ByRawSocketID(%d) = %v, %v", p.id, c, ok)
		}
	}
	for _, id := range []byte{0, 5, 15} {
		if _, ok := ByRawSocketID(id); ok {
			t.Errorf("ByRawSocketID(%d) found a codec", id)
		}
	}
}

// TestConcurrentEncode runs encoders from the pools on many goroutines, for
// the race detector, and checks every result.
func TestConcurrentEncode(t *testing.T) {
	shared := wamp.NewShared(allMessages()[16])
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			c := allCodecs[g%len(allCodecs)]
			for _, m := range append(allMessages(), shared) {
				b, err := c.Encode(m)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := decodeValues(c, b); err != nil || !equal(got, wamp.Unwrap(m)) {
					t.Errorf("%s: %s: got %#v, %v", c.Name(), m.Type(), got, err)
				}
			}
		})
	}
	wg.Wait()
}

// TestEncodeObjectKeepsOrder: an Object's keys are written in its order,
// at any depth; a nil Object is written as {}.
func TestEncodeObjectKeepsOrder(t *testing.T) {
	o := wamp.Object{{Key: "zeta", Value: int64(0)}, {Key: "alpha", Value: wamp.Object{{Key: "y", Value: nil}, {Key: "b", Value: wamp.Object(nil)}}}}
	b, err := JSON.Encode(&wamp.Yield{Request: 1, Args: wamp.List{o}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[70,1,{},[{"zeta":0,"alpha":{"y":null,"b":{}}}]]`; string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	for _, c := range allCodecs[1:] {
		b, err := c.Encode(&wamp.Yield{Request: 1, Args: wamp.List{o}})
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if i, j := bytes.Index(b, []byte("zeta")), bytes.Index(b, []byte("alpha")); i < 0 || j < i {
			t.Fatalf("%s: zeta at %d, alpha at %d: order not kept in % x", c.Name(), i, j, b)
		}
	}
}

// decodeValues decodes b with c, its payload as values (not raw).
func decodeValues(c Codec, b []byte) (wamp.Message, error) {
	m, err := c.Decode(b)
	if err != nil {
		return nil, err
	}
	return wamp.Decoded(m)
}
