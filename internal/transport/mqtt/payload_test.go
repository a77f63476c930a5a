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
	args, _, opts, err := m.decode(context.Background(), "r", "a.b.c", "a/b/c", []byte("ignored"))
	if err != nil || !reflect.DeepEqual(args, wamp.List{"decoded"}) || !reflect.DeepEqual(opts, wamp.Dict{"exclude": wamp.List{int64(1)}}) || calls != 1 {
		t.Fatalf("dynamic: %v %v %v (calls %d)", args, opts, err, calls)
	}
	args, kwargs, _, err := m.decode(context.Background(), "r", "z", "z", []byte(`{"args":[1],"kwargs":{"k":"v"}}`))
	if err != nil || !reflect.DeepEqual(args, wamp.List{int64(1)}) || kwargs.Dict()["k"] != "v" {
		t.Fatalf("native json: %v %v %v", args, kwargs, err)
	}
	b, err := m.encode(context.Background(), "r", "a.b.xy", "a/b/xy", wamp.List{"x"}, nil)
	if err != nil || string(b) != "\x81\xa4args\x91\xa1x" {
		t.Fatalf("native msgpack: %q %v", b, err)
	}
	if _, _, _, err := m.decode(context.Background(), "r", "z", "z", []byte(`[1]`)); err == nil {
		t.Fatal("a payload that is not a dict was accepted")
	}
}

func TestMapperUnmapped(t *testing.T) {
	m, err := newMapper(map[string]Mapping{"com.": {Serializer: "cbor"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := m.decode(context.Background(), "r", "org.x", "org/x", nil); !errors.Is(err, errUnmapped) {
		t.Fatalf("decode: %v", err)
	}
	if _, err := m.encode(context.Background(), "r", "org.x", "org/x", nil, nil); !errors.Is(err, errUnmapped) {
		t.Fatalf("encode: %v", err)
	}
}

func TestMapperRefusesBadMappings(t *testing.T) {
	for _, maps := range []map[string]Mapping{
		{"": {Serializer: "xml"}},
		{"": {Encoder: "e"}},
		{"": {Encoder: "e", Decoder: "d"}}, // no Call
	} {
		if _, err := newMapper(maps, nil); err == nil {
			t.Errorf("%v accepted", maps)
		}
	}
}
