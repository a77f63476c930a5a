package codec

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/junction-wamp/junction/wamp"
)

func TestCBORValidate(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		ok, passable bool
	}{
		{"list", "\x83\x01\x61a\xf6", true, true},
		{"dict", "\xa2\x61z\x01\x61a\xa1\x61k\x80", true, true},
		{"floats of every width", "\x83\xf9\x3e\x00\xfa\x3f\xc0\x00\x00\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00", true, true},
		{"indefinite lengths", "\x9f\x7f\x61h\x61i\xff\x5f\x41\x01\xff\xbf\x61a\x01\xff\xff", true, true},
		{"long heads", "\x82\x18\x05\x79\x00\x01a", true, true},
		{"uint64", "\x1b\xff\xff\xff\xff\xff\xff\xff\xff", true, true},
		{"min int64", "\x3b\x7f\xff\xff\xff\xff\xff\xff\xff", true, true},
		{"below min int64", "\x3b\x80\x00\x00\x00\x00\x00\x00\x00", true, false},
		{"undefined", "\x81\xf7", true, false},
		{"unknown tag", "\xd9\x04\xd2\x61x", true, false},
		{"self-described", "\xd9\xd9\xf7\x80", true, false},
		{"date/time", "\xc0\x74" + "2013-03-21T20:04:00Z", true, false},
		{"bad date/time", "\xc0\x6a" + "2013-03-21", false, false},
		{"epoch", "\xc1\x1a\x51\x4b\x67\xb0", true, false},
		{"epoch year 10000", "\xc1\x1b\x00\x00\x00\x3a\xff\xf4\x41\x80", false, false},
		{"bignum", "\xc2\x41\x01", true, false},
		{"bignum beyond float64", "\xc2\x59\x01\x00" + strings.Repeat("\xff", 256), false, false},
		{"tag 0 on a number", "\xc0\x01", false, false},
		{"null key", "\xa1\xf6\x01", true, false},
		{"tagged key", "\xa1\xd8\x64\x61k\x01", true, false},
		{"indefinite key", "\xa1\x7f\x61k\xff\x01", true, false},
		{"repeated key", "\xa2\x61k\x01\x61k\x02", true, false},
		{"repeated key in a nested map", "\xa2\x61a\xa2\x61k\x01\x61k\x02\x61b\x01", true, false},
		{"same key in two maps", "\x82\xa1\x61k\x01\xa1\x61k\x02", true, true},
		{"same key at two levels", "\xa1\x61k\xa1\x61k\x01", true, true},
		{"too many keys to compare", mapOfKeys(cborCheckedKeys + 1), true, false},
		{"as many keys as compared", mapOfKeys(cborCheckedKeys), true, true},
		{"byte-string key", "\xa1\x41k\x01", false, false},
		{"integer key", "\xa1\x01\x01", false, false},
		{"bad UTF-8", "\x61\xff", false, false},
		{"simple value", "\xf0", false, false},
		{"stray break", "\xff", false, false},
		{"truncated", "\x82\x01", false, false},
		{"trailing data", "\x01\x01", false, false},
		{"empty", "", false, false},
		{"deepest", strings.Repeat("\x81", maxDepth-2) + "\x80", true, true},
		{"too deep", strings.Repeat("\x81", maxDepth-1) + "\x80", false, false},
		{"nested tags at the limit", strings.Repeat("\x81", maxDepth-2) + "\xd8\x64\xd8\x64\x01", true, false},
		{"nested tags count", strings.Repeat("\x81", maxDepth-1) + "\xd8\x64\xd8\x64\x01", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, passable := cborValidate([]byte(tt.in))
			if ok != tt.ok || passable != tt.passable {
				t.Errorf("cborValidate = %v, %v; want %v, %v", ok, passable, tt.ok, tt.passable)
			}
			_, err := decodeCBORMessage([]byte("\x81"+tt.in), 0)
			if (err == nil) != tt.ok {
				t.Errorf("the decoder's error %v disagrees", err)
			}
		})
	}
}

func TestCBORNext(t *testing.T) {
	b := []byte("\x82\x01\x02\xa1\x61k\xf6\x63abc")
	var lens []int
	for len(b) > 0 {
		n, ok, passable := cborNext(b)
		if !ok || !passable {
			t.Fatalf("cborNext(%q) = %d, %v, %v", b, n, ok, passable)
		}
		lens = append(lens, n)
		b = b[n:]
	}
	if want := []int{3, 4, 4}; !reflect.DeepEqual(lens, want) {
		t.Errorf("lengths %v, want %v", lens, want)
	}
}

// TestCBORValidateAllocs: checking a payload without date/time tags
// allocates nothing.
func TestCBORValidateAllocs(t *testing.T) {
	payloads := [][]byte{
		[]byte("\x85\x01\x65hello\xfb\x40\x0c\x00\x00\x00\x00\x00\x00\x82\xa1\x61x\x01\xf6\x43\x00\x01\x02"),
		[]byte("\xa3\x64zeta\x00\x65alpha\xa2\x61y\xf6\x61b\x9f\xff\x61k\xc2\x41\x01"),
	}
	for _, p := range payloads {
		if n := testing.AllocsPerRun(100, func() { cborValidate(p) }); n != 0 {
			t.Errorf("%q: %v allocations", p, n)
		}
	}
}

// cborReceiver decodes CBOR as a strict receiver would, keeping every
// difference that the decoder's normalisation removes: tags, undefined
// (rejected), key types, repeated keys (rejected).
var cborReceiver = mustCBORReceiver()

func mustCBORReceiver() cbor.DecMode {
	simple, err := cbor.NewSimpleValueRegistryFromDefaults(cbor.WithRejectedSimpleValue(cbor.SimpleValue(23)))
	if err != nil {
		panic(err)
	}
	m, err := cbor.DecOptions{
		MaxNestedLevels:      maxDepth + 10,
		MaxArrayElements:     math.MaxInt32,
		MaxMapPairs:          math.MaxInt32,
		DupMapKey:            cbor.DupMapKeyEnforcedAPF,
		IntDec:               cbor.IntDecConvertNone,
		UnrecognizedTagToAny: cbor.UnrecognizedTagNumAndContentToAny,
		SimpleValues:         simple,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}

// checkValidate checks cborValidate against the decoder (ok iff it
// accepts b as a message element) and against a strict receiver (what
// passes reads as what the decoder's value re-encoded reads).
func checkValidate(t *testing.T, b []byte) {
	ok, passable := cborValidate(b)
	l, err := decodeCBORMessage(append([]byte{0x81}, b...), 0)
	if ok != (err == nil) {
		t.Fatalf("%q: cborValidate ok = %v, the decoder's error %v", b, ok, err)
	}
	if !passable {
		return
	}
	again, err := EncodeValue(CBOR, l[0])
	if err != nil {
		t.Fatalf("%q: re-encode: %v", b, err)
	}
	var raw, decoded any
	if err := cborReceiver.Unmarshal(b, &raw); err != nil {
		t.Fatalf("%q passes but a receiver rejects it: %v", b, err)
	}
	if err := cborReceiver.Unmarshal(again, &decoded); err != nil {
		t.Fatalf("%q re-encoded as %q: a receiver rejects it: %v", b, again, err)
	}
	// Printed, NaN equals NaN and -0 differs from 0; the values of a
	// passable input print alike (no pointers, maps in key order).
	if fmt.Sprintf("%#v", raw) != fmt.Sprintf("%#v", decoded) {
		t.Fatalf("%q passes, but a receiver reads\n%#v\nfrom it and\n%#v\nonce decoded and re-encoded", b, raw, decoded)
	}
}

// FuzzCBORValidate: the validator accepts what the decoder accepts, and
// what it lets pass reads the same as its decoded value re-encoded.
func FuzzCBORValidate(f *testing.F) {
	for _, s := range oracleSeeds {
		if len(s) > 6 {
			f.Add([]byte(s[6:])) // the elements after an EVENT's details
		}
	}
	args, kwargs := payload()
	for _, v := range []any{args, kwargs, wamp.ObjectOf(kwargs)} {
		b, err := EncodeValue(CBOR, v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, tt := range []string{"\xa2\x61k\x01\x61k\x02", "\xa1\x61k\xf7", "\x82\xd8\x64\x01\x3b\x80\x00\x00\x00\x00\x00\x00\x00", "\xa2\xf6\x01\x60\x02"} {
		f.Add([]byte(tt))
	}
	f.Add([]byte(mapOfKeys(cborCheckedKeys + 1)))
	f.Fuzz(checkValidate)
}

// BenchmarkCBORValidate checks a typical payload's Arguments and
// ArgumentsKw, against decoding them.
func BenchmarkCBORValidate(b *testing.B) {
	kwargs := wamp.Object{{Key: "zeta", Value: int64(0)}, {Key: "alpha", Value: "hello"}, {Key: "nested", Value: wamp.Object{{Key: "x", Value: 3.5}}}}
	for _, v := range []struct {
		name string
		v    any
	}{{"args", []any{int64(1), "hello", 3.5, []byte{1, 2, 3}}}, {"kwargs", kwargs}} {
		enc, err := EncodeValue(CBOR, v.v)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.name+"/validate", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(enc)))
			for b.Loop() {
				if ok, passable := cborValidate(enc); !ok || !passable {
					b.Fatal("not passable")
				}
			}
		})
		framed := append([]byte{0x81}, enc...)
		b.Run(v.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(enc)))
			for b.Loop() {
				if _, err := decodeCBORMessage(framed, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
