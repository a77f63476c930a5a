package codec

import (
	"math"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func hello() *wamp.Hello {
	return &wamp.Hello{Realm: "somerealm", Details: wamp.Dict{"roles": wamp.Dict{"publisher": wamp.Dict{}, "subscriber": wamp.Dict{}}}}
}

// TestKnownVectors decodes messages written by hand in each format, the way
// other WAMP implementations send them.
func TestKnownVectors(t *testing.T) {
	tests := []struct {
		name string
		c    Codec
		in   string
		want wamp.Message
	}{
		{"spec HELLO", JSON, `[1, "somerealm", {"roles": {"publisher": {}, "subscriber": {}}}]`, hello()},
		{"spec EVENT with whitespace", JSON, " [36,\n\t5512315355, 4429313566, {}, [\"Hello, world!\"]\r] ",
			&wamp.Event{Subscription: 5512315355, Publication: 4429313566, Details: wamp.Dict{}, Args: wamp.List{"Hello, world!"}}},
		{"binary string rule", JSON, `[36,1,2,{},["\u0000AAEC/w==", "\u0000", "a\u0000"]]`,
			event2([]byte{0, 1, 2, 0xff}, []byte{}, "a\x00")},
		{"escapes and surrogates", JSON, `[36,1,2,{},["\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x"]]`,
			event2("\"\\/\b\f\n\r\t\u00e9\U0001F600\uFFFDx")},
		{"numbers", JSON, `[36,1,2,{},[0,-0,1.0,-2.5e-3,1E2,9223372036854775807,9223372036854775808,18446744073709551616,-9223372036854775809]]`,
			event2(int64(0), int64(0), 1.0, -2.5e-3, 100.0, int64(math.MaxInt64), uint64(math.MaxInt64)+1, 18446744073709551616.0, -9223372036854775809.0)},
		{"literals and duplicate key", JSON, `[36,1,2,{"a":1,"a":2},[null,true,false]]`,
			&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{"a": int64(2)}, Args: wamp.List{nil, true, false}}},

		{"autobahn passthru PUBLISH", JSON, `[16,7,{"enc_algo":"mqtt"},"t","\u0000AQI="]`,
			&wamp.Publish{Request: 7, Options: wamp.Dict{"enc_algo": "mqtt"}, Topic: "t", Raw: wamp.NewPassthru([]byte{1, 2})}},

		{"spec HELLO", Msgpack, "\x93\x01\xa9somerealm\x81\xa5roles\x82\xa9publisher\x80\xaasubscriber\x80", hello()},
		{"ext 0 is nil", Msgpack, "\x95\x24\x01\x02\x81\xaaexclude_me\xd4\x00\x00\x92\xc7\x03\x05abc\xd8\x01" + strings.Repeat("x", 16),
			&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{"exclude_me": nil}, Args: wamp.List{nil, nil}}},
		{"numbers", Msgpack, "\x95\x24\x01\x02\x80\x99\xff\xe0\xd0\x80\xd1\x80\x00\xd2\x80\x00\x00\x00\xcf\xff\xff\xff\xff\xff\xff\xff\xff\xcc\xff\xca\x3f\xc0\x00\x00\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
			event2(int64(-1), int64(-32), int64(-128), int64(-32768), int64(math.MinInt32), uint64(math.MaxUint64), int64(255), 1.5, int64(math.MinInt64))},
		{"str and bin", Msgpack, "\x95\x24\x01\x02\x80\x93\xd9\x02hi\xc4\x02\x00\x01\xda\x00\x00",
			event2("hi", []byte{0, 1}, "")},

		{"spec HELLO", CBOR, "\x83\x01\x69somerealm\xa1\x65roles\xa2\x69publisher\xa0\x6asubscriber\xa0", hello()},
		{"undefined is nil", CBOR, "\x85\x18\x24\x01\x02\xa1\x61k\xf7\x81\xf7",
			&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{"k": nil}, Args: wamp.List{nil}}},
		{"tags and numbers", CBOR, "\x85\x18\x24\x01\x02\xa0\x88\xd9\x04\xd2\x61x\xc2\x48\xff\xff\xff\xff\xff\xff\xff\xff\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00\xc3\x41\x00\xf9\x3e\x00\xfa\x3f\xc0\x00\x00\x3b\x7f\xff\xff\xff\xff\xff\xff\xff\x1b\x80\x00\x00\x00\x00\x00\x00\x00",
			event2("x", uint64(math.MaxUint64), 18446744073709551616.0, int64(-1), 1.5, 1.5, int64(math.MinInt64), uint64(1<<63))},
		{"indefinite lengths", CBOR, "\x9f\x18\x24\x01\x02\xbf\x61a\x01\xff\x9f\x7f\x61h\x61i\xff\x5f\x41\x01\xff\xff\xff",
			&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{"a": int64(1)}, Args: wamp.List{"hi", []byte{1}}}},

		{"spec HELLO", UBJSON, "[U\x01SU\x09somerealm{U\x05roles{U\x09publisher{}U\x0asubscriber{}}}]", hello()},
		{"py-ubjson bytes", UBJSON, "[U$U\x01U\x02{}[[$U#U\x02\x00\x01]]", event2([]byte{0, 1})},
		{"counted and typed", UBJSON, "[#U\x05U$U\x01U\x02{$Z#U\x01U\x01a[$i#U\x02\xff\x05",
			&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{"a": nil}, Args: wamp.List{int64(-1), int64(5)}}},
		{"scalars", UBJSON, "[U$U\x01U\x02{}[HU\x1418446744073709551615HU\x031.5Cxd\x3f\xc0\x00\x00I\x80\x00l\x80\x00\x00\x00L\x80\x00\x00\x00\x00\x00\x00\x00TFZ[$T#U\x02]]",
			event2(uint64(math.MaxUint64), 1.5, "x", 1.5, int64(math.MinInt16), int64(math.MinInt32), int64(math.MinInt64), true, false, nil, wamp.List{true, true})},
	}
	for _, tt := range tests {
		t.Run(tt.c.Name()+"/"+tt.name, func(t *testing.T) {
			got, err := decodeValues(tt.c, []byte(tt.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !equal(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func event2(args ...any) *wamp.Event {
	return &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: args}
}

func passthru(b []byte) *wamp.Event {
	return &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Raw: wamp.NewPassthru(b)}
}

// TestEncodedForm pins the bytes of the JSON encoder and of binaries in
// every format.
func TestEncodedForm(t *testing.T) {
	tests := []struct {
		c    Codec
		m    wamp.Message
		want string
	}{
		{JSON, event2([]byte{0, 1, 2, 0xff}, 1.0, 1e21, 1e-7, -0.0, "\x01\"<>"), `[36,1,2,{},["\u0000AAEC/w==",1.0,1e+21,1e-07,0.0,"\u0001\"<>"]]`},
		{Msgpack, event2([]byte{7}), "\x95\x24\x01\x02\x80\x91\xc4\x01\x07"},
		{CBOR, event2([]byte{7}), "\x85\x18\x24\x01\x02\xa0\x81\x41\x07"},
		{UBJSON, event2([]byte{7}, uint64(math.MaxUint64)), "[U$U\x01U\x02{}[[$U#U\x01\x07HU\x1418446744073709551615]]"},
		// A passthru payload stands in the Arguments position itself.
		{JSON, passthru([]byte{1, 2}), `[36,1,2,{},"\u0000AQI="]`},
		{Msgpack, passthru([]byte{7}), "\x95\x24\x01\x02\x80\xc4\x01\x07"},
		{CBOR, passthru([]byte{7}), "\x85\x18\x24\x01\x02\xa0\x41\x07"},
		{UBJSON, passthru([]byte{7}), "[U$U\x01U\x02{}[$U#U\x01\x07]"},
	}
	for _, tt := range tests {
		b, err := tt.c.Encode(tt.m)
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: Encode = %q, %v\nwant %q", tt.c.Name(), b, err, tt.want)
		}
	}
}
