package lograte

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// heldLog records what OnHeld reports.
type heldLog struct {
	mu   sync.Mutex
	held map[string]int
}

func (h *heldLog) note(key string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[string]int{}
	}
	h.held[key] += n
}

func (h *heldLog) get(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held[key]
}

func TestKeyed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var h heldLog
		k := &Keyed{Interval: 10 * time.Second, Burst: 2, MaxKeys: 2, OnHeld: h.note}
		steps := []struct {
			wait time.Duration // fake time passed before the event
			key  string
			ok   bool
		}{
			{0, "a", true},
			{0, "a", true},
			{0, "a", false}, // past the burst
			{time.Second, "b", true},
			{0, "c", true}, // two windows open: c goes to OtherKey
			{0, "d", true}, // OtherKey's second
			{0, "c", false},
			{0, "a", false},
			{9 * time.Second, "a", true}, // a's window ended, a new one opened
			{0, "b", true},               // b's still open: its second
			{0, "b", false},
		}
		for i, s := range steps {
			time.Sleep(s.wait)
			synctest.Wait()
			if ok := k.Allow(s.key); ok != s.ok {
				t.Errorf("step %d: Allow(%q) = %v, want %v", i, s.key, ok, s.ok)
			}
		}
		synctest.Wait()
		if got := h.get("a"); got != 2 {
			t.Errorf("a: held %d reported at its window's end, want 2", got)
		}
		if got := h.get("b") + h.get(OtherKey); got != 0 {
			t.Errorf("b and %s reported %d before their windows ended", OtherKey, got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got, other := h.get("b"), h.get(OtherKey); got != 1 || other != 1 {
			t.Errorf("after their windows: b held %d, %s %d; want 1 and 1", got, OtherKey, other)
		}
	})
}

// TestKeyedFlood: 1,000 events of each of 100 keys within one window let
// through at most (MaxKeys+1) * Burst, and every other one is reported
// held back.
func TestKeyedFlood(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var h heldLog
		k := &Keyed{Interval: time.Second, Burst: 3, MaxKeys: 10, OnHeld: h.note}
		passed := 0
		for i := range 100_000 {
			if k.Allow(fmt.Sprint(i % 100)) {
				passed++
			}
		}
		if passed != 11*3 {
			t.Errorf("%d let through, want %d", passed, 11*3)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		total := 0
		for _, n := range h.held {
			total += n
		}
		if total != 100_000-passed {
			t.Errorf("%d reported held, want %d", total, 100_000-passed)
		}
	})
}

// TestKeyedFlush: Flush reports the open windows' counts at once, and
// nothing is reported by a timer afterwards.
func TestKeyedFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var h heldLog
		k := &Keyed{Interval: time.Second, Burst: 1, MaxKeys: 10, OnHeld: h.note}
		for range 5 {
			k.Allow("a")
		}
		k.Flush()
		if got := h.get("a"); got != 4 {
			t.Errorf("Flush reported %d, want 4", got)
		}
		k.Allow("a")
		k.Allow("a")
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := h.get("a"); got != 4 {
			t.Errorf("after Flush a timer reported: %d in all, want 4", got)
		}
		k.Flush()
		if got := h.get("a"); got != 5 {
			t.Errorf("second Flush: %d in all, want 5", got)
		}
	})
}
