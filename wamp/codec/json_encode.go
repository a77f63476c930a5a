package codec

import (
	"encoding/base64"
	"math"
	"strconv"
)

// jsonSink writes JSON. Binary values are written as a string holding a NUL
// character followed by the standard Base64 of the bytes, the WAMP rule.
type jsonSink struct {
	errState
	b []byte
}

func newJSONSink() sink { return &jsonSink{b: make([]byte, 0, 128)} }

func (s *jsonSink) null()          { s.b = append(s.b, "null"...) }
func (s *jsonSink) boolean(v bool) { s.b = strconv.AppendBool(s.b, v) }
func (s *jsonSink) int(v int64)    { s.b = strconv.AppendInt(s.b, v, 10) }
func (s *jsonSink) uint(v uint64)  { s.b = strconv.AppendUint(s.b, v, 10) }
func (s *jsonSink) str(v string)   { s.b = appendJSONString(s.b, v) }
func (s *jsonSink) beginList(int)  { s.b = append(s.b, '[') }
func (s *jsonSink) endList()       { s.b = append(s.b, ']') }
func (s *jsonSink) beginDict(int)  { s.b = append(s.b, '{') }
func (s *jsonSink) endDict()       { s.b = append(s.b, '}') }
func (s *jsonSink) bytes() []byte  { return s.b }

func (s *jsonSink) sep(i int) {
	if i > 0 {
		s.b = append(s.b, ',')
	}
}

func (s *jsonSink) key(i int, k string) {
	s.sep(i)
	s.b = appendJSONString(s.b, k)
	s.b = append(s.b, ':')
}

func (s *jsonSink) bin(v []byte) {
	s.b = append(s.b, `"\u0000`...)
	s.b = base64.StdEncoding.AppendEncode(s.b, v)
	s.b = append(s.b, '"')
}

// float writes the shortest representation that parses back to v, always
// with a fraction or an exponent so that it decodes as a float again.
func (s *jsonSink) float(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s.setErr(errNonFinite)
		return
	}
	f := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		f = 'e'
	}
	start := len(s.b)
	s.b = strconv.AppendFloat(s.b, v, f, -1, 64)
	for _, c := range s.b[start:] {
		if c == '.' || c == 'e' {
			return
		}
	}
	s.b = append(s.b, ".0"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends v, valid UTF-8, quoted; only '"', '\\' and
// control characters are escaped.
func appendJSONString(b []byte, v string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, v[start:i]...)
		b = appendEscape(b, c)
		start = i + 1
	}
	b = append(b, v[start:]...)
	return append(b, '"')
}

func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

func (s *jsonSink) reset() { s.b, s.e = s.b[:0], nil }

func (s *jsonSink) raw(b []byte) { s.b = append(s.b, b...) }
