package main

import (
	"slices"
	"time"
)

// percentile returns the q-quantile (0 < q <= 1) of the latencies by the
// nearest-rank method: the smallest value that at least q of them do not
// exceed. It sorts the slice; 0 for none.
func percentile(latencies []time.Duration, q float64) time.Duration {
	if len(latencies) == 0 {
		return 0
	}
	slices.Sort(latencies)
	// rank = ceil(q * n), tolerant of q * n landing a hair above an
	// integer (0.99 * 100 = 99.00000000000001).
	x := q * float64(len(latencies))
	rank := int(x)
	if x-float64(rank) > 1e-9 {
		rank++
	}
	return latencies[min(max(rank, 1), len(latencies))-1]
}

// micros is d in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
