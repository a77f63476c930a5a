package codec

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestDecodeTruncated(t *testing.T) {
	for _, c := range allCodecs {
		for _, m := range allMessages() {
			b, err := c.Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			for n := range len(b) {
				if _, err := c.Decode(b[:n]); !errors.Is(err, wamp.ErrProtocol) {
					t.Fatalf("%s: %s truncated to %d of %d bytes: err = %v", c.Name(), m.Type(), n, len(b), err)
				}
			}
		}
	}
}

func TestDecodeTrailingData(t *testing.T) {
	for _, c := range allCodecs {
		b, _ := c.Encode(&wamp.Published{Request: 1, Publication: 2})
		for _, extra := range []string{"\x00", "]", "1", "[]"} {
			if _, err := c.Decode(append(b[:len(b):len(b)], extra...)); !errors.Is(err, wamp.ErrProtocol) {
				t.Errorf("%s: trailing %q: err = %v", c.Name(), extra, err)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		c    Codec
		name string
		in   string
	}{
		{JSON, "empty", ""},
		{JSON, "not an array", `{"a":1}`},
		{JSON, "only space", "  "},
		{JSON, "wrong field type", `["1","realm",{}]`},
		{JSON, "unknown type", `[99,"realm",{}]`},
		{JSON, "empty message", `[]`},
		{JSON, "non-string key", `[1,"r",{1:2}]`},
		{JSON, "bad UTF-8", "[1,\"r\xff\",{}]"},
		{JSON, "bad UTF-8 with escape", "[1,\"\\n\xff\",{}]"},
		{JSON, "bad UTF-8 key", "[1,\"r\",{\"\xc3\":1}]"},
		{JSON, "too deep", "[36,1,2,{}," + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + "]"},
		{JSON, "too deep dicts", "[36,1,2,{}," + strings.Repeat(`{"a":`, maxDepth) + "1" + strings.Repeat("}", maxDepth) + "]"},
		{JSON, "bad base64", `[36,1,2,{},["\u0000!!"]]`},
		{JSON, "missing value", `[1,"r",{"a":}]`},
		{JSON, "missing colon", `[1,"r",{"a"}]`},
		{JSON, "trailing comma", `[1,"r",{},]`},
		{JSON, "leading comma", `[,1,"r",{}]`},
		{JSON, "leading zero", `[01,"r",{}]`},
		{JSON, "bare minus", `[-,"r",{}]`},
		{JSON, "no fraction digits", `[1.,"r",{}]`},
		{JSON, "no exponent digits", `[1e,"r",{}]`},
		{JSON, "float overflow", `[36,1,2,{},[1e999]]`},
		{JSON, "bad literal", `[36,1,2,{},[nul]]`},
		{JSON, "control character", "[1,\"r\x01\",{}]"},
		{JSON, "bad escape", `[1,"\x",{}]`},
		{JSON, "short unicode escape", `[1,"\u12",{}]`},
		{JSON, "bad unicode escape", `[1,"\u12g4",{}]`},
		{JSON, "missing separator", `[1 "r" {}]`},

		{Msgpack, "empty", ""},
		{Msgpack, "not an array", "\x80"},
		{Msgpack, "wrong field type", "\x93\xa11\xa1r\x80"},
		{Msgpack, "non-string key", "\x93\x01\xa1r\x81\x01\x01"},
		{Msgpack, "binary key", "\x93\x01\xa1r\x81\xc4\x01a\x01"},
		{Msgpack, "bad UTF-8", "\x93\x01\xa1\xff\x80"},
		{Msgpack, "too deep", "\x95\x24\x01\x02\x80" + strings.Repeat("\x91", maxDepth) + "\x90"},
		{Msgpack, "str32 past the end", "\x93\x01\xdb\xff\xff\xff\xff\x80"},
		{Msgpack, "bin32 past the end", "\x95\x24\x01\x02\x80\x91\xc6\xff\xff\xff\xff"},
		{Msgpack, "array32 past the end", "\x95\x24\x01\x02\x80\xdd\xff\xff\xff\xff"},
		{Msgpack, "map32 past the end", "\x95\x24\x01\x02\xdf\xff\xff\xff\xff"},
		{Msgpack, "ext32 past the end", "\x95\x24\x01\x02\x80\x91\xc9\xff\xff\xff\xff\x00"},
		{Msgpack, "reserved byte", "\x93\x01\xa1r\xc1"},

		{CBOR, "empty", ""},
		{CBOR, "not an array", "\xa0"},
		{CBOR, "wrong field type", "\x83\x61\x31\x61r\xa0"},
		{CBOR, "non-string key", "\x83\x01\x61r\xa1\x01\x01"},
		{CBOR, "byte-string key", "\x83\x01\x61r\xa1\x41a\x01"},
		{CBOR, "bad UTF-8", "\x83\x01\x61\xff\xa0"},
		{CBOR, "too deep", "\x85\x18\x24\x01\x02\xa0" + strings.Repeat("\x81", maxDepth) + "\x80"},
		{CBOR, "length past the end", "\x85\x18\x24\x01\x02\xa0\x9b\xff\xff\xff\xff\xff\xff\xff\xff"},
		{CBOR, "text past the end", "\x83\x01\x7a\xff\xff\xff\xff\xa0"},
		{CBOR, "unassigned simple value", "\x85\x18\x24\x01\x02\xa0\x81\xf0"},
		{CBOR, "bignum beyond float64", "\x85\x18\x24\x01\x02\xa0\x81\xc2\x59\x01\x00" + strings.Repeat("\xff", 256)},
		{CBOR, "stray break", "\x83\x01\x61r\xff"},

		{UBJSON, "empty", ""},
		{UBJSON, "not an array", "{}"},
		{UBJSON, "wrong field type", "[SU\x011SU\x01r{}]"},
		{UBJSON, "bad UTF-8", "[U\x01SU\x01\xff{}]"},
		{UBJSON, "bad UTF-8 key", "[U\x01Cr{U\x01\xff}]"},
		{UBJSON, "too deep", "[U$U\x01U\x02{}" + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth+1)},
		{UBJSON, "string past the end", "[U\x01SL\x00\x00\x00\x00\xff\xff\xff\xff{}]"},
		{UBJSON, "count past the end", "[U$U\x01U\x02{}[#L\x00\x00\x00\x00\xff\xff\xff\xff]"},
		{UBJSON, "typed null count too large", "[U$U\x01U\x02{}[$Z#L\x00\x00\x00\x00\xff\xff\xff\xff]"},
		{UBJSON, "bytes past the end", "[U$U\x01U\x02{}[$U#L\x00\x00\x00\x00\xff\xff\xff\xff]"},
		{UBJSON, "negative length", "[U\x01Si\xff{}]"},
		{UBJSON, "no-op", "[U\x01NCr{}]"},
		{UBJSON, "invalid marker", "[U\x01XCr{}]"},
		{UBJSON, "key with S marker", "[U\x01Cr{SU\x01aZ}]"},
		{UBJSON, "type without count", "[U\x01Cr{}[$U]]"},
		{UBJSON, "container type", "[U$U\x01U\x02{}[$[#U\x01]]"},
		{UBJSON, "non-ASCII char", "[U\x01C\xc3{}]"},
		{UBJSON, "bad high precision", "[U$U\x01U\x02{}[HU\x03abc]]"},
		{UBJSON, "high precision overflow", "[U$U\x01U\x02{}[HU\x051e999]]"},
		{UBJSON, "unterminated", "[U\x01Cr{}"},
	}
	for _, tt := range tests {
		t.Run(tt.c.Name()+"/"+tt.name, func(t *testing.T) {
			m, err := decodeValues(tt.c, []byte(tt.in))
			if !errors.Is(err, wamp.ErrProtocol) {
				t.Errorf("Decode = %#v, %v; want an error wrapping wamp.ErrProtocol", m, err)
			}
		})
	}
}

// TestDecodeDepthLimit: the deepest input accepted is maxDepth levels.
func TestDecodeDepthLimit(t *testing.T) {
	n := maxDepth - 2 // the message array and the args list
	inputs := map[Codec]string{
		JSON:    "[36,1,2,{},[" + strings.Repeat("[", n) + strings.Repeat("]", n) + "]]",
		Msgpack: "\x95\x24\x01\x02\x80\x91" + strings.Repeat("\x91", n-1) + "\x90",
		UBJSON:  "[U$U\x01U\x02{}[" + strings.Repeat("[", n) + strings.Repeat("]", n+2),
	}
	for c, in := range inputs {
		if _, err := decodeValues(c, []byte(in)); err != nil {
			t.Errorf("%s: depth %d: %v", c.Name(), maxDepth, err)
		}
	}
}

// TestEncodeErrorSaysWhat: an Encode error is a *wamp.EncodeError naming
// the message's type, the format and the reason, so that a peer's Send
// passes on what the router and the logs need.
func TestEncodeErrorSaysWhat(t *testing.T) {
	_, err := JSON.Encode(&wamp.Result{Request: 1, Details: wamp.Dict{}, Args: wamp.List{math.NaN()}})
	ee, ok := errors.AsType[*wamp.EncodeError](err)
	if !ok {
		t.Fatalf("err = %v (%T), want a *wamp.EncodeError", err, err)
	}
	if ee.Type != wamp.TypeResult {
		t.Errorf("Type = %s, want RESULT", ee.Type)
	}
	if got, want := err.Error(), "wamp: cannot encode RESULT: json: non-finite float"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, errNonFinite) {
		t.Errorf("errors.Is(err, errNonFinite) = false")
	}
}
