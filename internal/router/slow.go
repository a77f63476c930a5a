package router

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
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

// note counts one slow consumer, closed with err (Send's), and logs it at
// info if the last line is old enough: its realm, session and what its
// queue held (when the peer says), and the count since the last line.
func (l *slowLog) note(realm string, session uint64, err error) {
	l.total.Add(1)
	ok, suppressed := l.rate.Allow()
	if !ok || !l.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	attrs := []slog.Attr{slog.String("realm", realm), slog.Uint64("session", session)}
	if full, ok := errors.AsType[*wamp.SlowConsumerError](err); ok {
		attrs = append(attrs, slog.Int("queued_messages", full.QueuedMessages), slog.Int("queued_bytes", full.QueuedBytes))
	}
	attrs = append(attrs, slog.Int("count", suppressed+1))
	l.log.LogAttrs(context.Background(), slog.LevelInfo, "slow consumer disconnected", attrs...)
}
