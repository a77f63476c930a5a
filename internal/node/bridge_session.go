package node

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/wamp"
)

// bridgeReconnect are the reconnect options of the embedded sessions of
// the bridge services: the first join is retried (the router is in the
// same process, so it succeeds at once), and a session the router closed
// (wamp.session.kill, say) is joined again with backoff. Tests replace it.
var bridgeReconnect = func() client.ReconnectOptions {
	return client.ReconnectOptions{RetryFirst: true}
}

// errNoSession is what a bridge session answers before Start and after
// Stop; the bridge services answer 503 without asking (see
// bridge.Session).
var errNoSession = errors.New("node: bridge session not connected")

// bridgeSession is the embedded WAMP session of one caller, publisher or
// webhook: built with the node, connected by start (the services answer
// 503 until then) and left by stop. Safe for concurrent use.
type bridgeSession struct {
	path string // the path service's JSON path
	dial client.Dialer
	cfg  client.Config
	// background: start does not wait for the first join (a proxy
	// worker's sessions, whose backend router may listen only later).
	background bool
	c          atomic.Pointer[client.Client] // nil before start and after stop
	cancel     context.CancelFunc            // ends a background first join
	wg         sync.WaitGroup                // the background first join
	joined     chan struct{}                 // closed at a background session's first join (tests wait on it)
}

var _ bridge.Session = (*bridgeSession)(nil)

// Call calls through the current client.
func (s *bridgeSession) Call(ctx context.Context, procedure wamp.URI, args wamp.List, kwargs wamp.Object,
	opts ...client.CallOption) (*client.Result, error) {
	c := s.c.Load()
	if c == nil {
		return nil, errNoSession
	}
	return c.Call(ctx, procedure, args, kwargs, opts...)
}

// Publish publishes through the current client.
func (s *bridgeSession) Publish(ctx context.Context, topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) (wamp.ID, error) {
	c := s.c.Load()
	if c == nil {
		return 0, errNoSession
	}
	return c.Publish(ctx, topic, args, kwargs, opts)
}

// Session returns the current session, nil while disconnected.
func (s *bridgeSession) Session() *client.Session {
	c := s.c.Load()
	if c == nil {
		return nil
	}
	return c.Session()
}

// start joins; ctx bounds the first join. A background session starts
// joining and returns; the services answer 503 until it has joined.
func (s *bridgeSession) start(ctx context.Context) error {
	if s.background {
		ctx, s.cancel = context.WithCancel(context.Background())
		s.joined = make(chan struct{})
		s.wg.Go(func() {
			if c, err := client.Connect(ctx, s.dial, s.cfg, bridgeReconnect()); err == nil {
				s.c.Store(c)
				close(s.joined)
			}
		})
		return nil
	}
	c, err := client.Connect(ctx, s.dial, s.cfg, bridgeReconnect())
	if err != nil {
		return pathError(s.path, err)
	}
	s.c.Store(c)
	return nil
}

// stop leaves with GOODBYE, bounded by ctx.
func (s *bridgeSession) stop(ctx context.Context) error {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
	c := s.c.Swap(nil)
	if c == nil {
		return nil
	}
	if err := c.Leave(ctx); err != nil && ctx.Err() != nil {
		return pathError(s.path, err)
	}
	return nil
}
