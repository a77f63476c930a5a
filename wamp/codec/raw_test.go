package codec

import (
	"bytes"
	"reflect"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestRawPassThrough: a payload decoded by JSON, MessagePack or CBOR is
// kept raw, and encoding the message again in the same format writes its
// bytes unchanged: a JSON number written 1.50, keys out of order and
// repeated, whitespace. Other formats get the values.
func TestRawPassThrough(t *testing.T) {
	tests := []struct {
		c       Codec
		in      string
		payload string
	}{
		{JSON, `[36,1,2,{},[1.50, "x"] ,{"b":1,"a":{"z":[],"y":2},"b":3}]`, `[1.50, "x"] ,{"b":1,"a":{"z":[],"y":2},"b":3}`},
		{JSON, `[70,5,{},[{"k":1e2}]]`, `[{"k":1e2}]`},
		{Msgpack, "\x96\x24\x01\x02\x80\x91\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00\x82\xa1b\x01\xa1a\x02", "\x91\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00\x82\xa1b\x01\xa1a\x02"},
		{CBOR, "\x86\x18\x24\x01\x02\xa0\x81\xf9\x3e\x00\xa2\x61b\x01\x61a\x02", "\x81\xf9\x3e\x00\xa2\x61b\x01\x61a\x02"},
	}
	for _, tt := range tests {
		m, err := tt.c.Decode([]byte(tt.in))
		if err != nil {
			t.Fatalf("%s %q: %v", tt.c.Name(), tt.in, err)
		}
		p := wamp.PayloadOf(m)
		if p.Raw == nil || p.Args != nil || p.Kwargs != nil || string(p.Raw.Bytes()) != tt.payload {
			t.Fatalf("%s %q: payload %+v, want raw %q", tt.c.Name(), tt.in, p, tt.payload)
		}
		out, err := tt.c.Encode(m)
		if err != nil || !bytes.Contains(out, []byte(tt.payload)) {
			t.Errorf("%s: re-encoded %q, %v; want the payload %q unchanged", tt.c.Name(), out, err, tt.payload)
		}
		want, err := tt.c.(*format).decodeMessage([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range allCodecs {
			b, err := other.Encode(m)
			if err != nil {
				t.Fatalf("%s to %s: %v", tt.c.Name(), other.Name(), err)
			}
			if got, err := decodeValues(other, b); err != nil || !equal(got, want) {
				t.Errorf("%s to %s: %#v, %v; want %#v", tt.c.Name(), other.Name(), got, err, want)
			}
		}
	}
}

// TestRawNormalised: a payload holding a value that decoding normalises
// (a MessagePack extension, a CBOR tag or undefined) is decoded, not kept
// raw, so that every receiver gets the normalised value.
func TestRawNormalised(t *testing.T) {
	tests := []struct {
		c    Codec
		in   string
		args wamp.List
	}{
		{Msgpack, "\x95\x24\x01\x02\x80\x92\xd4\x00\x00\x01", wamp.List{nil, int64(1)}},
		{CBOR, "\x85\x18\x24\x01\x02\xa0\x82\xf7\xc1\x01", wamp.List{nil, "1970-01-01T00:00:01Z"}},
	}
	for _, tt := range tests {
		m, err := tt.c.Decode([]byte(tt.in))
		if err != nil {
			t.Fatalf("%s %q: %v", tt.c.Name(), tt.in, err)
		}
		if p := wamp.PayloadOf(m); p.Raw != nil || !reflect.DeepEqual(p.Args, tt.args) {
			t.Errorf("%s %q: payload %+v, want values %#v", tt.c.Name(), tt.in, p, tt.args)
		}
	}
}

// TestRawSharedEncoders: one raw EVENT encoded for every serializer at
// once (a Shared, as the broker sends it) decodes its payload once and
// gives each the same values; the bytes given to the codec may be reused
// once decoded.
func TestRawSharedEncoders(t *testing.T) {
	in := []byte(`[36,1,2,{},[1,{"b":2,"a":[3]}],{"k":"v","j":null}]`)
	m, err := JSON.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	clear(in) // Decode copied what it keeps
	s := wamp.NewShared(m)
	want := &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{},
		Args:   wamp.List{int64(1), wamp.Object{{Key: "b", Value: int64(2)}, {Key: "a", Value: wamp.List{int64(3)}}}},
		Kwargs: wamp.Object{{Key: "k", Value: "v"}, {Key: "j", Value: nil}}}
	var wg sync.WaitGroup
	for range 4 {
		for _, c := range allCodecs {
			wg.Go(func() {
				b, err := c.Encode(s)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := decodeValues(c, b); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %#v, %v", c.Name(), got, err)
				}
			})
		}
	}
	wg.Wait()
}

// TestEagerDecodesPayload: an Eager codec gives values where its codec
// keeps the payload raw, encodes alike, and still serves the value API.
func TestEagerDecodesPayload(t *testing.T) {
	for _, c := range []Codec{JSON, Msgpack, CBOR, UBJSON} {
		t.Run(c.Name(), func(t *testing.T) {
			m := &wamp.Event{Subscription: 1, Publication: 2, Args: wamp.List{int64(1)},
				Kwargs: wamp.Object{{Key: "zeta", Value: int64(0)}, {Key: "alpha", Value: "a"}}}
			b, err := c.Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			e := Eager(c)
			if Eager(e) != e {
				t.Fatal("Eager of an Eager codec wraps it again")
			}
			eb, err := e.Encode(m)
			if err != nil || !bytes.Equal(eb, b) {
				t.Fatalf("Eager encodes %x, %v; want %x", eb, err, b)
			}
			got, err := e.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			ev := got.(*wamp.Event)
			if ev.Raw != nil {
				t.Fatal("Eager kept the payload raw")
			}
			if !reflect.DeepEqual(ev.Kwargs, m.Kwargs) || !reflect.DeepEqual(ev.Args, m.Args) {
				t.Fatalf("payload %v %v, want %v %v", ev.Args, ev.Kwargs, m.Args, m.Kwargs)
			}
			v, err := EncodeValue(e, m.Kwargs)
			if err != nil {
				t.Fatal(err)
			}
			if back, err := DecodeValue(e, v); err != nil || !reflect.DeepEqual(back, m.Kwargs) {
				t.Fatalf("value API through Eager: %v, %v", back, err)
			}
		})
	}
}

// TestFloatMessageType: a message type written as an integral float is
// read as wamp.Decode reads it, payload included, raw or not.
func TestFloatMessageType(t *testing.T) {
	tests := []struct {
		c  Codec
		in string
	}{
		{JSON, `[48.0,1,{},"p",[1],{"b":1,"a":2}]`},
		{Msgpack, "\x96\xcb\x40\x48\x00\x00\x00\x00\x00\x00\x01\x80\xa1p\x91\x01\x82\xa1b\x01\xa1a\x02"},
		{CBOR, "\x86\xfb\x40\x48\x00\x00\x00\x00\x00\x00\x01\xa0\x61p\x81\x01\xa2\x61b\x01\x61a\x02"},
	}
	want := wamp.Object{{Key: "b", Value: int64(1)}, {Key: "a", Value: int64(2)}}
	for _, tt := range tests {
		for _, c := range []Codec{tt.c, Eager(tt.c)} {
			m, err := c.Decode([]byte(tt.in))
			if err != nil {
				t.Fatalf("%s: %v", tt.c.Name(), err)
			}
			args, kwargs, err := wamp.Values(m)
			if err != nil || !reflect.DeepEqual(args, wamp.List{int64(1)}) || !reflect.DeepEqual(kwargs, want) {
				t.Fatalf("%s: payload %v %v %v", tt.c.Name(), args, kwargs, err)
			}
		}
	}
}
