package router

import (
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// TestIDTableShrinks: a table that held many entries and kept few gives
// the room back (a Go map alone never does), and keeps what is left.
func TestIDTableShrinks(t *testing.T) {
	const peak = 10_000
	var tb idTable[*int]
	base := int64(liveHeap())
	for i := range peak {
		tb.put(wamp.ID(i+1), new(int))
	}
	held := int64(liveHeap()) - base
	for i := range peak - 1 {
		tb.remove(wamp.ID(i + 1))
	}
	left := int64(liveHeap()) - base
	if len(tb.m) != 1 || tb.m[peak] == nil {
		t.Fatalf("table holds %d entries, want only %d", len(tb.m), peak)
	}
	if tb.peak > shrinkFrom {
		t.Errorf("peak %d after shrinking to 1", tb.peak)
	}
	t.Logf("held %d bytes at the peak, %d with one entry left", held, left)
	if left > held/20 {
		t.Errorf("a table that held %d entries (%d bytes) and kept one still holds %d bytes", peak, held, left)
	}
	tb.remove(peak)
	tb.put(1, new(int))
	tb.clear()
	if tb.m != nil || tb.peak != 0 {
		t.Errorf("clear left %d entries, peak %d", len(tb.m), tb.peak)
	}
}

// TestIDTableSmallKept: below shrinkFrom entries the table is never
// rebuilt (removals stay cheap).
func TestIDTableSmallKept(t *testing.T) {
	var tb idTable[int]
	for i := range shrinkFrom - 1 {
		tb.put(wamp.ID(i+1), i)
	}
	m := tb.m
	for i := range shrinkFrom - 2 {
		tb.remove(wamp.ID(i + 1))
	}
	m[0] = -1 // the same map: the write shows in tb.m
	if tb.m[0] != -1 {
		t.Error("a small table was rebuilt")
	}
}

// TestIDTableTake: take hands over what the table holds and leaves it
// empty, so that removing those entries afterwards (a leaving session's
// drops) rebuilds nothing.
func TestIDTableTake(t *testing.T) {
	var tb idTable[int]
	for i := range 4 * shrinkFrom {
		tb.put(wamp.ID(i+1), i)
	}
	m := tb.take()
	if len(m) != 4*shrinkFrom || tb.m != nil || tb.peak != 0 {
		t.Fatalf("take returned %d entries and left %d, peak %d", len(m), len(tb.m), tb.peak)
	}
	for id := range m {
		tb.remove(id)
	}
	if tb.m != nil || tb.peak != 0 {
		t.Errorf("removals after take made a table of %d entries, peak %d", len(tb.m), tb.peak)
	}
}
