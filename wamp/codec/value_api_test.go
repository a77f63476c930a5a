package codec

import (
	"errors"
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestValueRoundTrip(t *testing.T) {
	v := wamp.Object{{Key: "kwargs", Value: wamp.Object{{Key: "k", Value: true}}}, {Key: "args", Value: wamp.List{int64(1), "two", []byte{3}}}}
	for _, c := range []Codec{JSON, Msgpack, CBOR, UBJSON} {
		b, err := EncodeValue(c, v)
		if err != nil {
			t.Fatalf("%s: encode: %v", c.Name(), err)
		}
		got, err := DecodeValue(c, b)
		if err != nil {
			t.Fatalf("%s: decode %q: %v", c.Name(), b, err)
		}
		if !reflect.DeepEqual(got, any(v)) {
			t.Errorf("%s: got %#v, want %#v", c.Name(), got, v)
		}
	}
}

func TestDecodeValueRefusesTwoValues(t *testing.T) {
	for _, tc := range []struct {
		c Codec
		b string
	}{{JSON, "1,2"}, {JSON, "1],[2"}, {Msgpack, "\x01\x02"}, {CBOR, "\x01\x02"}, {JSON, ""}, {Msgpack, ""}} {
		if _, err := DecodeValue(tc.c, []byte(tc.b)); !errors.Is(err, wamp.ErrProtocol) {
			t.Errorf("%s %q: err %v, want ErrProtocol", tc.c.Name(), tc.b, err)
		}
	}
}
