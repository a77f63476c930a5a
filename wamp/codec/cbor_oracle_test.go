package codec

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/junction-wamp/junction/wamp"
)

// The CBOR decoder this package used before its own, kept as a test
// oracle: fxamacker/cbor with the options it had, and the normalisation
// into generic values after it. The binary no longer links it.
var (
	oracleMode = mustOracleMode(cbor.DupMapKeyQuiet)
	// oracleRepeats rejects repeated keys, which is how tests learn that
	// the old decoder overwrote a value (and never looked at it).
	oracleRepeats = mustOracleMode(cbor.DupMapKeyEnforcedAPF)
)

func mustOracleMode(dup cbor.DupMapKeyMode) cbor.DecMode {
	m, err := cbor.DecOptions{
		DupMapKey:            dup,
		MaxNestedLevels:      maxDepth,
		MaxArrayElements:     math.MaxInt32,
		MaxMapPairs:          math.MaxInt32,
		IntDec:               cbor.IntDecConvertSignedOrBigInt,
		BigIntDec:            cbor.BigIntDecodePointer,
		MapKeyByteString:     cbor.MapKeyByteStringForbidden,
		DefaultMapType:       reflect.TypeOf(map[string]any(nil)),
		UTF8:                 cbor.UTF8RejectInvalid,
		UnrecognizedTagToAny: cbor.UnrecognizedTagContentToAny,
		TimeTagToAny:         cbor.TimeTagToRFC3339Nano,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}

// oracleDecode decodes a message array as the old decoder did.
func oracleDecode(b []byte) ([]any, error) {
	if len(b) == 0 || b[0]>>5 != 4 {
		return nil, fmt.Errorf("message is not an array")
	}
	var v any
	if err := oracleMode.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("message is not an array")
	}
	n, err := oracleNormalize(l)
	if err != nil {
		return nil, err
	}
	return n.([]any), nil
}

// oracleNormalize brings a value from fxamacker/cbor into the generic
// domain, as the old decoder did.
func oracleNormalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, float64, string, []byte:
		return v, nil
	case []any:
		for i, e := range x {
			n, err := oracleNormalize(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	case map[string]any:
		for k, e := range x {
			n, err := oracleNormalize(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case uint64:
		return normUint(x), nil
	case *big.Int:
		n, ok := normBig(x)
		if !ok {
			return nil, fmt.Errorf("bignum out of range")
		}
		return n, nil
	}
	return nil, fmt.Errorf("unsupported value %#v", v)
}

// checkDictKinds fails unless every dictionary in v is an Object (objects)
// or a map (!objects).
func checkDictKinds(t *testing.T, v any, objects bool, where string) {
	t.Helper()
	switch x := v.(type) {
	case wamp.Object:
		if !objects {
			t.Fatalf("%s: an Object where a Dict belongs", where)
		}
		for _, f := range x {
			checkDictKinds(t, f.Value, objects, where)
		}
	case map[string]any:
		if objects {
			t.Fatalf("%s: a Dict where an Object belongs", where)
		}
		for _, e := range x {
			checkDictKinds(t, e, objects, where)
		}
	case []any:
		for _, e := range x {
			checkDictKinds(t, e, objects, where)
		}
	}
}

// checkLikeOracle checks that decodeCBORMessage accepts b iff the oracle does,
// with the same values, and payload dictionaries as Objects.
func checkLikeOracle(t *testing.T, b []byte) {
	t.Helper()
	want, wantErr := oracleDecode(b)
	for _, from := range []int{fromType, noPayload, 0} {
		got, err := decodeCBORMessage(b, from)
		if err != nil && wantErr == nil && hiddenByRepeat(b, err) {
			continue
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("from %d: %q: err = %v, the old decoder's %v", from, b, err, wantErr)
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(replaceNaN(got), replaceNaN(want)) {
			t.Fatalf("from %d: %q:\n got %#v\nwant %#v", from, b, got, want)
		}
		payload := from
		if from == fromType && len(got) > 0 {
			payload = payloadFrom(got[0])
		}
		for i, e := range got {
			checkDictKinds(t, e, i >= payload, fmt.Sprintf("from %d: %q: element %d", from, b, i))
		}
	}
}

// hiddenByRepeat tells whether err, for input b that the old decoder
// accepted, is the one deliberate difference: the old decoder checked simple
// values and bignums' range after decoding, and so never saw one in a map
// value that a repeated key overwrote; ours rejects them wherever they are.
func hiddenByRepeat(b []byte, err error) bool {
	var dup *cbor.DupMapKeyError
	var v any
	return errors.As(oracleRepeats.Unmarshal(b, &v), &dup) &&
		(strings.Contains(err.Error(), "unsupported simple value") || strings.Contains(err.Error(), "bignum out of range"))
}

// oracleSeeds are inputs on the edges where a new decoder could differ
// from the old one.
var oracleSeeds = []string{
	"\x85\x18\x24\x01\x02\xa1\x61k\xf7\x82\xc2\x41\x01\xd9\x04\xd2\x61x",
	"\x9f\x18\x24\x01\x02\xbf\xff\x9f\xff\xff",
	"\x86\x18\x24\x01\x02\xa0\x80\xa3\x61b\x01\x61a\x02\x61b\x03",                       // repeated key in kwargs
	"\x86\x18\x24\x01\x02\xa2\x61b\x01\x61b\x02\x80\xbf\x61z\x01\x61a\xa1\x61k\x80\xff", // repeated key in details, nested kwargs
	"\x86\x18\x24\x01\x02\xa0\x80\xa2\xf6\x01\xf7\x02",                                  // null and undefined keys
	"\x86\x18\x24\x01\x02\xa0\x80\xa1\xc0\x61k\x01",                                     // tag 0 on a key
	"\x86\x18\x24\x01\x02\xa0\x80\xa1\xc1\x01\x01",                                      // tag 1 on a key
	"\x86\x18\x24\x01\x02\xa0\x80\xa1\xd8\x64\xf6\x01",                                  // unknown tag on a null key
	"\x86\x18\x24\x01\x02\xa0\x80\xa1\x7f\x61k\x61\xc3\xff\x01",                         // indefinite key, a chunk not UTF-8
	"\x86\x18\x24\x01\x02\xa0\x80\xa1\x7f\x62\xc3\xa9\xff\x01",                          // indefinite key
	"\x85\x18\x24\x01\x02\xa0\x83\xc0\x74" + "2013-03-21T20:04:00Z" + "\xc1\x1a\x51\x4b\x67\xb0\xc1\xfb\x41\xd4\x52\xd9\xec\x20\x00\x00",
	"\x85\x18\x24\x01\x02\xa0\x82\xc0\x6a" + "2013-03-21" + "\xc1\xf9\x7e\x00",
	"\x85\x18\x24\x01\x02\xa0\x82\xc0\x78\x1b" + "2013-03-21T20:04:00.5+23:59" + "\xc1\x3b\x00\x00\x00\xff\xff\xff\xff\xff",
	"\x85\x18\x24\x01\x02\xa0\x81\xc0\x78\x1d" + "0000-01-01T00:00:00.123-01:30",
	"\x85\x18\x24\x01\x02\xa0\x82\xc1\x1b\x00\x00\x00\x3a\xff\xf4\x41\x7f\xc1\x3b\x00\x00\x00\x0e\x79\x74\x7b\xff", // 9999-12-31T23:59:59Z, 0000-01-01T00:00:00Z
	"\x85\x18\x24\x01\x02\xa0\x81\xc1\x1b\x00\x00\x00\x3a\xff\xf4\x41\x80",                                         // year 10000
	"\x85\x18\x24\x01\x02\xa0\x81\xc1\x3b\x00\x00\x00\x0e\x79\x74\x7c\x00",                                         // year -1
	"\x85\x18\x24\x01\x02\xa0\x81\xc0\xc0\x61x",                                                                    // tag 0 on a tag
	"\x85\x18\x24\x01\x02\xa0\x81\xd8\x64\xc2\x40",                                                                 // unknown tag on a bignum
	"\x85\x18\x24\x01\x02\xa0\x82\xc3\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00\xc2\x5f\x41\x01\x41\x00\xff",
	"\x85\x18\x24\x01\x02\xa0\x83\x3b\xff\xff\xff\xff\xff\xff\xff\xff\x3b\x80\x00\x00\x00\x00\x00\x00\x00\x1b\xff\xff\xff\xff\xff\xff\xff\xff",
	"\x85\x18\x24\x01\x02\xa0\x84\xf9\x7c\x01\xf9\x80\x00\xf9\x00\x01\xfa\x7f\x80\x00\x01",
	"\x85\x18\x24\x01\x02\xa0\x83\xf8\x20\xf8\x1f\xe0",     // simple values
	"\x85\x18\x24\x01\x02\xa0\x81\xfc",                     // reserved additional information
	"\x85\x18\x24\x01\x02\xa0\x81\x5f\x41\x01\x5f\xff\xff", // nested indefinite chunk
	"\x85\x18\x24\x01\x02\xa0\x81\x5f\x61\x61\xff",         // chunk of another type
	"\x85\x18\x24\x01\x02\xa0\x81\xd9\xd9\xf7\x80",         // self-described CBOR
	"\x85\x18\x24\x01\x02\xa0\x81\xc0\x7f\x6a" + "2013-03-21" + "\x6a" + "T20:04:00Z" + "\xff",
	"\x83\x01\x61r\xbf\x61a\xff",    // odd map
	"\x83\x01\x61r\xa1\x81\x01\x01", // array key
	"\x82\x01\x1c",                  // reserved
	"\x83\xc1\x01\x61r\xa0",         // tagged type
	"\x83\x18\x30\x01\xa0",          // CALL without a procedure
	"\x84\xfb\x40\x42\x00\x00\x00\x00\x00\x00\x01\x02\xa0",
	"\x86\x18\x30\x01\xa0\x61p\x80\xa1\x61a\xa1\x61b\xf6", // CALL with nested kwargs
	"\x87\x08\x18\x30\x01\xa0\x61e\x80\xa1\x61a\x01",      // ERROR with kwargs
}

func TestCBORLikeOracle(t *testing.T) {
	var inputs []string
	inputs = append(inputs, oracleSeeds...)
	for _, m := range allMessages() {
		b, err := CBOR.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	inputs = append(inputs,
		"\x85\x18\x24\x01\x02\xa0"+strings.Repeat("\x81", maxDepth-2)+"\x80",
		"\x85\x18\x24\x01\x02\xa0"+strings.Repeat("\x81", maxDepth-1)+"\x80",
		"\x85\x18\x24\x01\x02\xa0"+strings.Repeat("\x81", maxDepth-3)+"\xd8\x64\xd8\x64\x80",
		"\x85\x18\x24\x01\x02\xa0"+strings.Repeat("\x81", maxDepth-3)+"\xd8\x64\xd8\x64\xd8\x64\x80",
		"\x85\x18\x24\x01\x02\xa0"+strings.Repeat("\x81", maxDepth-2)+"\xd8\x64\xd8\x64\x01",
		"\x85\x18\x24\x01\x02\xa0"+strings.Repeat("\x81", maxDepth-1)+"\xd8\x64\xd8\x64\x01",
		"\x85\x18\x24\x01\x02\xa0\x81\xc2\x59\x01\x00"+strings.Repeat("\xff", 256),
	)
	for _, in := range inputs {
		checkLikeOracle(t, []byte(in))
		for n := range len(in) {
			checkLikeOracle(t, []byte(in[:n]))
		}
	}
}

// FuzzCBORLikeOracle: for any input, our decoder accepts iff the old one
// did, with the same values.
func FuzzCBORLikeOracle(f *testing.F) {
	for _, s := range oracleSeeds {
		f.Add([]byte(s))
	}
	for _, m := range allMessages() {
		b, err := CBOR.Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(checkLikeOracle)
}

// BenchmarkCBORDecoders compares our decoder with the old one
// (fxamacker/cbor and the normalisation after it) on a typical EVENT and
// CALL, bytes to message array.
func BenchmarkCBORDecoders(b *testing.B) {
	decoders := []struct {
		name   string
		decode func([]byte) ([]any, error)
	}{
		{"ours", func(p []byte) ([]any, error) { return decodeCBORMessage(p, fromType) }},
		{"fxamacker", oracleDecode},
	}
	for _, m := range benchMessages() {
		enc, err := CBOR.Encode(m)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range decoders {
			b.Run(m.Type().String()+"/"+d.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(enc)))
				for b.Loop() {
					if _, err := d.decode(enc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
