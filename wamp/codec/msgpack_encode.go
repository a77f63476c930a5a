package codec

import (
	"encoding/binary"
	"math"
)

// msgpackSink writes MessagePack: strings as str, binaries as bin, every
// float as float 64, integers in their smallest form.
type msgpackSink struct {
	errState
	b []byte
}

func newMsgpackSink() sink { return &msgpackSink{b: make([]byte, 0, 128)} }

func (s *msgpackSink) null() { s.b = append(s.b, 0xc0) }

func (s *msgpackSink) boolean(v bool) {
	if v {
		s.b = append(s.b, 0xc3)
		return
	}
	s.b = append(s.b, 0xc2)
}

func (s *msgpackSink) int(v int64) {
	switch {
	case v >= 0:
		s.uint(uint64(v))
	case v >= -32:
		s.b = append(s.b, byte(v))
	case v >= math.MinInt8:
		s.b = append(s.b, 0xd0, byte(v))
	case v >= math.MinInt16:
		s.b = binary.BigEndian.AppendUint16(append(s.b, 0xd1), uint16(v))
	case v >= math.MinInt32:
		s.b = binary.BigEndian.AppendUint32(append(s.b, 0xd2), uint32(v))
	default:
		s.b = binary.BigEndian.AppendUint64(append(s.b, 0xd3), uint64(v))
	}
}

func (s *msgpackSink) uint(v uint64) {
	switch {
	case v <= 0x7f:
		s.b = append(s.b, byte(v))
	case v <= math.MaxUint8:
		s.b = append(s.b, 0xcc, byte(v))
	case v <= math.MaxUint16:
		s.b = binary.BigEndian.AppendUint16(append(s.b, 0xcd), uint16(v))
	case v <= math.MaxUint32:
		s.b = binary.BigEndian.AppendUint32(append(s.b, 0xce), uint32(v))
	default:
		s.b = binary.BigEndian.AppendUint64(append(s.b, 0xcf), v)
	}
}

func (s *msgpackSink) float(v float64) {
	s.b = binary.BigEndian.AppendUint64(append(s.b, 0xcb), math.Float64bits(v))
}

func (s *msgpackSink) str(v string) {
	s.length(len(v), 0xa0, 31, 0xd9, 0xda, 0xdb)
	s.b = append(s.b, v...)
}

func (s *msgpackSink) bin(v []byte) {
	s.length(len(v), 0, 0, 0xc4, 0xc5, 0xc6)
	s.b = append(s.b, v...)
}

func (s *msgpackSink) beginList(n int)     { s.length(n, 0x90, 15, 0, 0xdc, 0xdd) }
func (s *msgpackSink) beginDict(n int)     { s.length(n, 0x80, 15, 0, 0xde, 0xdf) }
func (s *msgpackSink) sep(int)             {}
func (s *msgpackSink) endList()            {}
func (s *msgpackSink) endDict()            {}
func (s *msgpackSink) key(_ int, k string) { s.str(k) }
func (s *msgpackSink) bytes() []byte       { return s.b }

// length writes a header: fixed (if fixMax > 0 and n <= fixMax), then the
// 8-bit form (if c8 != 0), 16-bit and 32-bit forms.
func (s *msgpackSink) length(n int, fix byte, fixMax int, c8, c16, c32 byte) {
	switch {
	case fixMax > 0 && n <= fixMax:
		s.b = append(s.b, fix|byte(n))
	case c8 != 0 && n <= math.MaxUint8:
		s.b = append(s.b, c8, byte(n))
	case n <= math.MaxUint16:
		s.b = binary.BigEndian.AppendUint16(append(s.b, c16), uint16(n))
	case uint64(n) <= math.MaxUint32:
		s.b = binary.BigEndian.AppendUint32(append(s.b, c32), uint32(n))
	default:
		s.setErr(errTooLong)
	}
}

func (s *msgpackSink) reset() { s.b, s.e = s.b[:0], nil }

func (s *msgpackSink) raw(b []byte) { s.b = append(s.b, b...) }
