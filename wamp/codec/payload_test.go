package codec

import (
	"errors"
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestPayloadPassesThrough: a raw payload made bytes by PayloadBytes and a
// payload again by Payload is raw, in its serializer, with the same bytes:
// a receiver of that serializer gets them unchanged.
func TestPayloadPassesThrough(t *testing.T) {
	for _, in := range []struct {
		c   Codec
		msg string
	}{
		{JSON, `[36,1,2,{},[1.50, "x"] ,{"b":1,"a":{"z":[],"y":2},"b":3}]`},
		{JSON, `[36,1,2,{},[]]`},
		{Msgpack, "\x96\x24\x01\x02\x80\x91\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00\x82\xa1b\x01\xa1a\x02"},
		{CBOR, "\x86\x18\x24\x01\x02\xa0\x81\xf9\x3e\x00\xa2\x61b\x01\x61a\x02"},
	} {
		m, err := in.c.Decode([]byte(in.msg))
		if err != nil {
			t.Fatal(err)
		}
		raw := wamp.PayloadOf(m).Raw
		ser, b, n, err := PayloadBytes(wamp.PayloadOf(m))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Payload(ser, b, n)
		if err != nil || p.Raw == nil || p.Raw.Serializer() != in.c.Serializer() || string(p.Raw.Bytes()) != string(raw.Bytes()) || p.Raw.Len() != raw.Len() {
			t.Errorf("%s %q: payload %+v, %v; want raw %q", in.c.Name(), in.msg, p, err, raw.Bytes())
		}
	}
}

// TestPayloadValues: values (from UBJSON or the router itself) travel as
// MessagePack and come back equal, the types a decoder gives included.
func TestPayloadValues(t *testing.T) {
	tests := []wamp.Payload{
		{},
		{Args: wamp.List{}},
		{Args: wamp.List{int64(1), 1.0, -2.5, "s", []byte{0, 1}, nil, true, wamp.List{int64(3)}, wamp.Object{{Key: "k", Value: "v"}}}},
		{Kwargs: wamp.Object{{Key: "b", Value: int64(1)}, {Key: "a", Value: uint64(1 << 63)}}},
		{Args: wamp.List{"x"}, Kwargs: wamp.Object{{Key: "z", Value: wamp.List{}}}},
	}
	for _, in := range tests {
		ser, b, n, err := PayloadBytes(in)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Payload(ser, b, n)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		args, kwargs, err := p.Values()
		wantArgs := in.Args
		if len(in.Args) == 0 {
			wantArgs = nil
			if len(in.Kwargs) > 0 {
				wantArgs = wamp.List{}
			}
		}
		if err != nil || !reflect.DeepEqual(args, wantArgs) || !reflect.DeepEqual(kwargs, in.Kwargs) {
			t.Errorf("%+v came back as %#v, %#v, %v", in, args, kwargs, err)
		}
	}
}

func TestPayloadErrors(t *testing.T) {
	tests := []struct {
		name string
		ser  wamp.Serializer
		b    string
		n    int
	}{
		{"ubjson", wamp.SerializerUBJSON, "[]", 1},
		{"n 3", wamp.SerializerJSON, "[],{},[]", 3},
		{"fewer elements", wamp.SerializerJSON, "[]", 2},
		{"more elements", wamp.SerializerJSON, "[],{}", 1},
		{"args not a list", wamp.SerializerJSON, "{}", 1},
		{"closing the message", wamp.SerializerJSON, "[]],[1", 1},
		{"msgpack truncated", wamp.SerializerMsgpack, "\x92\x01", 1},
		{"msgpack trailing", wamp.SerializerMsgpack, "\x90\x80\x01", 2},
		{"cbor garbage", wamp.SerializerCBOR, "\xff", 1},
		{"bytes without elements", wamp.SerializerCBOR, "\x80", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := Payload(tt.ser, []byte(tt.b), tt.n); !errors.Is(err, wamp.ErrProtocol) {
				t.Errorf("payload %+v, error %v; want one wrapping ErrProtocol", p, err)
			}
		})
	}
}

// FuzzPayload: any bytes give a payload or an error, never a panic; a
// payload made bytes again comes back with the same values.
func FuzzPayload(f *testing.F) {
	f.Add(uint8(0), []byte(`[1,"x"],{"a":1}`), uint8(2))
	f.Add(uint8(1), []byte("\x91\x01"), uint8(1))
	f.Add(uint8(2), []byte("\x81\xf9\x3e\x00\xa1\x61a\x02"), uint8(2))
	f.Add(uint8(0), []byte(`[]]`), uint8(1))
	f.Fuzz(func(t *testing.T, ser uint8, b []byte, n uint8) {
		p, err := Payload(wamp.Serializer(ser), b, int(n))
		if err != nil {
			return
		}
		args, kwargs, err := p.Values()
		if err != nil {
			t.Fatalf("accepted payload does not decode: %v", err)
		}
		s2, b2, n2, err := PayloadBytes(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Payload(s2, b2, n2)
		if err != nil {
			t.Fatalf("payload made bytes is refused: %v", err)
		}
		a2, k2, err := q.Values()
		if err != nil || !equal(wamp.List{args, kwargs}, wamp.List{a2, k2}) {
			t.Fatalf("%#v %#v came back as %#v %#v, %v", args, kwargs, a2, k2, err)
		}
	})
}

// TestPayloadPassthru: a passthru payload made bytes by PayloadBytes (a
// MessagePack binary, one element) is a passthru payload again, with the
// same bytes, whatever serializer it came in: what the cluster's
// envelopes carry.
func TestPayloadPassthru(t *testing.T) {
	for _, in := range []struct {
		c   Codec
		msg string
	}{
		{JSON, `[16,1,{"enc_algo":"mqtt"},"t","\u0000AP8="]`},
		{Msgpack, "\x95\x10\x01\x81\xa8enc_algo\xa4mqtt\xa1t\xc4\x02\x00\xff"},
		{CBOR, "\x85\x10\x01\xa1\x68enc_algo\x64mqtt\x61t\x42\x00\xff"},
		{UBJSON, "[U\x10U\x01{U\x08enc_algoSU\x04mqtt}SU\x01t[$U#U\x02\x00\xff]"},
	} {
		m, err := in.c.Decode([]byte(in.msg))
		if err != nil {
			t.Fatalf("%s: %v", in.c.Name(), err)
		}
		if got := wamp.PayloadOf(m).Passthru(); string(got) != "\x00\xff" {
			t.Fatalf("%s: decoded passthru %q", in.c.Name(), got)
		}
		ser, b, n, err := PayloadBytes(wamp.PayloadOf(m))
		if err != nil || ser != wamp.SerializerMsgpack || n != 1 {
			t.Fatalf("%s: PayloadBytes = %d, %q, %d, %v", in.c.Name(), ser, b, n, err)
		}
		p, err := Payload(ser, b, n)
		if err != nil || string(p.Passthru()) != "\x00\xff" || p.Args != nil {
			t.Errorf("%s: payload %+v, %v; want the passthru bytes", in.c.Name(), p, err)
		}
	}
}
