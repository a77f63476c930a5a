// Package meter holds the counters the router, the bridge and the web
// proxies keep in their own structs: a lock-free duration histogram and a
// meter of HTTP requests by status. Everything is atomics, safe for
// concurrent use with no lock and no allocation when counting; snapshots
// are plain data that the Prometheus collector (internal/metrics) and the
// node's Stats read. The standard library only.
package meter

import (
	"sync/atomic"
	"time"
)

// Bounds are the upper bounds of the histograms' buckets, from 100 µs to
// 30 s; a last bucket (+Inf) counts what is longer.
var Bounds = [...]time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second,
	10 * time.Second, 30 * time.Second,
}

// Histogram counts durations in the buckets of Bounds. The zero value is
// empty and ready; safe for concurrent use (atomics only).
type Histogram struct {
	buckets [len(Bounds) + 1]atomic.Uint64 // not cumulative; the last is +Inf
	sum     atomic.Int64                   // nanoseconds
}

// Observe counts one duration (a negative one as zero).
func (h *Histogram) Observe(d time.Duration) {
	d = max(d, 0)
	i := 0
	for i < len(Bounds) && d > Bounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sum.Add(int64(d))
}

// HistogramSnapshot is what a Histogram counted. Buckets[i] counts the
// durations up to Bounds[i] (cumulative, as Prometheus has them);
// Count all of them.
type HistogramSnapshot struct {
	Count   uint64
	Sum     time.Duration
	Buckets [len(Bounds)]uint64
}

// Snapshot returns the counts so far. Under concurrent Observes it may be
// one observation behind in some buckets, never inconsistent in order:
// Count is the sum of the buckets read.
func (h *Histogram) Snapshot() HistogramSnapshot {
	var s HistogramSnapshot
	s.Add(h)
	return s
}

// Add adds what h counted to s.
func (s *HistogramSnapshot) Add(h *Histogram) {
	var cum uint64
	for i := range Bounds {
		cum += h.buckets[i].Load()
		s.Buckets[i] += cum
	}
	s.Count += cum + h.buckets[len(Bounds)].Load()
	s.Sum += time.Duration(h.sum.Load())
}

// Merge adds o to s.
func (s *HistogramSnapshot) Merge(o HistogramSnapshot) {
	s.Count += o.Count
	s.Sum += o.Sum
	for i := range s.Buckets {
		s.Buckets[i] += o.Buckets[i]
	}
}
