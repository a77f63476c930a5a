package router

import "github.com/junction-wamp/junction/wamp"

// idTable is one of a session's tables by ID (its subscriptions,
// registrations, calls made and served). It is made when it first holds
// something, and made again, smaller, once it has fallen to a quarter of
// its peak: a Go map never gives back the room it grew to, so a session
// that held 10,000 subscriptions and kept one would otherwise hold some
// 330 KB for that one, and the limits, which count what it holds now,
// would not bound what many such sessions take. Rebuilding at a quarter
// of the peak costs a copy of what is left, paid for by the removals
// since the peak. Guarded by the lock of what it holds (see session).
type idTable[V any] struct {
	m    map[wamp.ID]V // nil until the first put; read it directly
	peak int           // len(m) at its largest since m was made
}

// shrinkFrom is the smallest peak worth rebuilding a table for.
const shrinkFrom = 64

func (t *idTable[V]) put(id wamp.ID, v V) {
	if t.m == nil {
		t.m = make(map[wamp.ID]V)
	}
	t.m[id] = v
	t.peak = max(t.peak, len(t.m))
}

func (t *idTable[V]) remove(id wamp.ID) {
	delete(t.m, id)
	if t.peak < shrinkFrom || len(t.m) > t.peak/4 {
		return
	}
	var m map[wamp.ID]V
	if len(t.m) > 0 {
		m = make(map[wamp.ID]V, len(t.m))
		for k, v := range t.m {
			m[k] = v
		}
	}
	t.m, t.peak = m, len(m)
}

// clear drops everything, the table's room with it.
func (t *idTable[V]) clear() { t.m, t.peak = nil, 0 }

// take empties the table and returns what it held, for a session that
// leaves: removing its entries one by one would make the table again,
// smaller, as it shrinks, only for it to be dropped.
func (t *idTable[V]) take() map[wamp.ID]V {
	m := t.m
	t.clear()
	return m
}
