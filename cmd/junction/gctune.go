package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// minHeapGoal is the smallest heap goal the garbage collector is given
// while a node runs (see tuneGC).
const minHeapGoal = 32 << 20

// gcTuner raises GOGC after each collection so that the next heap goal is
// at least goal bytes. With Go's default GOGC of 100 a router whose live
// heap is 1-2 MiB collects every 2-4 MiB of allocation: dozens of times a
// second under HTTP load, each collection stopping the world briefly.
// Keeping the goal at least that high cuts the collections several times
// over, at the price of up to goal bytes of heap; a node whose live heap
// is large is collected as with GOGC=100.
//
// The tuner runs in the runtime's finalizer goroutine, once per completed
// collection; its methods are not for concurrent use, except stop.
type gcTuner struct {
	goal    uint64
	percent int // what the tuner last set
	samples []metrics.Sample
	onTune  func(percent int) // tests only; nil otherwise

	mu      sync.Mutex // guards stopped
	stopped bool
}

// gcSentinel is garbage on purpose: its finalizer runs after the first
// collection that finds it unreachable. It holds a pointer so that the
// tiny allocator does not pack it with other objects.
type gcSentinel struct{ t *gcTuner }

// tuneGC starts the tuner with the given minimum goal, unless GOGC or
// GOMEMLIMIT is set in the environment (the operator's own tuning wins).
// It returns a func that stops the tuner and restores GOGC=100, and
// whether it started.
func tuneGC(lookupEnv func(string) (string, bool), goal uint64) (stop func(), started bool) {
	if _, set := lookupEnv("GOGC"); set {
		return func() {}, false
	}
	if _, set := lookupEnv("GOMEMLIMIT"); set {
		return func() {}, false
	}
	t := newGCTuner(goal)
	t.arm()
	return t.stop, true
}

func newGCTuner(goal uint64) *gcTuner {
	return &gcTuner{goal: goal, percent: 100, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}}
}

// arm plants a new sentinel for the next collection.
func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t: t}, func(s *gcSentinel) { s.t.afterGC() })
}

// afterGC adjusts GOGC to the heap just marked and re-arms, until stopped.
func (t *gcTuner) afterGC() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	metrics.Read(t.samples)
	p := gcPercentFor(t.goal, t.samples[0].Value.Uint64(), t.samples[1].Value.Uint64(), t.samples[2].Value.Uint64())
	if p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
	if t.onTune != nil {
		t.onTune(p)
	}
	t.arm()
}

// stop ends the tuning and puts GOGC back to 100. Safe to call more than
// once and concurrently with a collection.
func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(100)
	}
}

// maxGCPercent bounds the tuner's GOGC, so that a nearly empty heap does
// not get an absurd multiplier.
const maxGCPercent = 10000

// runtimeHeapMinimum is the Go runtime's smallest heap goal at GOGC=100
// (defaultHeapMinimum, 4 MiB); it scales with GOGC.
const runtimeHeapMinimum = 4 << 20

// gcPercentFor is the smallest GOGC, never below Go's default of 100 nor
// above maxGCPercent, that makes the runtime's next heap goal at least
// goal. The runtime aims at the larger of two goals, and either suffices:
// live + (live + stack + globals) * GOGC / 100, and its heap minimum,
// 4 MiB * GOGC / 100 (which is what lifts a small heap's goal).
func gcPercentFor(goal, live, stack, globals uint64) int {
	if live >= goal {
		return 100
	}
	p := goal * 100 / runtimeHeapMinimum
	if scan := live + stack + globals; scan > 0 {
		p = min(p, (goal-live)*100/scan)
	}
	return int(max(100, min(p, maxGCPercent)))
}
