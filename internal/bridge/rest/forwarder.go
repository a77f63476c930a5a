package rest

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/ctxwait"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// forwarder delivers one subscription's events in order: push (on the
// session's event dispatch goroutine) queues without blocking, run (its
// own goroutine) sends them one at a time.
type forwarder struct {
	s       *Subscriber
	sub     Subscription
	log     *slog.Logger
	queue   chan *client.Event
	closing chan struct{} // closed by close: deliver what is queued and end
	once    sync.Once
	full    lograte.Limit // "queue full" warnings
	failed  lograte.Limit // "delivery dropped" warnings
}

func newForwarder(s *Subscriber, sub Subscription) *forwarder {
	return &forwarder{s: s, sub: sub, log: s.log.With("topic", sub.Topic, "url", sub.URL),
		queue: make(chan *client.Event, s.opts.QueueSize), closing: make(chan struct{}),
		full: lograte.Limit{Interval: time.Second}, failed: lograte.Limit{Interval: time.Second}}
}

// push queues ev, or drops and counts it when the queue is full or the
// forwarder is closing. It never blocks.
func (f *forwarder) push(ev *client.Event) {
	select {
	case <-f.closing:
		return
	default:
	}
	select {
	case f.queue <- ev:
	default:
		f.s.stats.queueFull.Add(1)
		if ok, held := f.full.Allow(); ok {
			f.log.Warn("rest: subscriber queue full, dropping events", "limit", cap(f.queue), "dropped_since_last_log", held)
		}
	}
}

func (f *forwarder) close() { f.once.Do(func() { close(f.closing) }) }

// run is the forwarder's goroutine: it delivers until closed, then
// delivers what is left in the queue and returns.
func (f *forwarder) run() {
	defer f.s.work.Done()
	for {
		select {
		case ev := <-f.queue:
			f.deliver(f.s.ctx, ev)
		case <-f.closing:
			f.drain()
			return
		}
	}
}

func (f *forwarder) drain() {
	for {
		select {
		case ev := <-f.queue:
			f.deliver(f.s.ctx, ev)
		default:
			return
		}
	}
}

// deliver sends ev, retrying with backoff, and counts the outcome.
func (f *forwarder) deliver(ctx context.Context, ev *client.Event) {
	if ev.Passthru != nil {
		f.drop(ev, wamp.ErrPassthru) // opaque bytes: no args and kwargs to post
		return
	}
	body, err := eventBody(ev.Args, ev.Kwargs)
	if err != nil {
		f.drop(ev, err)
		return
	}
	o := &f.s.opts
	delay := o.MinBackoff
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			f.drop(ev, ctx.Err())
			return
		}
		retry, err := f.send(ctx, ev, body)
		if err == nil {
			f.s.stats.delivered.Add(1)
			return
		}
		if !retry || attempt >= o.Retries {
			f.drop(ev, err)
			return
		}
		f.s.stats.retried.Add(1)
		f.log.Debug("rest: subscriber delivery failed, retrying", "publication", ev.Publication, "err", err, "in", delay)
		if !ctxwait.Sleep(ctx, delay) {
			f.drop(ev, ctx.Err())
			return
		}
		delay = min(2*delay, o.MaxBackoff)
	}
}

// drop counts ev as dropped and logs it (rate-limited).
func (f *forwarder) drop(ev *client.Event, err error) {
	f.s.stats.dropped.Add(1)
	if ok, held := f.failed.Allow(); ok {
		f.log.Warn("rest: subscriber dropped an event", "publication", ev.Publication, "err", err, "dropped_since_last_log", held)
	}
}
