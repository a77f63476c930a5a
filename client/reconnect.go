package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/ctxwait"
	"github.com/junction-wamp/junction/wamp"
)

// Dialer opens a new connection to the router, bounded by ctx. NewDialer
// makes one from a URL; any function that returns a wamp.Peer will do.
type Dialer func(ctx context.Context) (wamp.Peer, error)

// ReconnectOptions tune a Client. The zero value is ready: backoff from
// 100 ms to 30 s, doubling, and a first connection that must succeed.
type ReconnectOptions struct {
	MinBackoff time.Duration // first delay before redialing; 0 means 100 ms
	MaxBackoff time.Duration // largest delay; 0 means 30 s
	Factor     float64       // growth of the delay per failed attempt; < 1 means 2
	// JoinTimeout bounds each dial and join; 0 means 10 s.
	JoinTimeout time.Duration
	// RetryFirst makes Connect retry the first connection with backoff
	// until it succeeds or Connect's ctx ends (a Dialer error wrapping
	// ErrDialOptions is returned at once: retrying cannot mend it).
	// Without it Connect returns the first attempt's error, so that a
	// wrong address or credential shows at once.
	RetryFirst bool
	// OnJoin is called after each join (the first included), once the
	// registrations and subscriptions are renewed. OnLeave is called when
	// a session ends (Close and Leave included), with its error, before
	// redialing. Both run on the
	// client's goroutine (the first OnJoin on Connect's): they must not
	// block for long, nor call Close or Leave; OnLeave must not call a
	// method that waits for a session.
	OnJoin  func(s *Session)
	OnLeave func(s *Session, err error)
}

// Client is a session that survives connection losses: it redials with
// backoff, joins again and renews its registrations and subscriptions.
// Requests made while disconnected wait for the next session until their
// ctx ends; a request in flight when the connection drops fails (it is not
// retried, since a call may not be idempotent). Safe for concurrent use.
type Client struct {
	dial Dialer
	cfg  Config
	opts ReconnectOptions
	log  *slog.Logger

	ctx     context.Context // canceled by Close
	cancel  context.CancelFunc
	stopped chan struct{} // closed when run returns
	leaving atomic.Bool   // Leave is ending the session: do not redial

	// opMu serializes changes of registrations and subscriptions with
	// their renewal on a new session. Lock order: opMu, then mu.
	opMu sync.Mutex

	mu      sync.Mutex                      // guards the fields below
	sess    *Session                        // current session; nil while disconnected
	changed chan struct{}                   // closed and replaced when sess changes
	regs    map[*Registration]*Registration // remembered -> in the current session (nil if none)
	subs    map[*Subscription]*Subscription // remembered -> in the current session (nil if none)
}

// Connect dials and joins, then keeps the session alive until Close. ctx
// bounds the first connection only.
func Connect(ctx context.Context, dial Dialer, cfg Config, opts ReconnectOptions) (*Client, error) {
	c := &Client{dial: dial, cfg: cfg, opts: opts, log: cfg.logger().With("realm", cfg.Realm),
		stopped: make(chan struct{}), changed: make(chan struct{}),
		regs: make(map[*Registration]*Registration), subs: make(map[*Subscription]*Subscription)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	s, err := c.connectFirst(ctx)
	if err != nil {
		c.cancel()
		return nil, err
	}
	c.publish(s)
	go c.run(s)
	return c, nil
}

// connectFirst makes the first connection, retrying if opts say so and
// the dial options can work.
func (c *Client) connectFirst(ctx context.Context) (*Session, error) {
	s, err := c.connect(ctx)
	if err == nil || !c.opts.RetryFirst || errors.Is(err, ErrDialOptions) {
		return s, err
	}
	if ctx.Err() == nil {
		c.log.Warn("client: connect failed", "err", err)
		s = c.redial(ctx, newBackoff(&c.opts), true)
	}
	if s == nil {
		return nil, fmt.Errorf("client: connect: %w", ctx.Err())
	}
	return s, nil
}

// connect dials and joins once, bounded by JoinTimeout.
func (c *Client) connect(ctx context.Context) (*Session, error) {
	ctx, cancel := context.WithTimeout(ctx, c.joinTimeout())
	defer cancel()
	p, err := c.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("client: dial: %w", err)
	}
	return Join(ctx, p, c.cfg)
}

func (c *Client) joinTimeout() time.Duration {
	if c.opts.JoinTimeout <= 0 {
		return DefaultJoinTimeout
	}
	return c.opts.JoinTimeout
}

// run is the client's goroutine: it waits for the session to end and
// redials, until Close.
func (c *Client) run(s *Session) {
	defer close(c.stopped)
	b := newBackoff(&c.opts)
	for {
		select {
		case <-s.Done():
		case <-c.ctx.Done():
			s.Close()
		}
		c.unpublish()
		ours := c.leaving.Load() || c.ctx.Err() != nil
		c.logEnded(s, ours)
		if c.opts.OnLeave != nil {
			c.opts.OnLeave(s, s.Err())
		}
		if ours {
			return
		}
		if s = c.redial(c.ctx, b, true); s == nil {
			return
		}
		c.publish(s)
	}
}

// logEnded logs the end of s: at info when it was lost (the client
// reconnects), at debug when the client ended it (Leave, Close: a clean
// stop is no news).
func (c *Client) logEnded(s *Session, ours bool) {
	level := slog.LevelInfo
	if ours {
		level = slog.LevelDebug
	}
	c.log.Log(context.Background(), level, "client: session ended", "session", s.ID(), "err", s.Err())
}

// redial connects with backoff until it succeeds or ctx ends (then it
// returns nil). wait says to sleep before the first attempt.
func (c *Client) redial(ctx context.Context, b *backoff, wait bool) *Session {
	for {
		if wait && !ctxwait.Sleep(ctx, b.delay()) {
			return nil
		}
		wait = true
		s, err := c.connect(ctx)
		if err == nil {
			b.reset()
			return s
		}
		if ctx.Err() != nil {
			return nil
		}
		c.log.Warn("client: connect failed", "err", err)
	}
}

// publish renews the registrations and subscriptions on s, then makes s
// the current session.
func (c *Client) publish(s *Session) {
	c.opMu.Lock()
	c.renew(s)
	c.mu.Lock()
	c.sess = s
	c.signal()
	c.mu.Unlock()
	c.opMu.Unlock()
	c.log.Info("client: joined", "session", s.ID())
	if c.opts.OnJoin != nil {
		c.opts.OnJoin(s)
	}
}

// unpublish marks the client disconnected.
func (c *Client) unpublish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sess = nil
	c.signal()
	for r := range c.regs {
		c.regs[r] = nil
	}
	for sub := range c.subs {
		c.subs[sub] = nil
	}
}

// signal wakes the requests waiting for a session. c.mu must be held.
func (c *Client) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Session returns the current session, or nil while disconnected.
func (c *Client) Session() *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// session waits for a live session, until ctx ends or the client closes.
func (c *Client) session(ctx context.Context) (*Session, error) {
	for {
		c.mu.Lock()
		s, changed := c.sess, c.changed
		c.mu.Unlock()
		if s != nil && s.Err() == nil {
			return s, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.ctx.Done():
			return nil, ErrClosed
		}
	}
}

// Done is closed once the client has stopped: after Close or Leave.
func (c *Client) Done() <-chan struct{} { return c.stopped }

// Close stops reconnecting and closes the current session (without
// GOODBYE); requests waiting for a session return ErrClosed.
func (c *Client) Close() error {
	c.cancel()
	<-c.stopped
	return nil
}

// Leave ends the current session with GOODBYE (bounded by ctx), then
// closes the client.
func (c *Client) Leave(ctx context.Context) error {
	c.leaving.Store(true)
	var err error
	if s := c.Session(); s != nil {
		err = s.Leave(ctx)
	}
	c.Close()
	return err
}
