package codec

import (
	"math"
	"math/big"
	"time"
)

// The values of tags 0 to 3 (RFC 8949 section 3.4), read as fxamacker/cbor
// (which decoded CBOR here before) read them with TimeTagToRFC3339Nano:
// a date/time becomes its RFC 3339 text, a bignum an integer or a float.

// rfc3339Time parses the text of tag 0 as the standard library's RFC 3339
// layout does.
func rfc3339Time(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }

// epochTime returns the time of tag 1 whose content has the given head: an
// integer in the int64 range or a float (NaN and infinities give the zero
// time, as RFC 8949 section 3.4.2 allows), in UTC.
func epochTime(major, ai byte, arg uint64) (time.Time, bool) {
	switch {
	case major == majorUint && arg <= math.MaxInt64:
		return time.Unix(int64(arg), 0).UTC(), true
	case major == majorNeg && arg <= math.MaxInt64:
		return time.Unix(-1-int64(arg), 0).UTC(), true
	case major != majorOther:
		return time.Time{}, false
	}
	f := cborFloat(ai, arg)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}, true
	}
	sec, frac := math.Modf(f)
	if sec > math.MaxInt64 || sec < math.MinInt64 {
		return time.Time{}, false
	}
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
}

// cborFloat returns the float of a major type 7 head with additional
// information 25, 26 or 27.
func cborFloat(ai byte, bits uint64) float64 {
	switch ai {
	case 25:
		return halfFloat(uint16(bits))
	case 26:
		return float64(math.Float32frombits(uint32(bits)))
	}
	return math.Float64frombits(bits)
}

// timeText returns t as RFC 3339 text with its fraction of a second, or
// false when RFC 3339 cannot write it (a year outside 0 to 9999).
func timeText(t time.Time) (string, bool) {
	b, err := t.MarshalText()
	return string(b), err == nil
}

// timeWritable reports, without allocating, whether timeText can write t:
// a year of four digits and a zone offset under 24 hours, which is what
// time.Time.MarshalText checks.
func timeWritable(t time.Time) bool {
	_, offset := t.Zone()
	minutes := offset / 60
	if minutes < 0 {
		minutes = -minutes
	}
	return t.Year() >= 0 && t.Year() <= 9999 && minutes/60 < 24
}

// bignum returns the bignum of tag 2 (n) or 3 (-1-n), n being the
// big-endian bytes p: exact when it fits int64 or uint64, a float64
// otherwise, and false beyond float64's range.
func bignum(p []byte, negative bool) (any, bool) {
	n := new(big.Int).SetBytes(p)
	if negative {
		n.Neg(n.Add(n, big.NewInt(1)))
	}
	return normBig(n)
}

// normBig keeps an integer exact when it fits int64 or uint64, as a float64
// otherwise (the nearest), and rejects one beyond float64's range.
func normBig(n *big.Int) (any, bool) {
	switch {
	case n.IsInt64():
		return n.Int64(), true
	case n.IsUint64():
		return n.Uint64(), true
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f, !math.IsInf(f, 0)
}

// bignumRange tells, without allocating, whether bignum accepts a
// bignum's bytes, given chunk by chunk. A float64 holds magnitudes below
// 2^1024 - 2^970 (54 one bits and 970 zero bits), the least that rounds to
// infinity; tag 3's magnitude is n+1, so it also rejects
// n = 2^1024 - 2^970 - 1 (53 one bits, a zero, 970 one bits).
type bignumRange struct {
	n       int     // significant bytes so far (leading zeros skipped)
	head    [7]byte // the first seven of them
	notOnes bool    // a byte after those seven is not 0xff
}

func (r *bignumRange) add(p []byte) {
	for _, c := range p {
		switch {
		case r.n == 0 && c == 0:
			continue
		case r.n < len(r.head):
			r.head[r.n] = c
		case c != 0xff:
			r.notOnes = true
		}
		r.n++
	}
}

func (r *bignumRange) inRange(negative bool) bool {
	switch {
	case r.n < 128:
		return true
	case r.n > 128:
		return false
	}
	high := allBytes(r.head[:6], 0xff)
	if high && r.head[6]&0xfc == 0xfc {
		return false
	}
	return !(negative && high && r.head[6] == 0xfb && !r.notOnes)
}

func allBytes(p []byte, c byte) bool {
	for _, b := range p {
		if b != c {
			return false
		}
	}
	return true
}
