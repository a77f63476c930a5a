// Package keepalive pings a connection that has been silent for an interval
// and expires it when it stays silent after the ping. It runs on a timer,
// so an idle connection has no goroutine for it.
package keepalive

import (
	"sync"
	"sync/atomic"
	"time"
)

// Timer watches one connection. A nil *Timer does nothing, so a transport
// without keepalive calls its methods unconditionally.
type Timer struct {
	interval, timeout time.Duration
	ping, expire      func()
	active            atomic.Bool // traffic since the last tick

	mu      sync.Mutex // guards the fields below
	timer   *time.Timer
	waiting bool // a ping is outstanding
	stopped bool
}

// New returns a stopped Timer: after Start, a connection silent for interval
// gets ping(), and one still silent timeout later (default interval) gets
// expire(). ping and expire run on the timer's goroutine, without locks held.
func New(interval, timeout time.Duration, ping, expire func()) *Timer {
	if timeout <= 0 {
		timeout = interval
	}
	return &Timer{interval: interval, timeout: timeout, ping: ping, expire: expire}
}

// Start arms the timer; call it once, after the Timer is reachable from
// everything that calls Seen and Stop.
func (k *Timer) Start() {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.stopped {
		k.timer = time.AfterFunc(k.interval, k.tick)
	}
}

// Seen records traffic from the peer (any frame, a pong included); the
// connection's reader calls it for every frame.
func (k *Timer) Seen() {
	if k != nil && !k.active.Load() {
		k.active.Store(true)
	}
}

// Stop disarms the timer. Safe to call more than once and concurrently.
func (k *Timer) Stop() {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopped = true
	if k.timer != nil {
		k.timer.Stop()
	}
}

// tick runs on the timer's goroutine: traffic since the last tick re-arms
// the interval, silence sends a ping, silence after a ping expires.
func (k *Timer) tick() {
	k.mu.Lock()
	if k.stopped {
		k.mu.Unlock()
		return
	}
	ping, expire := false, false
	switch {
	case k.active.Swap(false):
		k.waiting = false
		k.timer.Reset(k.interval)
	case k.waiting:
		expire, k.stopped = true, true
	default:
		k.waiting, ping = true, true
		k.timer.Reset(k.timeout)
	}
	k.mu.Unlock()
	if ping {
		k.ping()
	}
	if expire {
		k.expire()
	}
}
