package mqtt

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestMapperLongestPrefix(t *testing.T) {
	calls := 0
	call := func(_ context.Context, realm string, proc wamp.URI, args wamp.List) (any, error) {
		calls++
		if realm != "codec" || proc != "dec" || args[0] != "a.b.c" || args[1] != "a/b/c" {
			t.Errorf("call %s %s %v", realm, proc, args)
		}
		return wamp.Dict{"args": wamp.List{"decoded"}, "exclude": wamp.List{int64(1)}, "other": 1}, nil
	}
	m, err := newMapper(map[string]Mapping{
		"":      {Serializer: "json"},
		"a.b.":  {Encoder: "enc", Decoder: "dec", Realm: "codec"},
		"a.b.x": {Serializer: "msgpack"},
	}, call)
	if err != nil {
		t.Fatal(err)
	}
	pl, opts, err := m.decode(context.Background(), "r", "a.b.c", "a/b/c", []byte("ignored"))
	args := pl.Args
	if err != nil || !reflect.DeepEqual(args, wamp.List{"decoded"}) || !reflect.DeepEqual(opts, wamp.Dict{"exclude": wamp.List{int64(1)}}) || calls != 1 {
		t.Fatalf("dynamic: %v %v %v (calls %d)", args, opts, err, calls)
	}
	pl, _, err = m.decode(context.Background(), "r", "z", "z", []byte(`{"args":[1],"kwargs":{"k":"v"}}`))
	args, kwargs := pl.Args, pl.Kwargs
	if err != nil || !reflect.DeepEqual(args, wamp.List{int64(1)}) || kwargs.Dict()["k"] != "v" {
		t.Fatalf("native json: %v %v %v", args, kwargs, err)
	}
	b, err := m.encode(context.Background(), "r", "a.b.xy", "a/b/xy", wamp.Payload{Args: wamp.List{"x"}})
	if err != nil || string(b) != "\x81\xa4args\x91\xa1x" {
		t.Fatalf("native msgpack: %q %v", b, err)
	}
	if _, _, err := m.decode(context.Background(), "r", "z", "z", []byte(`[1]`)); err == nil {
		t.Fatal("a payload that is not a dict was accepted")
	}
}

func TestMapperUnmapped(t *testing.T) {
	m, err := newMapper(map[string]Mapping{"com.": {Serializer: "cbor"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.decode(context.Background(), "r", "org.x", "org/x", nil); !errors.Is(err, errUnmapped) {
		t.Fatalf("decode: %v", err)
	}
	if _, err := m.encode(context.Background(), "r", "org.x", "org/x", wamp.Payload{}); !errors.Is(err, errUnmapped) {
		t.Fatalf("encode: %v", err)
	}
}

func TestMapperRefusesBadMappings(t *testing.T) {
	for _, maps := range []map[string]Mapping{
		{"": {Serializer: "xml"}},
		{"": {Encoder: "e"}},
		{"": {Encoder: "e", Decoder: "d"}}, // no Call
		{"": {Passthrough: true, Serializer: "json"}},
	} {
		if _, err := newMapper(maps, nil); err == nil {
			t.Errorf("%v accepted", maps)
		}
	}
}

// TestMapperPassthrough: a passthrough topic takes the MQTT payload as
// a passthru payload (empty too) and gives back an event's; a passthru
// payload on a native topic is refused.
func TestMapperPassthrough(t *testing.T) {
	m, err := newMapper(map[string]Mapping{"raw.": {Passthrough: true}, "": {Serializer: "json"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]byte{{1, 2}, nil} {
		pl, opts, err := m.decode(context.Background(), "r", "raw.x", "raw/x", in)
		if err != nil || pl.Passthru() == nil || string(pl.Passthru()) != string(in) || opts["enc_algo"] != "mqtt" {
			t.Fatalf("decode %q: %+v %v %v", in, pl, opts, err)
		}
	}
	if b, err := m.encode(context.Background(), "r", "raw.x", "raw/x", wamp.Payload{Raw: wamp.NewPassthru([]byte{3})}); err != nil || string(b) != "\x03" {
		t.Fatalf("encode: %q %v", b, err)
	}
	if _, err := m.encode(context.Background(), "r", "raw.x", "raw/x", wamp.Payload{Args: wamp.List{1}}); !errors.Is(err, errNoPassthru) {
		t.Fatalf("encode of arguments: %v", err)
	}
	if _, err := m.encode(context.Background(), "r", "json.x", "json/x", wamp.Payload{Raw: wamp.NewPassthru([]byte{3})}); !errors.Is(err, wamp.ErrPassthru) {
		t.Fatalf("encode of a passthru payload on a native topic: %v", err)
	}
}
