package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/bridge/rest"
	"github.com/junction-wamp/junction/wamp"
)

// componentReconnect are the reconnect options of the class components:
// the first connection is retried too (a container's router may not be up
// yet), with backoff, each failed attempt logged at warn. Tests replace it.
var componentReconnect = func() client.ReconnectOptions {
	return client.ReconnectOptions{RetryFirst: true}
}

// restComponent runs a rest.Component on its own reconnecting client. One
// goroutine (run) owns the client: it connects, starts the rest.Component,
// and when Stop cancels it, stops the component and leaves. Start and Stop
// are called by the Node, one at a time, Start first; Wait at any time.
type restComponent struct {
	env  componentEnv
	comp rest.Component

	ready    chan struct{} // closed when run has started comp or failed to
	startErr error         // why it failed; read after ready
	// client is the component's client once comp has started, nil before
	// and after it stopped (Joined).
	client atomic.Pointer[client.Client]

	cancel  context.CancelFunc // ends run; set by Start
	done    chan struct{}      // closed when run returns; set by Start
	stopCtx context.Context    // bounds run's stop; set by Stop before cancel
	stopErr error              // run's stop error; read after done
}

var _ joiner = (*restComponent)(nil)

func newRESTComponent(env componentEnv, comp rest.Component) *restComponent {
	return &restComponent{env: env, comp: comp, ready: make(chan struct{})}
}

// Start starts run. In the background (a container component) it returns
// at once; otherwise it waits until the component has joined and
// registered or subscribed, or failed to, or ctx ends.
func (r *restComponent) Start(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	go r.run(runCtx)
	if r.env.Background {
		return nil
	}
	select {
	case <-r.ready:
		if r.startErr != nil {
			<-r.done
		}
		return r.startErr
	case <-ctx.Done():
		r.stopCtx = ctx // a component that started meanwhile stops at once
		cancel()
		<-r.done
		return fmt.Errorf("node: component start: %w", ctx.Err())
	}
}

// run connects (retrying with backoff until ctx ends), starts the
// component and closes ready, then waits for Stop. The client renews the
// registrations and subscriptions after every reconnect.
func (r *restComponent) run(ctx context.Context) {
	defer close(r.done)
	cfg := client.Config{Realm: wamp.URI(r.env.Config.Realm), Logger: r.clientLogger()}
	c, err := client.Connect(ctx, r.env.Dial, cfg, componentReconnect())
	if err == nil {
		if err = r.comp.Start(ctx, c); err != nil {
			c.Close()
		}
	}
	r.report(ctx, err)
	r.startErr = err
	if err == nil {
		r.client.Store(c)
	}
	close(r.ready)
	if err != nil {
		return
	}
	<-ctx.Done()
	r.client.Store(nil)
	r.stopErr = r.stopJoined(r.stopCtx, c)
}

// Wait waits until the component has started (joined, and registered or
// subscribed), and returns nil; or until it failed to or was stopped
// first, and returns why; or until ctx ends.
func (r *restComponent) Wait(ctx context.Context) error {
	select {
	case <-r.ready:
		return r.startErr
	case <-ctx.Done():
		return fmt.Errorf("node: component not started: %w", ctx.Err())
	}
}

// Joined reports whether the component has started and its session is
// joined now (false while it reconnects).
func (r *restComponent) Joined() bool {
	c := r.client.Load()
	return c != nil && c.Session() != nil
}

// clientLogger is the component's logger with the URL it connects to, so
// that every failed connection attempt names both.
func (r *restComponent) clientLogger() *slog.Logger {
	if r.env.URL == "" {
		return r.env.Logger
	}
	return r.env.Logger.With("url", r.env.URL)
}

// report logs the failure of a start in the background (Start returns it
// otherwise). A stop during the start is not a failure.
func (r *restComponent) report(ctx context.Context, err error) {
	if err != nil && r.env.Background && ctx.Err() == nil {
		r.env.Logger.Error("component failed to start; it stays stopped", "url", r.env.URL, "err", err)
	}
}

// stopJoined stops the component (its work in flight finishes, bounded by
// ctx), then leaves.
func (r *restComponent) stopJoined(ctx context.Context, c *client.Client) error {
	err := r.comp.Stop(ctx)
	// Leave fails with the session's error when the router already went
	// away; only running out of time matters here.
	if lerr := c.Leave(ctx); lerr != nil && ctx.Err() != nil {
		err = errors.Join(err, lerr)
	}
	return err
}

// Stop cancels a connection still in progress, or stops the running
// component and leaves, bounded by ctx.
func (r *restComponent) Stop(ctx context.Context) error {
	r.stopCtx = ctx
	r.cancel()
	select {
	case <-r.done:
		return r.stopErr
	case <-ctx.Done():
		return fmt.Errorf("node: component stop: %w", ctx.Err())
	}
}
