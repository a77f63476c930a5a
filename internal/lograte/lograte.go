// Package lograte lets a repeated warning through at most once per
// interval, counting the ones held back, so that a failure that repeats on
// every request (a backend down, a full queue) cannot flood the log.
package lograte

import (
	"sync"
	"time"
)

// Limit lets one event through per Interval. Set Interval before first
// use; safe for concurrent use afterwards.
type Limit struct {
	Interval time.Duration

	mu         sync.Mutex // guards the fields below
	last       time.Time
	suppressed int
}

// Allow reports whether to log now and, if so, how many events were held
// back since the last one let through.
func (l *Limit) Allow() (bool, int) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < l.Interval {
		l.suppressed++
		return false, 0
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	return true, n
}
