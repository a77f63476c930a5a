package router

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
)

// slowLogEvery is the shortest interval between two "slow consumer" lines.
const slowLogEvery = 10 * time.Second

// slowLog counts the sessions closed as slow consumers and logs them at most
// once per slowLogEvery, with the count since the last line, as NATS does.
// Safe for concurrent use; it takes no router lock.
type slowLog struct {
	log   *slog.Logger
	total atomic.Uint64
	rate  lograte.Limit // Interval slowLogEvery
}

func newSlowLog(log *slog.Logger) slowLog {
	return slowLog{log: log, rate: lograte.Limit{Interval: slowLogEvery}}
}

// note counts one slow consumer and logs if the last line is old enough.
func (l *slowLog) note(realm string, session uint64) {
	l.total.Add(1)
	ok, suppressed := l.rate.Allow()
	if !ok {
		return
	}
	l.log.Warn("slow consumer", "realm", realm, "session", session, "count", suppressed+1)
}
