package codec

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// CBOR major types (RFC 8949 section 3.1), as the high three bits of an
// initial byte hold them, shifted down.
const (
	majorUint  = 0
	majorNeg   = 1
	majorBytes = 2
	majorText  = 3
	majorArray = 4
	majorMap   = 5
	majorTag   = 6
	majorOther = 7 // simple values and floats
)

const (
	aiIndefinite = 31   // additional information of an indefinite length
	cborBreak    = 0xff // ends an indefinite-length item
)

// cborScanner walks CBOR bytes for both the decoder and the validator: the
// heads, strings, tag chains and map keys, and the rules they share. It
// keeps the first problem as a constant message and its offset, so that
// walking allocates nothing. A scanner is used by one goroutine.
type cborScanner struct {
	b   []byte
	i   int
	bad string // the first problem, "" while the input is good
	at  int    // the offset of the first problem
}

func (s *cborScanner) fail(msg string) {
	if s.bad == "" {
		s.bad, s.at = msg, s.i
	}
}

func (s *cborScanner) ok() bool { return s.bad == "" }

// head reads an initial byte and its argument (RFC 8949 section 3): the
// major type, the additional information and the argument's value; for a
// float, the argument is its bits. A break, an indefinite length where the
// major type has none (ai 31 of an integer or a tag), reserved additional
// information (28 to 30) and a one-byte simple value below 32 are
// failures; callers of indefinite-length items look for the break first.
func (s *cborScanner) head() (major, ai byte, arg uint64) {
	if s.i >= len(s.b) {
		s.fail("unexpected end of input")
		return 0, 0, 0
	}
	c := s.b[s.i]
	s.i++
	major, ai = c>>5, c&0x1f
	switch {
	case ai < 24:
		return major, ai, uint64(ai)
	case ai <= 27:
		return major, ai, s.argument(major, 1<<(ai-24))
	case ai == aiIndefinite && major >= majorBytes && major <= majorMap:
		return major, ai, 0
	case c == cborBreak:
		s.fail("unexpected break")
	default:
		s.fail("invalid additional information")
	}
	return major, ai, 0
}

// argument reads the n-byte argument after an initial byte.
func (s *cborScanner) argument(major byte, n int) uint64 {
	if len(s.b)-s.i < n {
		s.fail("unexpected end of input")
		return 0
	}
	p := s.b[s.i : s.i+n]
	s.i += n
	switch n {
	case 1:
		if major == majorOther && p[0] < 32 {
			s.fail("invalid simple value")
		}
		return uint64(p[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(p))
	case 4:
		return uint64(binary.BigEndian.Uint32(p))
	}
	return binary.BigEndian.Uint64(p)
}

// atBreak consumes the break that ends an indefinite-length item and
// reports whether it was there; the end of the input is a failure (and
// true, to stop the caller's loop).
func (s *cborScanner) atBreak() bool {
	if s.i >= len(s.b) {
		s.fail("unexpected end of input")
		return true
	}
	if s.b[s.i] == cborBreak {
		s.i++
		return true
	}
	return false
}

// more reports whether an item of n elements (indefinite: until a break)
// has an element i to read.
func (s *cborScanner) more(indefinite bool, i, n uint64) bool {
	if !s.ok() {
		return false
	}
	if indefinite {
		return !s.atBreak()
	}
	return i < n
}

// content reads the n bytes of a string of major type m, checked to be
// UTF-8 for a text string.
func (s *cborScanner) content(m byte, n uint64) []byte {
	if !s.ok() {
		return nil
	}
	if n > uint64(len(s.b)-s.i) {
		s.fail("length past the end of the input")
		return nil
	}
	p := s.b[s.i : s.i+int(n)]
	if m == majorText && !utf8.Valid(p) {
		s.fail("text is not valid UTF-8")
		return nil
	}
	s.i += int(n)
	return p
}

// chunk reads the next chunk of an indefinite-length string of major type
// m, a definite-length string of the same type whose text, alone, is UTF-8;
// false after the break or a problem.
func (s *cborScanner) chunk(m byte) ([]byte, bool) {
	if s.atBreak() || !s.ok() {
		return nil, false
	}
	if c := s.b[s.i]; c>>5 != m || c&0x1f == aiIndefinite {
		s.fail("invalid chunk in an indefinite-length string")
		return nil, false
	}
	_, _, n := s.head()
	p := s.content(m, n)
	return p, s.ok()
}

// text reads a text string's content after its head.
func (s *cborScanner) text(ai byte, n uint64) string {
	if ai != aiIndefinite {
		return string(s.content(majorText, n))
	}
	var b []byte
	for p, ok := s.chunk(majorText); ok; p, ok = s.chunk(majorText) {
		b = append(b, p...)
	}
	return string(b)
}

// level checks the level of a container about to be read (the message
// array is level 1).
func (s *cborScanner) level(depth int) bool {
	if depth > maxDepth {
		s.fail("nesting deeper than 1000")
	}
	return s.ok()
}

// count checks a definite container's element count: each element takes
// at least min bytes of the input.
func (s *cborScanner) count(n uint64, min int) {
	if n > uint64((len(s.b)-s.i)/min) {
		s.fail("count past the end of the input")
	}
}

// tagChain reads the tags that follow tag num, up to the tagged content,
// and returns the last tag's number and the level a container in the
// content would have. As in fxamacker/cbor, which decoded CBOR here before,
// a tag nested directly in a tag counts as a level (the first does not),
// and the content of tags 0 to 3 must have the type RFC 8949 gives them
// (so that such a tag can only be last).
func (s *cborScanner) tagChain(num uint64, depth int) (uint64, int) {
	for s.ok() {
		if s.i >= len(s.b) {
			s.fail("unexpected end of input")
			break
		}
		c := s.b[s.i]
		if !tagContentOK(num, c) {
			s.fail("tag content of the wrong type")
			break
		}
		if c>>5 != majorTag {
			break
		}
		_, _, num = s.head()
		depth++
		s.level(depth - 1)
	}
	return num, depth
}

// tagContentOK reports whether an item starting with byte c may be the
// content of tag num: a text string for 0 (date/time string), an integer
// or float for 1 (epoch date/time), a byte string for 2 and 3 (bignums).
func tagContentOK(num uint64, c byte) bool {
	switch num {
	case 0:
		return c>>5 == majorText
	case 1:
		return c>>5 == majorUint || c>>5 == majorNeg || (c >= 0xf9 && c <= 0xfb)
	case 2, 3:
		return c>>5 == majorBytes
	}
	return true
}

// keyHead reads a map key up to the head of its text: the key is a text
// string, possibly tagged (by any tag but 1, 2 and 3, whose content cannot
// be text), or null or undefined, which fxamacker/cbor read as the empty
// key and so do we. It returns the text's additional information and
// length, null for a null or undefined key, and whether a tag was read.
func (s *cborScanner) keyHead(depth int) (ai byte, n uint64, null, tagged bool) {
	if s.i < len(s.b) && s.b[s.i]>>5 == majorTag {
		_, _, num := s.head()
		num, _ = s.tagChain(num, depth)
		if num >= 1 && num <= 3 {
			s.fail("map key is not a string")
		}
		tagged = true
	}
	major, ai, n := s.head()
	switch {
	case !s.ok():
	case major == majorText:
		return ai, n, false, tagged
	case major == majorOther && (ai == 22 || ai == 23):
		return ai, 0, true, tagged
	default:
		s.fail("map key is not a string")
	}
	return 0, 0, false, tagged
}

// halfFloat returns the IEEE 754 half-precision float of bits h as a
// float64; a NaN keeps its sign and payload, quiet, as a float32 NaN
// converted to float64 would.
func halfFloat(h uint16) float64 {
	exp, mant := int(h>>10&0x1f), uint64(h&0x3ff)
	var f float64
	switch exp {
	case 0x1f:
		if mant != 0 {
			return math.Float64frombits(uint64(h>>15)<<63 | 0x7ff8000000000000 | mant<<42)
		}
		f = math.Inf(1)
	case 0:
		f = math.Ldexp(float64(mant), -24)
	default:
		f = math.Ldexp(float64(mant|0x400), exp-25)
	}
	if h&0x8000 != 0 {
		f = -f
	}
	return f
}
