package client

import (
	"math/rand/v2"
	"time"
)

// Backoff defaults.
const (
	DefaultMinBackoff  = 100 * time.Millisecond
	DefaultMaxBackoff  = 30 * time.Second
	DefaultFactor      = 2.0
	DefaultJoinTimeout = 10 * time.Second
)

// backoff computes reconnect delays: growing by factor from min to max, each
// drawn at random from [d/2, d] so that clients dropped together do not
// come back together. Not safe for concurrent use.
type backoff struct {
	min, max time.Duration
	factor   float64
	next     time.Duration
}

func newBackoff(o *ReconnectOptions) *backoff {
	b := &backoff{min: o.MinBackoff, max: o.MaxBackoff, factor: o.Factor}
	if b.min <= 0 {
		b.min = DefaultMinBackoff
	}
	if b.max < b.min {
		b.max = max(DefaultMaxBackoff, b.min)
	}
	if b.factor < 1 {
		b.factor = DefaultFactor
	}
	b.next = b.min
	return b
}

// delay returns the next delay and grows the one after.
func (b *backoff) delay() time.Duration {
	d := b.next
	b.next = min(time.Duration(float64(d)*b.factor), b.max)
	return d/2 + rand.N(d/2+1)
}

// reset starts again from min, after a successful join.
func (b *backoff) reset() { b.next = b.min }
