package codec

import (
	"encoding/binary"
	"math"

	"github.com/junction-wamp/junction/wamp"
)

// decodeMsgpackMessage parses one MessagePack message array; its
// dictionaries from element from on are Objects. Extension values (wampy.js
// sends ext 0 for unset options) decode as nil.
func decodeMsgpackMessage(b []byte, from int) ([]any, error) {
	r := &reader{name: "msgpack", b: b, payloadState: newPayloadState(from)}
	if len(b) == 0 || !(b[0]&0xf0 == 0x90 || b[0] == 0xdc || b[0] == 0xdd) {
		return nil, decodeError("msgpack", "message is not an array")
	}
	v := msgpackValue(r, 1)
	return r.done(v)
}

// msgpackValue reads one value; depth is the level a container would have.
func msgpackValue(r *reader, depth int) any {
	c := r.byte()
	if r.err != nil {
		return nil
	}
	switch {
	case c <= 0x7f:
		return int64(c)
	case c >= 0xe0:
		return int64(int8(c))
	case c&0xe0 == 0xa0:
		return r.text(uint64(c & 0x1f))
	case c&0xf0 == 0x90:
		return msgpackList(r, uint64(c&0x0f), depth)
	case c&0xf0 == 0x80:
		return msgpackDict(r, uint64(c&0x0f), depth)
	}
	return msgpackCoded(r, c, depth)
}

func (r *reader) uintN(size int) uint64 {
	p := r.next(uint64(size))
	switch {
	case p == nil:
		return 0
	case size == 1:
		return uint64(p[0])
	case size == 2:
		return uint64(binary.BigEndian.Uint16(p))
	case size == 4:
		return uint64(binary.BigEndian.Uint32(p))
	}
	return binary.BigEndian.Uint64(p)
}

// msgpackCoded reads a value whose first byte is one of 0xc0..0xdf.
func msgpackCoded(r *reader, c byte, depth int) any {
	if r.skip && c >= 0xc4 && c <= 0xd3 && (c < 0xc7 || c > 0xc9) {
		msgpackSkip(r, c) // a number or a binary, not boxed nor copied
		return nil
	}
	switch c {
	case 0xc0:
		return nil
	case 0xc2:
		return false
	case 0xc3:
		return true
	case 0xcc, 0xcd, 0xce, 0xcf:
		return normUint(r.uintN(1 << (c - 0xcc)))
	case 0xd0, 0xd1, 0xd2, 0xd3:
		return msgpackInt(r, c)
	case 0xca:
		return float64(math.Float32frombits(uint32(r.uintN(4))))
	case 0xcb:
		return math.Float64frombits(r.uintN(8))
	case 0xd9, 0xda, 0xdb:
		return r.text(r.uintN(1 << (c - 0xd9)))
	case 0xc4, 0xc5, 0xc6:
		return append([]byte{}, r.next(r.uintN(1<<(c-0xc4)))...)
	case 0xdc, 0xdd:
		return msgpackList(r, r.uintN(2<<(c-0xdc)), depth)
	case 0xde, 0xdf:
		return msgpackDict(r, r.uintN(2<<(c-0xde)), depth)
	}
	return msgpackExt(r, c)
}

func msgpackInt(r *reader, c byte) any {
	switch v := r.uintN(1 << (c - 0xd0)); c {
	case 0xd0:
		return int64(int8(v))
	case 0xd1:
		return int64(int16(v))
	case 0xd2:
		return int64(int32(v))
	default:
		return int64(v)
	}
}

// normUint returns v as int64 when it fits.
func normUint(v uint64) any {
	if v <= math.MaxInt64 {
		return int64(v)
	}
	return v
}

// msgpackSkip moves past a number (0xca to 0xd3) or a binary (0xc4 to
// 0xc6) as msgpackCoded reads them.
func msgpackSkip(r *reader, c byte) {
	switch {
	case c <= 0xc6:
		r.next(r.uintN(1 << (c - 0xc4)))
	case c == 0xca:
		r.next(4)
	case c == 0xcb:
		r.next(8)
	case c <= 0xcf:
		r.next(1 << (c - 0xcc))
	default:
		r.next(1 << (c - 0xd0))
	}
}

// msgpackExt skips an extension value (type byte and data) and returns nil:
// a payload holding one cannot pass raw.
func msgpackExt(r *reader, c byte) any {
	r.bad = r.bad || r.skip
	var n uint64
	switch c {
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		n = 1 << (c - 0xd4)
	case 0xc7, 0xc8, 0xc9:
		n = r.uintN(1 << (c - 0xc7))
	default:
		r.fail("invalid byte 0x%02x", c)
		return nil
	}
	r.next(1 + n)
	return nil
}

func msgpackList(r *reader, n uint64, depth int) any {
	count := r.count(n, 1)
	if !r.depth(depth) {
		return nil
	}
	if r.skip {
		for range count {
			if msgpackValue(r, depth+1); r.err != nil {
				return nil
			}
		}
		return nil
	}
	l := make([]any, count)
	for i := range l {
		if depth == 1 && r.from != 0 { // a message array
			r.element(i, first(l[:i]))
			if r.rawElement(r.i, r.objects, msgpackKind(r.b, r.i)); r.skip {
				return msgpackRawTail(r, l[:i], count-i)
			}
		}
		l[i] = msgpackValue(r, depth+1)
		if r.err != nil {
			return nil
		}
	}
	return l
}

// msgpackRawTail validates the n payload elements that end a message
// array, whose head is read, and records where they end.
func msgpackRawTail(r *reader, head []any, n int) any {
	for i := range n {
		if i > 0 {
			r.rawElement(r.i, true, msgpackKind(r.b, r.i))
		}
		if msgpackValue(r, 2); r.err != nil {
			return nil
		}
	}
	r.stop = r.i
	return head
}

// msgpackKind is the kind of the value at b[i]: 'l' a list, 'd' a
// dictionary, 0 another or none.
func msgpackKind(b []byte, i int) byte {
	if i >= len(b) {
		return 0
	}
	switch c := b[i]; {
	case c&0xf0 == 0x90 || c == 0xdc || c == 0xdd:
		return 'l'
	case c&0xf0 == 0x80 || c == 0xde || c == 0xdf:
		return 'd'
	}
	return 0
}

func msgpackDict(r *reader, n uint64, depth int) any {
	count := r.count(n, 2)
	if !r.depth(depth) {
		return nil
	}
	if r.objects || r.skip {
		return msgpackObject(r, count, depth)
	}
	m := make(map[string]any, count)
	for range count {
		k := msgpackKey(r)
		m[k] = msgpackValue(r, depth+1)
		if r.err != nil {
			return nil
		}
	}
	return m
}

func msgpackObject(r *reader, count, depth int) any {
	if r.skip {
		for range count {
			if msgpackKey(r); r.err == nil {
				msgpackValue(r, depth+1)
			}
			if r.err != nil {
				return nil
			}
		}
		return nil
	}
	o := make(wamp.Object, count)
	for i := range o {
		o[i].Key = msgpackKey(r)
		o[i].Value = msgpackValue(r, depth+1)
		if r.err != nil {
			return nil
		}
	}
	return uniqueKeys(o)
}

// msgpackKey reads a map key, which must be a str.
func msgpackKey(r *reader) string {
	c := r.byte()
	switch {
	case r.err != nil:
		return ""
	case c&0xe0 == 0xa0:
		return r.text(uint64(c & 0x1f))
	case c >= 0xd9 && c <= 0xdb:
		return r.text(r.uintN(1 << (c - 0xd9)))
	}
	r.fail("map key is not a string")
	return ""
}
