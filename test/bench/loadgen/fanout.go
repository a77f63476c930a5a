package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// fanoutTopic is the prefix of what the subscribers subscribe to and the
// publisher publishes to; each run adds a suffix of its own (see unique).
const fanoutTopic = "com.bench.loadgen.tick"

type fanoutOptions struct {
	subscribers int
	duration    time.Duration
	count       int
	window      int
	stall       time.Duration
}

func (o *fanoutOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.subscribers, "subscribers", 100, "subscriber sessions")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "how long to publish (unless -count)")
	fs.IntVar(&o.count, "count", 0, "publish this many events instead of for a duration")
	fs.IntVar(&o.window, "window", 200, "publications sent before waiting for all their events to arrive")
	fs.DurationVar(&o.stall, "stall", 5*time.Second, "give up waiting for events after this long without one")
}

// fanoutResult is one fanout run. Drops counts the events that did not
// reach a subscriber: for each, the publications it missed.
type fanoutResult struct {
	Mode         string  `json:"mode"`
	Transport    string  `json:"transport"`
	Serializer   string  `json:"serializer"`
	Subscribers  int     `json:"subscribers"`
	Publications int64   `json:"publications"`
	Delivered    int64   `json:"delivered"`
	Drops        int64   `json:"drops"`
	Seconds      float64 `json:"seconds"`
	EventsPerS   float64 `json:"events_per_s"`
	PublishPerS  float64 `json:"publications_per_s"`
}

func (r *fanoutResult) clean() error {
	if r.Drops > 0 {
		return fmt.Errorf("fanout: %d of %d events not delivered", r.Drops, r.Publications*int64(r.Subscribers))
	}
	return nil
}

// fanout counts the events each subscriber received, and signals when
// the total reaches a target.
type fanout struct {
	topic   wamp.URI
	got     []atomic.Int64 // by subscriber
	total   atomic.Int64
	target  atomic.Int64
	reached chan struct{}
}

func (f *fanout) handler(i int) client.EventHandler {
	return func(*client.Event) {
		f.got[i].Add(1)
		if f.total.Add(1) == f.target.Load() {
			f.reached <- struct{}{}
		}
	}
}

// runFanout joins o.subscribers sessions subscribed to one topic and a
// publisher, and publishes in windows of o.window events, each sent once
// every subscriber has all the events before it, so that no queue
// overflows: a drop is the router's.
func runFanout(t target, o fanoutOptions) (outcome, error) {
	if o.subscribers < 1 || o.window < 1 {
		return outcome{}, errors.New("fanout: -subscribers and -window must be at least 1")
	}
	sessions, err := t.joinMany(o.subscribers+1, 64)
	if err != nil {
		return outcome{}, err
	}
	release := func() { closeAll(sessions) }
	f := &fanout{topic: unique(fanoutTopic), got: make([]atomic.Int64, o.subscribers), reached: make(chan struct{}, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
	defer cancel()
	for i, s := range sessions[1:] {
		if _, err := s.Subscribe(ctx, f.topic, f.handler(i), nil); err != nil {
			release()
			return outcome{}, err
		}
	}
	pub := sessions[0]
	// One window to warm up, not counted.
	if err := f.publish(pub, o.window, o.subscribers, o.stall); err != nil {
		release()
		return outcome{}, fmt.Errorf("fanout: warming up: %w", err)
	}
	base := f.counts()
	start := time.Now()
	var published int64
	var failed error
	for failed == nil && (o.count > 0 && published < int64(o.count) || o.count <= 0 && time.Since(start) < o.duration) {
		n := o.window
		if o.count > 0 {
			n = int(min(int64(n), int64(o.count)-published))
		}
		failed = f.publish(pub, n, o.subscribers, o.stall)
		published += int64(n)
	}
	elapsed := time.Since(start)
	if failed != nil && !errors.Is(failed, errStalled) {
		release()
		return outcome{}, failed
	}
	r := &fanoutResult{
		Mode: "fanout", Transport: t.transport, Serializer: t.serializer, Subscribers: o.subscribers,
		Publications: published, Seconds: elapsed.Seconds(), PublishPerS: float64(published) / elapsed.Seconds(),
	}
	r.Delivered, r.Drops = tally(base, f.counts(), published)
	r.EventsPerS = float64(r.Delivered) / elapsed.Seconds()
	return outcome{result: r, release: release}, nil
}

// errStalled: the events of a window stopped arriving.
var errStalled = errors.New("fanout: events stopped arriving")

// publish sends n events and waits until every one of the subscribers
// has them, or until none arrived for stall (errStalled).
func (f *fanout) publish(pub *client.Session, n, subscribers int, stall time.Duration) error {
	f.target.Store(f.total.Load() + int64(n*subscribers))
	args := wamp.List{int64(1), "tick", 2.5}
	for range n {
		if _, err := pub.Publish(context.Background(), f.topic, args, nil, nil); err != nil {
			return err
		}
	}
	tick := time.NewTicker(stall)
	defer tick.Stop()
	last := f.total.Load()
	for {
		select {
		case <-f.reached:
			return nil
		case <-tick.C:
			now := f.total.Load()
			if now == last {
				return errStalled
			}
			last = now
		}
	}
}

// counts returns each subscriber's events so far.
func (f *fanout) counts() []int64 {
	c := make([]int64, len(f.got))
	for i := range f.got {
		c[i] = f.got[i].Load()
	}
	return c
}

// tally compares each subscriber's events now with its events before the
// publications: delivered is the events received since, drops the
// publications each subscriber missed, summed.
func tally(before, now []int64, published int64) (delivered, drops int64) {
	for i := range now {
		got := now[i] - before[i]
		delivered += got
		drops += max(published-got, 0)
	}
	return delivered, drops
}
