package codec

import (
	"encoding/json"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func benchMessages() []wamp.Message {
	return []wamp.Message{
		&wamp.Event{Subscription: 5512315355, Publication: 4429313566, Details: wamp.Dict{"topic": "com.example.topic"},
			Args: wamp.List{int64(1), "hello", 3.5}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": int64(1)})},
		&wamp.Call{Request: 7814135, Options: wamp.Dict{}, Procedure: "com.example.add",
			Args: wamp.List{int64(1), "hello", 3.5}, Kwargs: wamp.ObjectOf(wamp.Dict{"a": int64(1)})},
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range allCodecs {
		for _, m := range benchMessages() {
			b.Run(c.Name()+"/"+m.Type().String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Encode(m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range allCodecs {
		for _, m := range benchMessages() {
			enc, err := c.Encode(m)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(c.Name()+"/"+m.Type().String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(enc)))
				for b.Loop() {
					if _, err := c.Decode(enc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStdlibJSON is the baseline for the JSON codec: encoding/json
// marshalling the same message array and unmarshalling it into []any.
func BenchmarkStdlibJSON(b *testing.B) {
	m := []any{36, 5512315355, 4429313566, map[string]any{"topic": "com.example.topic"},
		[]any{1, "hello", 3.5}, map[string]any{"a": 1}}
	enc, _ := json.Marshal(m)
	b.Run("Encode/EVENT", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Decode/EVENT", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			var v []any
			if err := json.Unmarshal(enc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkForward is what the router does with a CALL's payload: decode
// the CALL, encode the INVOCATION for a callee of the same serializer.
// passthrough keeps the payload raw (Decode); decode+encode decodes its
// values and encodes them again, as before payloads passed through.
func BenchmarkForward(b *testing.B) {
	args := wamp.List{int64(1), "hello", 3.5, true, nil, wamp.List{"a", "b", int64(3)},
		wamp.Object{{Key: "name", Value: "widget"}, {Key: "count", Value: int64(12)}, {Key: "tags", Value: wamp.List{"x", "y"}}}}
	kwargs := wamp.Object{{Key: "user", Value: "alice"}, {Key: "limit", Value: int64(100)}, {Key: "filter", Value: wamp.Object{{Key: "active", Value: true}}}}
	call := &wamp.Call{Request: 7814135, Options: wamp.Dict{}, Procedure: "com.example.add", Args: args, Kwargs: kwargs}
	for _, c := range []Codec{JSON, Msgpack, CBOR} {
		enc, err := c.Encode(call)
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"passthrough", "decode+encode"} {
			decode := c.Decode
			if mode == "decode+encode" {
				decode = c.(*format).decodeMessage
			}
			b.Run(c.Name()+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(enc)))
				for b.Loop() {
					m, err := decode(enc)
					if err != nil {
						b.Fatal(err)
					}
					p := wamp.PayloadOf(m)
					inv := &wamp.Invocation{Request: 1, Registration: 2, Details: wamp.Dict{}, Args: p.Args, Kwargs: p.Kwargs, Raw: p.Raw}
					if _, err := c.Encode(inv); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkReceive is what a client does with an EVENT: decode it and read
// its payload. raw+values decodes it as every peer does (the payload kept
// raw, then decoded by wamp.Values); values decodes it in full at once.
func BenchmarkReceive(b *testing.B) {
	ev := &wamp.Event{Subscription: 5512315355, Publication: 4429313566, Details: wamp.Dict{},
		Args: wamp.List{int64(1), "hello", 3.5}, Kwargs: wamp.Object{{Key: "a", Value: int64(1)}}}
	for _, c := range []Codec{JSON, Msgpack, CBOR} {
		enc, err := c.Encode(ev)
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"raw+values", "values"} {
			decode := c.Decode
			if mode == "values" {
				decode = c.(*format).decodeMessage
			}
			b.Run(c.Name()+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					m, err := decode(enc)
					if err == nil {
						_, _, err = wamp.Values(m)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
