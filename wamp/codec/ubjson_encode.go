package codec

import (
	"encoding/binary"
	"math"
	"strconv"
)

// ubjsonSink writes UBJSON (draft 12) as autobahn-python's py-ubjson does:
// containers without counts and with end markers, integers in the smallest
// of U, i, I, l, L, integers above math.MaxInt64 as high-precision 'H',
// floats as 'D', one-byte strings as 'C', binaries as typed uint8 arrays
// "[$U#" followed by the count and the bytes.
type ubjsonSink struct {
	errState
	b []byte
}

func newUBJSONSink() sink { return &ubjsonSink{b: make([]byte, 0, 128)} }

func (s *ubjsonSink) null() { s.b = append(s.b, 'Z') }

func (s *ubjsonSink) boolean(v bool) {
	if v {
		s.b = append(s.b, 'T')
		return
	}
	s.b = append(s.b, 'F')
}

func (s *ubjsonSink) int(v int64) {
	switch {
	case v >= 0 && v <= math.MaxUint8:
		s.b = append(s.b, 'U', byte(v))
	case v >= math.MinInt8 && v < 0:
		s.b = append(s.b, 'i', byte(v))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		s.b = binary.BigEndian.AppendUint16(append(s.b, 'I'), uint16(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		s.b = binary.BigEndian.AppendUint32(append(s.b, 'l'), uint32(v))
	default:
		s.b = binary.BigEndian.AppendUint64(append(s.b, 'L'), uint64(v))
	}
}

func (s *ubjsonSink) uint(v uint64) {
	if v <= math.MaxInt64 {
		s.int(int64(v))
		return
	}
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], v, 10)
	s.b = append(s.b, 'H')
	s.int(int64(len(d)))
	s.b = append(s.b, d...)
}

func (s *ubjsonSink) float(v float64) {
	s.b = binary.BigEndian.AppendUint64(append(s.b, 'D'), math.Float64bits(v))
}

func (s *ubjsonSink) str(v string) {
	if len(v) == 1 {
		s.b = append(s.b, 'C', v[0])
		return
	}
	s.b = append(s.b, 'S')
	s.key(0, v)
}

func (s *ubjsonSink) bin(v []byte) {
	s.b = append(s.b, '[', '$', 'U', '#')
	s.int(int64(len(v)))
	s.b = append(s.b, v...)
}

// key writes an object key: a string without its 'S' marker.
func (s *ubjsonSink) key(_ int, k string) {
	s.int(int64(len(k)))
	s.b = append(s.b, k...)
}

func (s *ubjsonSink) beginList(int) { s.b = append(s.b, '[') }
func (s *ubjsonSink) endList()      { s.b = append(s.b, ']') }
func (s *ubjsonSink) beginDict(int) { s.b = append(s.b, '{') }
func (s *ubjsonSink) endDict()      { s.b = append(s.b, '}') }
func (s *ubjsonSink) sep(int)       {}
func (s *ubjsonSink) bytes() []byte { return s.b }

func (s *ubjsonSink) reset() { s.b, s.e = s.b[:0], nil }

func (s *ubjsonSink) raw(b []byte) { s.b = append(s.b, b...) }
