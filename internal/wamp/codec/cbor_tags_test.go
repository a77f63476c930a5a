package codec

import (
	"math"
	"testing"
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
