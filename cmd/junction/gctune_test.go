package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                       string
		goal, live, stack, globals uint64
		want                       int
	}{
		{"small heap: the runtime's heap minimum lifts the goal", 32 * mib, 1 * mib, 0, 0, 800},
		{"scan work decides when it needs less", 32 * mib, 2 * mib, 6 * mib, 4 * mib, 250},
		{"stacks and globals count as scan work", 32 * mib, 2 * mib, 1 * mib, 1 * mib, 750},
		{"goal already above the minimum", 32 * mib, 20 * mib, 0, 0, 100},
		{"live heap past the minimum", 32 * mib, 40 * mib, 0, 0, 100},
		{"idle sessions: large stacks", 32 * mib, 21 * mib, 41 * mib, 0, 100},
		{"huge minimum is capped", 1 << 40, 1 * mib, 0, 0, maxGCPercent},
		{"nothing measured yet: the heap minimum decides", 32 * mib, 0, 0, 0, 800},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := gcPercentFor(tt.goal, tt.live, tt.stack, tt.globals); got != tt.want {
				t.Errorf("gcPercentFor = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestTuneGCLeavesOperatorSettings(t *testing.T) {
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		lookup := func(k string) (string, bool) { return "200", k == name }
		stop, started := tuneGC(lookup, minHeapGoal)
		stop()
		if started {
			t.Errorf("tuner started with %s set", name)
		}
	}
}

// TestGCTunerRaisesAndRestoresGOGC runs real collections: after one, GOGC
// is raised for a minimum goal far above this test's heap; stop puts back
// 100.
func TestGCTunerRaisesAndRestoresGOGC(t *testing.T) {
	tuned := make(chan int, 1)
	tr := newGCTuner(1 << 30)
	tr.onTune = func(p int) {
		select {
		case tuned <- p:
		default:
		}
	}
	tr.arm()
	defer tr.stop()
	runtime.GC()
	select {
	case p := <-tuned:
		if p <= 100 {
			t.Fatalf("tuned GOGC = %d, want > 100 for a 1 GiB minimum goal", p)
		}
		if cur := currentGCPercent(); cur != p {
			t.Errorf("GOGC in effect = %d, want %d", cur, p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tuner did not run after a collection")
	}
	tr.stop()
	if cur := currentGCPercent(); cur != 100 {
		t.Errorf("GOGC after stop = %d, want 100", cur)
	}
	runtime.GC() // the re-armed sentinel's finalizer must now do nothing
	runtime.GC()
	if cur := currentGCPercent(); cur != 100 {
		t.Errorf("GOGC after stop and collections = %d, want 100", cur)
	}
}

func currentGCPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
