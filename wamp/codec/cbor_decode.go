package codec

import (
	"math"
	"math/big"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// cborDecoder parses CBOR (RFC 8949) into generic values, accepting and
// normalising exactly what fxamacker/cbor, which decoded CBOR here before,
// accepted with our options: maps with text keys only (null and undefined
// keys read as ""), strings checked to be UTF-8, undefined as nil, unknown
// tags as their content, date/time tags as RFC 3339 text, bignums as
// integers when they fit int64 or uint64 and floats otherwise (an error
// beyond float64's range), every float as float64, integers as int64
// (uint64 above math.MaxInt64; below math.MinInt64, float64), other simple
// values an error. One difference: fxamacker/cbor missed such a simple
// value, or a bignum out of range, in a map value that a repeated key
// overwrote (it checked them after decoding); we reject them wherever they
// are. Dictionaries in payload elements are wamp.Objects in wire order (a
// repeated key: the last value at the place of the first), the others
// Dicts. A decoder is used by one goroutine.
type cborDecoder struct {
	cborScanner
	payloadState
}

// decodeCBORMessage parses one CBOR array whose dictionaries from element
// from on are payload values (fromType: from the message type's payload
// index on).
func decodeCBORMessage(b []byte, from int) ([]any, error) {
	if len(b) == 0 || b[0]>>5 != majorArray {
		return nil, decodeError("cbor", "message is not an array")
	}
	d := cborDecoder{cborScanner: cborScanner{b: b}, payloadState: newPayloadState(from)}
	v := d.value(1)
	if d.ok() && d.i != len(b) {
		d.fail("trailing data")
	}
	if !d.ok() {
		return nil, decodeError("cbor", "offset %d: %s", d.at, d.bad)
	}
	l, _ := v.([]any)
	return l, nil
}

// value reads one value; depth is the level a container would have.
func (d *cborDecoder) value(depth int) any {
	major, ai, arg := d.head()
	if !d.ok() {
		return nil
	}
	switch major {
	case majorUint:
		return normUint(arg)
	case majorNeg:
		return negInt(arg)
	case majorBytes:
		return d.bytes(ai, arg)
	case majorText:
		return d.text(ai, arg)
	case majorArray:
		return d.array(ai, arg, depth)
	case majorMap:
		return d.dict(ai, arg, depth)
	case majorTag:
		return d.tagged(arg, depth)
	}
	return d.simple(ai, arg)
}

// negInt returns the CBOR negative integer -1-n: an int64, or the nearest
// float64 below math.MinInt64.
func negInt(n uint64) any {
	if n <= math.MaxInt64 {
		return -1 - int64(n)
	}
	v, _ := normBig(new(big.Int).Neg(new(big.Int).Add(new(big.Int).SetUint64(n), big.NewInt(1))))
	return v
}

func (d *cborDecoder) simple(ai byte, arg uint64) any {
	switch ai {
	case 20:
		return false
	case 21:
		return true
	case 22, 23: // null, undefined
		return nil
	case 25, 26, 27:
		return cborFloat(ai, arg)
	}
	d.fail("unsupported simple value")
	return nil
}

// bytes reads a byte string's content (a copy) after its head.
func (d *cborDecoder) bytes(ai byte, n uint64) []byte {
	if ai != aiIndefinite {
		return append([]byte{}, d.content(majorBytes, n)...)
	}
	b := []byte{}
	for p, ok := d.chunk(majorBytes); ok; p, ok = d.chunk(majorBytes) {
		b = append(b, p...)
	}
	return b
}

func (d *cborDecoder) array(ai byte, n uint64, depth int) any {
	if !d.level(depth) {
		return nil
	}
	indefinite := ai == aiIndefinite
	if indefinite {
		n = 4 // a first guess
	} else if d.count(n, 1); !d.ok() {
		return nil
	}
	l := make([]any, 0, n)
	for i := uint64(0); d.more(indefinite, i, n); i++ {
		if depth == 1 {
			d.element(l)
		}
		l = append(l, d.value(depth+1))
	}
	return l
}

// element is called before each element of the message array is read,
// with the elements read so far.
func (d *cborDecoder) element(read []any) {
	var first any
	if len(read) > 0 {
		first = read[0]
	}
	d.payloadState.element(len(read), first)
}

func (d *cborDecoder) dict(ai byte, n uint64, depth int) any {
	if !d.level(depth) {
		return nil
	}
	indefinite := ai == aiIndefinite
	if indefinite {
		n = 0
	} else if d.count(n, 2); !d.ok() {
		return nil
	}
	if d.objects {
		return d.object(indefinite, n, depth)
	}
	m := make(map[string]any, n)
	for i := uint64(0); d.more(indefinite, i, n); i++ {
		k := d.key(depth + 1)
		m[k] = d.value(depth + 1)
	}
	return m
}

// object reads a map's entries as a wamp.Object in wire order.
func (d *cborDecoder) object(indefinite bool, n uint64, depth int) wamp.Object {
	o := make(wamp.Object, 0, n)
	for i := uint64(0); d.more(indefinite, i, n); i++ {
		k := d.key(depth + 1)
		o = append(o, wamp.Field{Key: k, Value: d.value(depth + 1)})
	}
	return uniqueKeys(o)
}

// key reads a map key: a text string, possibly tagged; null and undefined
// read as "".
func (d *cborDecoder) key(depth int) string {
	ai, n, null, _ := d.keyHead(depth)
	if null || !d.ok() {
		return ""
	}
	return d.text(ai, n)
}

// tagged reads the value of a tag (its number read) and of the tags nested
// in it.
func (d *cborDecoder) tagged(num uint64, depth int) any {
	num, depth = d.tagChain(num, depth)
	if !d.ok() {
		return nil
	}
	switch num {
	case 0:
		return d.dateTime()
	case 1:
		t, ok := epochTime(d.head())
		return d.timeValue(t, ok)
	case 2, 3:
		_, ai, n := d.head()
		v, ok := bignum(d.bytes(ai, n), num == 3)
		if !ok && d.ok() {
			d.fail("bignum out of range")
		}
		return v
	}
	return d.value(depth)
}

// dateTime reads tag 0's text and returns it as RFC 3339 with the fraction
// of a second, as time.Time writes it.
func (d *cborDecoder) dateTime() any {
	_, ai, n := d.head()
	s := d.text(ai, n)
	if !d.ok() {
		return nil
	}
	t, err := rfc3339Time(s)
	return d.timeValue(t, err == nil)
}

func (d *cborDecoder) timeValue(t time.Time, ok bool) any {
	s, writable := timeText(t)
	if !ok || !writable {
		d.fail("invalid date/time")
		return nil
	}
	return s
}
