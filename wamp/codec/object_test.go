package codec

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestDecodeKeepsPayloadOrder: every dictionary in a payload element
// decodes as an Object in the order sent, at any depth; the elements before
// the payload (Details, Options) stay Dicts.
func TestDecodeKeepsPayloadOrder(t *testing.T) {
	inner := wamp.Object{{Key: "z", Value: int64(1)}, {Key: "a", Value: wamp.List{wamp.Object{{Key: "y", Value: nil}, {Key: "b", Value: true}}}}}
	kw := wamp.Object{{Key: "zeta", Value: inner}, {Key: "alpha", Value: "x"}, {Key: "mid", Value: wamp.Object{}}}
	msgs := []wamp.Message{
		&wamp.Call{Request: 1, Options: wamp.Dict{"o": wamp.Dict{"p": int64(1)}}, Procedure: "p", Args: wamp.List{inner}, Kwargs: kw},
		&wamp.Error{RequestType: wamp.TypeCall, Request: 1, Details: wamp.Dict{"d": int64(1)}, Error: "e", Args: wamp.List{inner}, Kwargs: kw},
		&wamp.Yield{Request: 1, Options: wamp.Dict{}, Args: wamp.List{inner}, Kwargs: kw},
	}
	for _, c := range []Codec{JSON, Msgpack, UBJSON} {
		for _, m := range msgs {
			got := roundTrip(t, c, m)
			if !reflect.DeepEqual(got, m) {
				t.Errorf("%s %s:\n got %#v\nwant %#v", c.Name(), m.Type(), got, m)
			}
		}
	}
}

// TestDecodeDuplicateKeys: a key sent twice keeps the last value, at the
// place of the first, in payloads (Objects) and elsewhere (Dicts).
func TestDecodeDuplicateKeys(t *testing.T) {
	want := &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{"d": int64(2)},
		Args:   wamp.List{wamp.Object{{Key: "b", Value: int64(3)}, {Key: "a", Value: int64(2)}}},
		Kwargs: wamp.Object{{Key: "k", Value: "last"}, {Key: "j", Value: nil}}}
	many := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":"x"}`
	tests := []struct {
		c    Codec
		in   string
		want wamp.Message
	}{
		{JSON, `[36,1,2,{"d":1,"d":2},[{"b":1,"a":2,"b":3}],{"k":"first","j":null,"k":"last"}]`, want},
		{Msgpack, "\x96\x24\x01\x02\x82\xa1d\x01\xa1d\x02\x91\x83\xa1b\x01\xa1a\x02\xa1b\x03\x83\xa1k\xa5first\xa1j\xc0\xa1k\xa4last", want},
		{UBJSON, "[U\x24U\x01U\x02{U\x01dU\x01U\x01dU\x02}[{U\x01bU\x01U\x01aU\x02U\x01bU\x03}]{U\x01kSU\x05firstU\x01jZU\x01kSU\x04last}]", want},
		{JSON, `[36,1,2,{},[],` + many + `]`, &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{},
			Kwargs: func() wamp.Object {
				o := wamp.Object{}
				for i := range 17 {
					o = append(o, wamp.Field{Key: "k" + strconv.Itoa(i), Value: int64(i)})
				}
				o[3].Value = "x"
				return o
			}()}},
	}
	for _, tt := range tests {
		got, err := decodeValues(tt.c, []byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %q:\n got %#v, %v\nwant %#v", tt.c.Name(), tt.in, got, err, tt.want)
		}
	}
}
