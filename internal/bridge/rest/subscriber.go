package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/wamp"
)

// Subscriber defaults.
const (
	DefaultRetries    = 5
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
	DefaultQueueSize  = 1000
	// NoRetries as SubscriberOptions.Retries: a failed delivery is
	// dropped at once.
	NoRetries = -1
)

// Subscription is one forwarded topic: events matching Topic (by Match:
// "exact", the default, "prefix" or "wildcard") are sent to URL.
type Subscription struct {
	Topic wamp.URI
	URL   string
	Match string
}

// SubscriberOptions configure a Subscriber. Subscriptions is required; the
// other zero values are the defaults.
type SubscriberOptions struct {
	Subscriptions []Subscription
	// Method of the forwarding requests; "" means POST.
	Method string
	// ExpectedCode is the status a delivery must get; 0 means any 2xx.
	ExpectedCode int
	// Debug logs each response's body (truncated) at debug level.
	Debug bool
	// Retries after a failed delivery (connection error, timeout, 5xx, 408,
	// 429, or any status other than ExpectedCode when set); 0 means
	// DefaultRetries, NoRetries none.
	Retries int
	// MinBackoff and MaxBackoff bound the delay before a retry, doubling
	// from Min; 0 means DefaultMinBackoff and DefaultMaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// QueueSize bounds the events waiting per subscription; 0 means
	// DefaultQueueSize. When full, new events are dropped and counted.
	QueueSize int
	// Timeout bounds one delivery attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient makes the requests; nil means a client of our own on a
	// pooled keep-alive transport. It is copied, not modified: the copy
	// follows only 307 and 308 redirects (which keep method and body).
	HTTPClient *http.Client
	// Logger; nil discards.
	Logger *slog.Logger
}

// SubscriberStats counts deliveries since NewSubscriber. Dropped and
// QueueFull are events lost: Dropped after failing (retries exhausted, a
// status not worth retrying, or Stop giving up), QueueFull never tried.
type SubscriberStats struct {
	Delivered uint64 // events the target accepted
	Retried   uint64 // retry attempts
	Dropped   uint64 // events given up after trying
	QueueFull uint64 // events dropped because their queue was full
	Queued    int    // events waiting in the queues now
	// Requests are the delivery attempts by the status they got.
	Requests meter.RequestStats
}

// Subscriber forwards the events of its subscriptions to HTTP endpoints,
// in order per subscription. Safe for concurrent use.
type Subscriber struct {
	opts  SubscriberOptions
	http  *http.Client
	log   *slog.Logger
	stats stats
	// requests count the deliveries' HTTP requests (each attempt) by
	// status.
	requests meter.Requests
	fwds     []*forwarder
	ctx      context.Context // canceled when Stop gives up waiting
	cancel   context.CancelFunc
	work     sync.WaitGroup // one per forwarder goroutine

	mu      sync.Mutex // guards the fields below
	subs    []*client.Subscription
	started bool
}

// NewSubscriber checks o and returns a Subscriber ready to Start.
func NewSubscriber(o SubscriberOptions) (*Subscriber, error) {
	if err := checkSubscriberOptions(&o); err != nil {
		return nil, err
	}
	s := &Subscriber{opts: o, log: loggerOr(o.Logger)}
	s.http = forwardClient(o.HTTPClient)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	for _, sub := range o.Subscriptions {
		s.fwds = append(s.fwds, newForwarder(s, sub))
	}
	return s, nil
}

// checkSubscriberOptions validates o and fills in its defaults.
func checkSubscriberOptions(o *SubscriberOptions) error {
	if len(o.Subscriptions) == 0 {
		return errors.New("rest: subscriber: no subscriptions")
	}
	for i, sub := range o.Subscriptions {
		m := matchOf(sub.Match)
		if m != wamp.MatchExact && m != wamp.MatchPrefix && m != wamp.MatchWildcard {
			return fmt.Errorf("rest: subscriber: subscription %d: unknown match %q", i, sub.Match)
		}
		if !wamp.ValidURI(sub.Topic, false, m) {
			return fmt.Errorf("rest: subscriber: subscription %d: invalid topic %q", i, sub.Topic)
		}
		if err := checkForwardURL(sub.URL); err != nil {
			return fmt.Errorf("rest: subscriber: subscription %d: %w", i, err)
		}
	}
	if o.Method == "" {
		o.Method = http.MethodPost
	}
	if !validMethod(o.Method) {
		return fmt.Errorf("rest: subscriber: invalid method %q", o.Method)
	}
	setSubscriberDefaults(o)
	return nil
}

func matchOf(m string) string {
	if m == "" {
		return wamp.MatchExact
	}
	return m
}

// checkForwardURL checks a Subscriber target: an absolute http(s) URL.
func checkForwardURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("rest: url %q: %w", s, err)
	}
	if !isHTTP(u) {
		return fmt.Errorf("%w: %q", errNotHTTP, s)
	}
	return nil
}

func setSubscriberDefaults(o *SubscriberOptions) {
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	} else if o.Retries < 0 {
		o.Retries = 0
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	o.MaxBackoff = max(o.MaxBackoff, o.MinBackoff)
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultQueueSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
}

// Start starts the delivery goroutines and subscribes on c (which
// subscribes again after every reconnect). When a subscription fails, the
// ones made are undone and the goroutines stopped.
func (s *Subscriber) Start(ctx context.Context, c *client.Client) error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("rest: subscriber: already started")
	}
	s.started = true
	s.mu.Unlock()
	for _, f := range s.fwds {
		s.work.Add(1)
		go f.run()
	}
	for _, f := range s.fwds {
		sub, err := c.Subscribe(ctx, f.sub.Topic, f.push, subscribeOptions(f.sub))
		if err != nil {
			err = fmt.Errorf("rest: subscriber: subscribe %s: %w", f.sub.Topic, err)
			return errors.Join(err, s.Stop(context.Background()))
		}
		s.mu.Lock()
		s.subs = append(s.subs, sub)
		s.mu.Unlock()
	}
	s.log.Info("rest: subscriber started", "subscriptions", len(s.fwds))
	return nil
}

func subscribeOptions(sub Subscription) wamp.Dict {
	if m := matchOf(sub.Match); m != wamp.MatchExact {
		return wamp.Dict{wamp.OptMatch: m}
	}
	return nil
}

// Stop unsubscribes, then lets each delivery goroutine deliver what is
// queued and end. When ctx ends first the deliveries in flight are canceled,
// what is left is counted as dropped, and Stop returns ctx's error.
func (s *Subscriber) Stop(ctx context.Context) error {
	s.mu.Lock()
	subs := s.subs
	s.subs = nil
	s.mu.Unlock()
	var errs []error
	for _, sub := range subs {
		if err := sub.Unsubscribe(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range s.fwds {
		f.close()
	}
	if err := waitWork(ctx, &s.work, s.cancel); err != nil {
		errs = append(errs, err)
	}
	s.cancel()
	s.http.CloseIdleConnections()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rest: subscriber stop: %w", err)
	}
	return nil
}

// waitWork waits for wg (whose Adds are all done); see waitDone.
func waitWork(ctx context.Context, wg *sync.WaitGroup, cancel context.CancelFunc) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return waitDone(ctx, done, cancel)
}

// Stats returns the delivery counters.
func (s *Subscriber) Stats() SubscriberStats {
	st := s.stats.snapshot()
	for _, f := range s.fwds {
		st.Queued += len(f.queue)
	}
	st.Requests = s.requests.Snapshot()
	return st
}
