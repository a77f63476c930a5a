package router

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// slowLogEvery is the shortest interval between two "slow consumer" lines.
const slowLogEvery = 10 * time.Second

// slowLog counts the sessions closed as slow consumers and logs them at most
// once per slowLogEvery, with the count since the last line, as NATS does.
// Safe for concurrent use; it takes no router lock.
type slowLog struct {
	log     *slog.Logger
	total   atomic.Uint64
	mu      sync.Mutex // guards the fields below
	last    time.Time
	pending uint64
}

// note counts one slow consumer and logs if the last line is old enough.
func (l *slowLog) note(realm string, session uint64) {
	l.total.Add(1)
	l.mu.Lock()
	l.pending++
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < slowLogEvery {
		l.mu.Unlock()
		return
	}
	n := l.pending
	l.pending = 0
	l.last = now
	l.mu.Unlock()
	l.log.Warn("slow consumer", "realm", realm, "session", session, "count", n)
}
