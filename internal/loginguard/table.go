package loginguard

import (
	"container/heap"
	"time"
)

// throttleEntry is the failures of one address or authid.
type throttleEntry struct {
	key     string
	fails   int       // failures counted at last
	last    time.Time // the last failure
	next    time.Time // addresses: when the next attempt may start
	pending int       // addresses: attempts admitted and not yet done
	index   int       // in its table's evictable heap; -1 while pending
}

// idleAt reports whether e has nothing left to hold at now: no failure,
// no attempt scheduled or pending.
func (e *throttleEntry) idleAt(now time.Time) bool {
	return e.pending == 0 && !e.idleFrom().After(now)
}

// idleFrom is when e has no failure left and no attempt scheduled, if
// nothing happens to it until then.
func (e *throttleEntry) idleFrom() time.Time {
	return maxTime(e.last.Add(time.Duration(e.fails)*throttleDecay), e.next)
}

// failsAt is the failures not yet forgotten at now.
func (e *throttleEntry) failsAt(now time.Time) int {
	return max(e.fails-int(now.Sub(e.last)/throttleDecay), 0)
}

// throttleTable is a table of at most throttleEntries entries. Those
// with no attempt pending are evictable, in a heap by idleFrom: when the
// table is full, the first of them goes (one with nothing left to
// remember, or else the one that would be forgotten soonest). An entry
// with attempts pending is never evicted: if every entry has some, a new
// one is refused (the connection caps bound how many attempts can be
// pending at once). The throttle's lock guards it.
type throttleTable struct {
	m         map[string]*throttleEntry
	evictable entryHeap
}

// get returns key's entry, nil (dropping it) if at now it is idle.
func (t *throttleTable) get(key string, now time.Time) *throttleEntry {
	e := t.m[key]
	if e != nil && e.idleAt(now) {
		t.remove(e)
		return nil
	}
	return e
}

// getOrAdd returns key's entry, adding one if there is none; nil if
// there is none and no room for one.
func (t *throttleTable) getOrAdd(key string, now time.Time) *throttleEntry {
	if e := t.get(key, now); e != nil {
		return e
	}
	return t.add(key, now)
}

// fail counts a failure of key at now and returns its entry (nil if it
// had none and there is no room for one).
func (t *throttleTable) fail(key string, now time.Time) *throttleEntry {
	e := t.getOrAdd(key, now)
	if e == nil {
		return nil
	}
	e.fails = min(e.failsAt(now)+1, maxFails)
	e.last = now
	t.changed(e)
	return e
}

// add inserts a new entry for key, dropping the idle entries first and,
// if the table is still full, the first evictable one; nil if none is.
func (t *throttleTable) add(key string, now time.Time) *throttleEntry {
	if t.m == nil {
		t.m = make(map[string]*throttleEntry)
	}
	for len(t.evictable) > 0 && t.evictable[0].idleAt(now) {
		t.remove(t.evictable[0])
	}
	if len(t.m) >= throttleEntries {
		if len(t.evictable) == 0 {
			return nil
		}
		t.remove(t.evictable[0])
	}
	e := &throttleEntry{key: key}
	t.m[key] = e
	heap.Push(&t.evictable, e)
	return e
}

// changed puts e where its new idleFrom belongs.
func (t *throttleTable) changed(e *throttleEntry) {
	if e.index >= 0 {
		heap.Fix(&t.evictable, e.index)
	}
}

// begin counts an attempt of e as pending: e is no longer evictable.
func (t *throttleTable) begin(e *throttleEntry) {
	if e.pending == 0 {
		heap.Remove(&t.evictable, e.index)
	}
	e.pending++
}

// end counts a pending attempt of e as done at now: with none left, e is
// evictable again, or dropped if it is idle.
func (t *throttleTable) end(e *throttleEntry, now time.Time) {
	e.pending--
	switch {
	case e.pending > 0:
	case e.idleAt(now):
		delete(t.m, e.key)
	default:
		heap.Push(&t.evictable, e)
	}
}

// remove drops e, which has no attempt pending.
func (t *throttleTable) remove(e *throttleEntry) {
	heap.Remove(&t.evictable, e.index)
	delete(t.m, e.key)
}

// entryHeap is a container/heap of entries, the earliest idleFrom first;
// each entry's index is its position, -1 once out.
type entryHeap []*throttleEntry

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return h[i].idleFrom().Before(h[j].idleFrom()) }

func (h entryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *entryHeap) Push(x any) {
	e := x.(*throttleEntry)
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}
