package rest

import (
	"sync"
	"sync/atomic"
	"time"
)

// stats are a Subscriber's counters; safe for concurrent use.
type stats struct {
	delivered, retried, dropped, queueFull atomic.Uint64
}

func (st *stats) snapshot() SubscriberStats {
	return SubscriberStats{Delivered: st.delivered.Load(), Retried: st.retried.Load(),
		Dropped: st.dropped.Load(), QueueFull: st.queueFull.Load()}
}

// logLimit lets a warning through at most once per interval and counts
// the ones it held back. Safe for concurrent use.
type logLimit struct {
	interval time.Duration

	mu         sync.Mutex // guards the fields below
	last       time.Time
	suppressed int
}

// allow reports whether to log now and how many were held back since the
// last one logged.
func (l *logLimit) allow() (bool, int) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < l.interval {
		l.suppressed++
		return false, 0
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	return true, n
}
