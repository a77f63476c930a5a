package codec

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"

	"github.com/fxamacker/cbor/v2"

	"github.com/junction-wamp/junction/internal/wamp"
)

// cborMode decodes CBOR with fxamacker/cbor into generic values: maps with
// text keys only (a byte string or other key is an error), invalid UTF-8
// rejected, undefined as nil, unknown tags as their content, time tags as
// RFC 3339 strings, bignums as *big.Int (normalised afterwards).
var cborMode = mustCBORMode()

func mustCBORMode() cbor.DecMode {
	m, err := cbor.DecOptions{
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
		panic("codec: cbor options: " + err.Error()) // constant options: a programming error
	}
	return m
}

// decodeCBORMessage parses one CBOR message array; its dictionaries from
// element from on become Objects, with their keys sorted: the library
// decodes maps, whose order is lost.
func decodeCBORMessage(b []byte, from int) ([]any, error) {
	if len(b) == 0 || b[0]>>5 != 4 {
		return nil, decodeError("cbor", "message is not an array")
	}
	var v any
	if err := cborMode.Unmarshal(b, &v); err != nil {
		return nil, decodeError("cbor", "%s", strings.TrimPrefix(err.Error(), "cbor: "))
	}
	l, ok := v.([]any)
	if !ok {
		return nil, decodeError("cbor", "message is not an array")
	}
	if err := normalizeList(l); err != nil {
		return nil, err
	}
	if from == fromType && len(l) > 0 {
		from = payloadFrom(l[0])
	}
	for i := from; i < len(l); i++ {
		l[i] = mapsToObjects(l[i])
	}
	return l, nil
}

// mapsToObjects turns v's dictionaries, nested ones too, into Objects with
// their keys sorted.
func mapsToObjects(v any) any {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			x[i] = mapsToObjects(e)
		}
	case map[string]any:
		o := wamp.ObjectOf(x)
		for i := range o {
			o[i].Value = mapsToObjects(o[i].Value)
		}
		return o
	}
	return v
}

func normalizeList(l []any) error {
	for i, v := range l {
		n, err := normalize(v)
		if err != nil {
			return err
		}
		l[i] = n
	}
	return nil
}

// normalize brings a value from the CBOR library into the generic domain.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, float64, string, []byte:
		return v, nil
	case []any:
		return x, normalizeList(x)
	case map[string]any:
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case uint64:
		return normUint(x), nil
	case float32:
		return float64(x), nil
	case *big.Int:
		return normBig(x)
	case cbor.Tag:
		return normalize(x.Content)
	}
	return nil, decodeError("cbor", "unsupported value %s", describe(v))
}

func describe(v any) string {
	if s, ok := v.(cbor.SimpleValue); ok {
		return fmt.Sprintf("simple value %d", s)
	}
	return fmt.Sprintf("of type %T", v)
}

// normBig keeps a bignum exact when it fits int64 or uint64, as a float64
// otherwise, and rejects one beyond the float64 range.
func normBig(b *big.Int) (any, error) {
	switch {
	case b.IsInt64():
		return b.Int64(), nil
	case b.IsUint64():
		return b.Uint64(), nil
	}
	f, _ := new(big.Float).SetInt(b).Float64()
	if math.IsInf(f, 0) {
		return nil, decodeError("cbor", "bignum out of range")
	}
	return f, nil
}
