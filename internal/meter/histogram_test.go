package meter

import (
	"sync"
	"testing"
	"time"
)

func TestHistogramBuckets(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int // index of the first bucket that counts it; len(Bounds): +Inf only
	}{
		{-time.Second, 0},
		{0, 0},
		{100 * time.Microsecond, 0}, // a bound counts in its own bucket (le)
		{100*time.Microsecond + 1, 1},
		{time.Millisecond, 3},
		{30 * time.Second, len(Bounds) - 1},
		{30*time.Second + 1, len(Bounds)},
		{time.Hour, len(Bounds)},
	}
	for _, tt := range tests {
		var h Histogram
		h.Observe(tt.d)
		s := h.Snapshot()
		if s.Count != 1 || s.Sum != max(tt.d, 0) {
			t.Errorf("%v: count %d sum %v, want 1 and %v", tt.d, s.Count, s.Sum, max(tt.d, 0))
		}
		for i, n := range s.Buckets {
			if want := uint64(0); i >= tt.want {
				if n != 1 {
					t.Errorf("%v: bucket le %v = %d, want 1", tt.d, Bounds[i], n)
				}
			} else if n != want {
				t.Errorf("%v: bucket le %v = %d, want 0", tt.d, Bounds[i], n)
			}
		}
	}
}

func TestHistogramConcurrent(t *testing.T) {
	var h Histogram
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				h.Observe(time.Duration(g*1000+i) * time.Microsecond)
			}
		})
	}
	wg.Wait()
	s := h.Snapshot()
	if s.Count != 8000 {
		t.Fatalf("count %d, want 8000", s.Count)
	}
	// 0..100 µs: 101 observations; <= 1 ms: 1001.
	if s.Buckets[0] != 101 || s.Buckets[3] != 1001 {
		t.Errorf("buckets le 100µs %d, le 1ms %d; want 101 and 1001", s.Buckets[0], s.Buckets[3])
	}
}

func TestSnapshotMerge(t *testing.T) {
	var a, b Histogram
	a.Observe(time.Millisecond)
	b.Observe(time.Minute)
	s := a.Snapshot()
	s.Merge(b.Snapshot())
	if s.Count != 2 || s.Sum != time.Minute+time.Millisecond || s.Buckets[len(Bounds)-1] != 1 || s.Buckets[3] != 1 {
		t.Errorf("merged %+v", s)
	}
}

func BenchmarkObserve(b *testing.B) {
	var h Histogram
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		d := time.Duration(0)
		for pb.Next() {
			h.Observe(d)
			d += 7 * time.Microsecond
		}
	})
}
