package node

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// rlinkOptions configure a router link: a session on the local realm (as
// "trusted") and one on the other router's realm (cryptosign with the node
// key), between which subscriptions, registrations, events and calls are
// forwarded as Crossbar's worker/rlink.py does.
type rlinkOptions struct {
	ID          string
	LocalRealm  wamp.URI
	RemoteRealm wamp.URI
	// AuthID is HELLO's authid on the other router ("" sends none: the
	// router finds the principal by the public key).
	AuthID string
	// ExcludeAuthID: events forwarded to the other router are not sent
	// to its sessions with these authids.
	ExcludeAuthID []string
	Forward       rlinkForward
	LocalDial     client.Dialer // the local router, joining as trusted
	RemoteDial    client.Dialer
	URL           string                             // where RemoteDial goes, for the logs
	Key           func() (ed25519.PrivateKey, error) // the node key, loaded at Start
	Reconnect     client.ReconnectOptions            // backoff of the remote session
	Logger        *slog.Logger
}

// rlinkForward are the four forward_* options. Local: the local router's
// subscriptions and registrations are mirrored on the other router, so
// that its events and calls come here. Remote: the other way round.
type rlinkForward struct {
	LocalEvents, RemoteEvents, LocalInvocations, RemoteInvocations bool
}

// rlink is a running router link. It is a component of the node: Start
// joins the local session and starts connecting to the other router in
// the background (retrying with backoff, and again after every loss);
// Wait returns once the first remote session has its forwarding set up.
//
// Concurrency: the methods are safe for concurrent use. Each remote
// session is served by one goroutine (serve), one after the other
// (serveMu), which sets the forwarding up and tears it down when the
// session ends.
type rlink struct {
	opts rlinkOptions
	log  *slog.Logger

	ctx    context.Context // ended by Stop
	cancel context.CancelFunc
	local  *client.Session
	wg     sync.WaitGroup // serve goroutines and the remote connect

	mu     sync.Mutex
	remote *client.Client // nil until the first remote join

	serveMu sync.Mutex // one remote session served at a time

	// up is true while a remote session is joined and its forwarding set
	// up (Joined, for the node's readiness): false before the first, and
	// from a loss until the next.
	up atomic.Bool

	readyOnce sync.Once
	ready     chan struct{} // closed once forwarding is first set up, or on Stop
	setupErr  error         // why that first setup failed; set before ready closes
}

var _ component = (*rlink)(nil)

func newRLink(opts rlinkOptions) *rlink {
	l := &rlink{opts: opts, log: opts.Logger.With("rlink", opts.ID, "url", opts.URL), ready: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// Start joins the local realm and starts connecting to the other router.
func (l *rlink) Start(ctx context.Context) error {
	key, err := l.opts.Key()
	if err != nil {
		return fmt.Errorf("node: router link %s: %w", l.opts.ID, err)
	}
	p, err := l.opts.LocalDial(ctx)
	if err != nil {
		return fmt.Errorf("node: router link %s: %w", l.opts.ID, err)
	}
	l.local, err = client.Join(ctx, p, client.Config{Realm: l.opts.LocalRealm, AuthID: l.opts.ID, Logger: l.log})
	if err != nil {
		return fmt.Errorf("node: router link %s: join the local realm: %w", l.opts.ID, err)
	}
	l.wg.Go(func() { l.connect(key) })
	return nil
}

// connect connects to the other router, retrying until it succeeds or the
// link stops; the client then reconnects by itself.
func (l *rlink) connect(key ed25519.PrivateKey) {
	ro := l.opts.Reconnect
	ro.RetryFirst = true
	ro.OnJoin = func(s *client.Session) {
		l.log.Info("router link connected", "session", s.ID(), "realm", l.opts.RemoteRealm)
		l.wg.Go(func() { l.serve(s) })
	}
	ro.OnLeave = func(s *client.Session, err error) {
		l.up.Store(false)
		l.log.Warn("router link lost", "session", s.ID(), "err", err)
	}
	cfg := client.Config{Realm: l.opts.RemoteRealm, AuthID: l.opts.AuthID, Logger: l.log,
		Auth: []client.Authenticator{client.Cryptosign(key)}}
	c, err := client.Connect(l.ctx, l.opts.RemoteDial, cfg, ro)
	if err != nil {
		return // stopped before the first connection
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx.Err() != nil {
		c.Close()
		return
	}
	l.remote = c
}

// serve sets up the forwarding over the remote session s, and tears it
// down once s ends (or the link stops).
func (l *rlink) serve(rs *client.Session) {
	l.serveMu.Lock()
	defer l.serveMu.Unlock()
	legs := l.legs(rs)
	err := l.setup(legs)
	switch {
	case err == nil:
		l.log.Info("router link ready", "session", rs.ID())
	case rs.Err() == nil && l.ctx.Err() == nil:
		// Redialing would fail the same way, at once: keep what works.
		l.log.Error("router link: forwarding only partly set up", "session", rs.ID(), "err", err)
	}
	if rs.Err() == nil && l.ctx.Err() == nil {
		l.up.Store(true)
		l.readyOnce.Do(func() { l.setupErr = err; close(l.ready) })
	}
	select {
	case <-rs.Done():
	case <-l.ctx.Done():
	case <-l.local.Done():
	}
	l.up.Store(false)
	for _, g := range legs {
		g.teardown()
	}
}

// legs are the forwarding directions the options ask for over rs.
func (l *rlink) legs(rs *client.Session) []*rlinkLeg {
	f := l.opts.Forward
	var legs []*rlinkLeg
	if f.LocalEvents || f.LocalInvocations {
		legs = append(legs, newLeg(l, l.local, rs, "local", nil, f.LocalEvents, f.LocalInvocations))
	}
	if f.RemoteEvents || f.RemoteInvocations {
		legs = append(legs, newLeg(l, rs, l.local, "remote", l.opts.ExcludeAuthID, f.RemoteEvents, f.RemoteInvocations))
	}
	return legs
}

func (l *rlink) setup(legs []*rlinkLeg) error {
	for _, g := range legs {
		if err := g.setup(l.ctx); err != nil {
			return err
		}
	}
	return nil
}

// Wait waits until the link has set up forwarding over a first remote
// session, and returns why that failed, if it did.
func (l *rlink) Wait(ctx context.Context) error {
	select {
	case <-l.ready:
		if l.setupErr != nil {
			return fmt.Errorf("node: router link %s: %w", l.opts.ID, l.setupErr)
		}
		if l.ctx.Err() != nil {
			return errors.New("node: router link stopped")
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Joined reports whether the link is joined to the other router and
// forwards now (false while it reconnects); for the node's readiness.
func (l *rlink) Joined() bool { return l.up.Load() }

// Stop closes both sessions and waits for the serving goroutines.
func (l *rlink) Stop(ctx context.Context) error {
	l.cancel()
	l.readyOnce.Do(func() { close(l.ready) })
	l.mu.Lock()
	remote := l.remote
	l.mu.Unlock()
	if remote != nil {
		remote.Close()
	}
	if l.local != nil {
		l.local.Close()
	}
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("node: router link %s: %w", l.opts.ID, ctx.Err())
	}
}

// rlinkTimeout bounds each request of the link's own (meta API calls,
// subscribing and registering mirrors).
const rlinkTimeout = 10 * time.Second
