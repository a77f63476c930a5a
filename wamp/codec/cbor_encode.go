package codec

import (
	"encoding/binary"
	"math"
)

// cborSink writes CBOR (RFC 8949) with definite lengths: strings as text,
// binaries as byte strings, every float as a 64-bit float.
type cborSink struct {
	errState
	b []byte
}

func newCBORSink() sink { return &cborSink{b: make([]byte, 0, 128)} }

// CBOR major types, shifted into the high three bits.
const (
	cborUint  = majorUint << 5
	cborNeg   = majorNeg << 5
	cborBytes = majorBytes << 5
	cborText  = majorText << 5
	cborArray = majorArray << 5
	cborMap   = majorMap << 5
)

// head writes a major type with its argument in the shortest form.
func (s *cborSink) head(major byte, n uint64) {
	switch {
	case n < 24:
		s.b = append(s.b, major|byte(n))
	case n <= math.MaxUint8:
		s.b = append(s.b, major|24, byte(n))
	case n <= math.MaxUint16:
		s.b = binary.BigEndian.AppendUint16(append(s.b, major|25), uint16(n))
	case n <= math.MaxUint32:
		s.b = binary.BigEndian.AppendUint32(append(s.b, major|26), uint32(n))
	default:
		s.b = binary.BigEndian.AppendUint64(append(s.b, major|27), n)
	}
}

func (s *cborSink) null() { s.b = append(s.b, 0xf6) }

func (s *cborSink) boolean(v bool) {
	if v {
		s.b = append(s.b, 0xf5)
		return
	}
	s.b = append(s.b, 0xf4)
}

func (s *cborSink) int(v int64) {
	if v < 0 {
		s.head(cborNeg, uint64(-1-v))
		return
	}
	s.head(cborUint, uint64(v))
}

func (s *cborSink) uint(v uint64) { s.head(cborUint, v) }

func (s *cborSink) float(v float64) {
	s.b = binary.BigEndian.AppendUint64(append(s.b, 0xfb), math.Float64bits(v))
}

func (s *cborSink) str(v string) {
	s.head(cborText, uint64(len(v)))
	s.b = append(s.b, v...)
}

func (s *cborSink) bin(v []byte) {
	s.head(cborBytes, uint64(len(v)))
	s.b = append(s.b, v...)
}

func (s *cborSink) beginList(n int)     { s.head(cborArray, uint64(n)) }
func (s *cborSink) beginDict(n int)     { s.head(cborMap, uint64(n)) }
func (s *cborSink) sep(int)             {}
func (s *cborSink) endList()            {}
func (s *cborSink) endDict()            {}
func (s *cborSink) key(_ int, k string) { s.str(k) }
func (s *cborSink) bytes() []byte       { return s.b }

func (s *cborSink) reset() { s.b, s.e = s.b[:0], nil }

func (s *cborSink) raw(b []byte) { s.b = append(s.b, b...) }
