package codec

import (
	"math"
	"math/big"
	"testing"
	"time"
)

// TestHalfFloat compares every half-precision float with the old decoder's
// reading of it, bit for bit.
func TestHalfFloat(t *testing.T) {
	for h := range 1 << 16 {
		in := []byte{0x81, 0xf9, byte(h >> 8), byte(h)}
		want, err := oracleDecode(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := halfFloat(uint16(h)); math.Float64bits(got) != math.Float64bits(want[0].(float64)) {
			t.Fatalf("%#04x: %v (%#x), want %v (%#x)", h, got, math.Float64bits(got), want[0], math.Float64bits(want[0].(float64)))
		}
	}
}

// TestBignumRange checks the validator's range test against the decoder's
// on both sides of the float64 limit, for both tags, in one chunk and many.
func TestBignumRange(t *testing.T) {
	one := big.NewInt(1)
	limit := new(big.Int).Sub(new(big.Int).Lsh(one, 1024), new(big.Int).Lsh(one, 970)) // rounds to +Inf
	var values []*big.Int
	for _, base := range []*big.Int{limit, new(big.Int).Lsh(one, 1024), new(big.Int).Lsh(one, 1023), new(big.Int).Lsh(one, 64)} {
		for d := int64(-3); d <= 3; d++ {
			values = append(values, new(big.Int).Add(base, big.NewInt(d)))
		}
	}
	values = append(values, new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, 1025), one))
	for _, n := range values {
		p := append(make([]byte, 2), n.Bytes()...) // leading zeros too
		for _, negative := range []bool{false, true} {
			_, want := bignum(p, negative)
			var whole, chunked bignumRange
			whole.add(p)
			for i := range p {
				chunked.add(p[i : i+1])
			}
			if whole.inRange(negative) != want || chunked.inRange(negative) != want {
				t.Errorf("%x negative %v: inRange %v, chunk by chunk %v; the decoder: %v",
					n, negative, whole.inRange(negative), chunked.inRange(negative), want)
			}
		}
	}
}

// TestTimeWritable: timeWritable agrees with timeText, on times from both
// date/time tags.
func TestTimeWritable(t *testing.T) {
	var times []time.Time
	for _, s := range []string{
		"2013-03-21T20:04:00Z", "0000-01-01T00:00:00+00:01", "0000-01-01T00:00:00-00:01",
		"9999-12-31T23:59:59-23:59", "9999-12-31T23:59:59+23:59", "2000-01-01T00:00:00.123456789+05:30",
	} {
		tm, err := rfc3339Time(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		times = append(times, tm)
	}
	for _, sec := range []int64{0, -62167219200, -62167219201, 253402300799, 253402300800, math.MaxInt64, math.MinInt64} {
		times = append(times, time.Unix(sec, 0).UTC(), time.Unix(sec, 999999999).UTC())
	}
	times = append(times, time.Time{}, time.Unix(0, 0).In(time.FixedZone("", 24*3600)), time.Unix(0, 0).In(time.FixedZone("", -100*3600)))
	for _, tm := range times {
		if _, ok := timeText(tm); timeWritable(tm) != ok {
			t.Errorf("%v: timeWritable %v, timeText %v", tm, timeWritable(tm), ok)
		}
	}
}
