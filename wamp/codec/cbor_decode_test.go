package codec

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// noPayload, as the from of decodeCBORMessage, makes every dictionary a
// Dict.
const noPayload = math.MaxInt

// TestCBORObjects: dictionaries in payload elements decode as Objects in
// wire order, a repeated key's last value at the place of its first; the
// others as Dicts.
func TestCBORObjects(t *testing.T) {
	obj := func(kv ...any) wamp.Object {
		o := wamp.Object{}
		for i := 0; i < len(kv); i += 2 {
			o = append(o, wamp.Field{Key: kv[i].(string), Value: kv[i+1]})
		}
		return o
	}
	tests := []struct {
		name string
		from int
		in   string
		want []any
	}{
		{"EVENT kwargs in order", fromType, "\x86\x18\x24\x01\x02\xa1\x61d\xa0\x81\xa1\x61x\x01\xa3\x64zeta\x00\x65alpha\x01\x61m\xa2\x61z\xf6\x61a\x80",
			[]any{int64(36), int64(1), int64(2), wamp.Dict{"d": wamp.Dict{}}, []any{obj("x", int64(1))},
				obj("zeta", int64(0), "alpha", int64(1), "m", obj("z", nil, "a", []any{}))}},
		{"repeated keys", fromType, "\x86\x18\x24\x01\x02\xa2\x61k\x01\x61k\x02\x80\xa4\x61b\x01\x61a\x02\x61b\x03\xf6\x04",
			[]any{int64(36), int64(1), int64(2), wamp.Dict{"k": int64(2)}, []any{}, obj("b", int64(3), "a", int64(2), "", int64(4))}},
		{"indefinite and tagged keys", fromType, "\x86\x18\x30\x01\xa0\x61p\x80\xbf\x7f\x61k\x61z\xff\x01\xd8\x64\x61a\x02\xf7\x03\xff",
			[]any{int64(48), int64(1), wamp.Dict{}, "p", []any{}, obj("kz", int64(1), "a", int64(2), "", int64(3))}},
		{"ERROR", fromType, "\x87\x08\x18\x30\x01\xa1\x61k\xa0\x61e\x81\xa0\xa0",
			[]any{int64(8), int64(48), int64(1), wamp.Dict{"k": wamp.Dict{}}, "e", []any{obj()}, obj()}},
		{"RESULT", fromType, "\x84\x18\x32\x01\xa0\x81\xa1\x61b\xa1\x61a\x01",
			[]any{int64(50), int64(1), wamp.Dict{}, []any{obj("b", obj("a", int64(1)))}}},
		{"no payload in HELLO", fromType, "\x83\x01\x61r\xa1\x61b\xa0",
			[]any{int64(1), "r", wamp.Dict{"b": wamp.Dict{}}}},
		{"no type", fromType, "\x82\xa0\xa0", []any{wamp.Dict{}, wamp.Dict{}}},
		{"every element a payload", 0, "\x82\xa0\x81\xa1\x61b\x01", []any{obj(), []any{obj("b", int64(1))}}},
		{"no payload", noPayload, "\x85\x18\x24\x01\x02\xa0\x81\xa1\x61b\x01",
			[]any{int64(36), int64(1), int64(2), wamp.Dict{}, []any{wamp.Dict{"b": int64(1)}}}},
		{"many repeated keys", fromType, "\x86\x18\x24\x01\x02\xa0\x80" + mapOfKeys(20)[:2] + mapOfKeys(20)[2:2+19*4] + "\x62aa\xf6",
			[]any{int64(36), int64(1), int64(2), wamp.Dict{}, []any{}, manyKeys(19)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeCBORMessage([]byte(tt.in), tt.from)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// mapOfKeys is a CBOR map of n (at most 255) distinct keys.
func mapOfKeys(n int) string {
	var b strings.Builder
	b.WriteString("\xb8")
	b.WriteByte(byte(n))
	for i := range n {
		b.WriteString("\x62")
		b.WriteByte('a' + byte(i/26))
		b.WriteByte('a' + byte(i%26))
		b.WriteByte(0)
	}
	return b.String()
}

// manyKeys is the Object of mapOfKeys(n) with the first key's value nil.
func manyKeys(n int) wamp.Object {
	o := make(wamp.Object, n)
	for i := range o {
		o[i] = wamp.Field{Key: string([]byte{'a' + byte(i/26), 'a' + byte(i%26)}), Value: int64(0)}
	}
	o[0].Value = nil
	return o
}

// TestCBORKwargsInOrder: a CALL's keyword arguments reach wamp.Call in wire
// order, nested ones too, and its options as a Dict.
func TestCBORKwargsInOrder(t *testing.T) {
	in := "\x86\x18\x30\x01\xa1\x61t\x01\x61p\x80\xa2\x64zeta\x00\x65alpha\xa2\x61y\x01\x61b\x02"
	m, err := decodeValues(CBOR, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &wamp.Call{Request: 1, Options: wamp.Dict{"t": int64(1)}, Procedure: "p", Args: wamp.List{},
		Kwargs: wamp.Object{{Key: "zeta", Value: int64(0)}, {Key: "alpha", Value: wamp.Object{{Key: "y", Value: int64(1)}, {Key: "b", Value: int64(2)}}}}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got  %#v\nwant %#v", m, want)
	}
}
