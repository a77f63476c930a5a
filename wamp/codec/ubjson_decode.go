package codec

import (
	"math"
	"strings"

	"github.com/junction-wamp/junction/wamp"
)

// ubjsonDecoder parses UBJSON (draft 12) as py-ubjson writes and reads it:
// counted and typed containers ("$" type, "#" count) of scalar types, typed
// uint8 arrays as binaries, 'H' high-precision numbers as integers or
// float64, 'C' ASCII chars as strings. No-op 'N' is rejected, as py-ubjson
// does. It is used by one goroutine.
type ubjsonDecoder struct {
	reader
	// budget bounds the elements of typed null/true/false arrays, which
	// take no input bytes each: at most one per byte of input in all.
	budget int
	stack  []any // elements of the open arrays being read
}

// decodeUBJSONMessage parses one UBJSON message array; its dictionaries
// from element from on are Objects.
func decodeUBJSONMessage(b []byte, from int) ([]any, error) {
	d := &ubjsonDecoder{reader: reader{name: "ubjson", b: b, payloadState: newPayloadState(from)}, budget: len(b), stack: make([]any, 0, 16)}
	if len(b) == 0 || b[0] != '[' {
		return nil, decodeError("ubjson", "message is not an array")
	}
	v := d.value(d.byte(), 1)
	return d.done(v)
}

// value reads the value of the given marker; depth is the level a
// container would have.
func (d *ubjsonDecoder) value(m byte, depth int) any {
	if d.err != nil {
		return nil
	}
	switch m {
	case 'Z':
		return nil
	case 'T':
		return true
	case 'F':
		return false
	case 'i', 'U', 'I', 'l', 'L':
		return d.integer(m)
	case 'd':
		return float64(math.Float32frombits(uint32(d.uintN(4))))
	case 'D':
		return math.Float64frombits(d.uintN(8))
	case 'H':
		return d.highPrecision()
	case 'C':
		return d.char()
	case 'S':
		return d.text(d.length(d.byte()))
	case '[':
		return d.array(depth)
	case '{':
		return d.object(depth)
	}
	d.fail("invalid marker 0x%02x", m)
	return nil
}

// integer reads the integer of marker m, or records an error.
func (d *ubjsonDecoder) integer(m byte) int64 {
	switch m {
	case 'i':
		return int64(int8(d.uintN(1)))
	case 'U':
		return int64(d.uintN(1))
	case 'I':
		return int64(int16(d.uintN(2)))
	case 'l':
		return int64(int32(d.uintN(4)))
	case 'L':
		return int64(d.uintN(8))
	}
	d.fail("integer marker expected, got 0x%02x", m)
	return 0
}

// length reads a non-negative integer of marker m: a length or count.
func (d *ubjsonDecoder) length(m byte) uint64 {
	n := d.integer(m)
	if n < 0 {
		d.fail("negative length")
		return 0
	}
	return uint64(n)
}

func (d *ubjsonDecoder) char() any {
	c := d.byte()
	if c >= 0x80 {
		d.fail("char is not ASCII")
		return nil
	}
	return string(rune(c))
}

// highPrecision reads an 'H' number: an integer when it fits int64 or
// uint64, a float64 otherwise.
func (d *ubjsonDecoder) highPrecision() any {
	s := d.text(d.length(d.byte()))
	if d.err != nil {
		return nil
	}
	if s == "" || !strings.ContainsAny(s[:1], "-0123456789") {
		d.fail("invalid high-precision number")
		return nil
	}
	j := jsonDecoder{b: []byte(s)}
	v := j.number()
	if j.err != nil || j.i != len(s) {
		d.fail("invalid high-precision number")
		return nil
	}
	return v
}

// header reads the optional "$type" and "#count" after '[' or '{'.
func (d *ubjsonDecoder) header() (typ byte, n uint64, counted bool) {
	if d.remaining() > 0 && d.b[d.i] == '$' {
		d.i++
		typ = d.byte()
		if !strings.ContainsRune("ZTFiUIlLdDHCS", rune(typ)) || d.remaining() == 0 || d.b[d.i] != '#' {
			d.fail("invalid container type or type without count")
			return 0, 0, false
		}
	}
	if d.remaining() > 0 && d.b[d.i] == '#' {
		d.i++
		return typ, d.length(d.byte()), true
	}
	return typ, 0, false
}

func noData(typ byte) bool { return typ == 'Z' || typ == 'T' || typ == 'F' }

func (d *ubjsonDecoder) array(depth int) any {
	if !d.depth(depth) {
		return nil
	}
	typ, n, counted := d.header()
	switch {
	case !counted:
		return d.openArray(depth)
	case typ == 'U':
		return append([]byte{}, d.next(n)...)
	case noData(typ):
		if n > uint64(d.budget) {
			d.fail("typed array count %d too large", n)
			return nil
		}
		d.budget -= int(n)
	default:
		n = uint64(d.count(n, 1))
	}
	l := make([]any, 0, min(n, 1024))
	for i := uint64(0); i < n && d.err == nil; i++ {
		if depth == 1 && d.from != 0 { // a message array
			d.element(int(i), first(l))
		}
		l = append(l, d.value(d.marker(typ), depth+1))
	}
	return l
}

// marker returns the container's type, or reads the next marker.
func (d *ubjsonDecoder) marker(typ byte) byte {
	if typ != 0 {
		return typ
	}
	return d.byte()
}

func (d *ubjsonDecoder) openArray(depth int) any {
	base := len(d.stack)
	for i := 0; d.err == nil; i++ {
		if depth == 1 && d.from != 0 { // a message array
			d.element(i, first(d.stack[base:]))
		}
		m := d.byte()
		if m == ']' {
			return popList(&d.stack, base)
		}
		v := d.value(m, depth+1)
		d.stack = append(d.stack, v)
	}
	return nil
}

func (d *ubjsonDecoder) object(depth int) any {
	if !d.depth(depth) {
		return nil
	}
	typ, n, counted := d.header()
	if d.objects {
		return d.payloadObject(typ, n, counted, depth)
	}
	m := map[string]any{}
	if !counted {
		for d.err == nil {
			c := d.byte()
			if c == '}' {
				return m
			}
			k := d.text(d.length(c))
			m[k] = d.value(d.byte(), depth+1)
		}
		return nil
	}
	for range d.count(n, 2) {
		k := d.text(d.length(d.byte()))
		m[k] = d.value(d.marker(typ), depth+1)
	}
	return m
}

// payloadObject reads the entries of a payload dictionary, after its
// header, keeping their order.
func (d *ubjsonDecoder) payloadObject(typ byte, n uint64, counted bool, depth int) any {
	o := wamp.Object{}
	if !counted {
		for d.err == nil {
			c := d.byte()
			if c == '}' {
				return uniqueKeys(o)
			}
			k := d.text(d.length(c))
			o = append(o, wamp.Field{Key: k, Value: d.value(d.byte(), depth+1)})
		}
		return nil
	}
	o = make(wamp.Object, 0, d.count(n, 2))
	for range cap(o) {
		k := d.text(d.length(d.byte()))
		o = append(o, wamp.Field{Key: k, Value: d.value(d.marker(typ), depth+1)})
	}
	return uniqueKeys(o)
}
