package node

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/config"
)

// lockedStopTimeout bounds the stop of a component whose node lost its
// lock (a node's stop is bounded by its own context).
const lockedStopTimeout = 10 * time.Second

// lockedComponent runs a component on one node of the cluster at a time:
// every node that runs the same config takes part in the cluster lock of
// the component's config, and the node that holds it runs a new instance
// of the component (build) until it loses the lock or stops. Another node
// takes over when the holder's lease expires (killed, cut off) or it
// stops. A MessageForwarder is one: each event is forwarded once, by the
// lock's holder, in order.
type lockedComponent struct {
	env   componentEnv
	node  *cluster.Node
	name  string // the lock's
	build func() (*restComponent, error)

	// cur is the instance running while this node holds the lock, nil
	// otherwise (Joined, Stats).
	cur atomic.Pointer[restComponent]

	cancel context.CancelFunc // ends Hold; set by Start
	done   chan struct{}      // closed when Hold returns; set by Start

	mu      sync.Mutex      // guards stopCtx
	stopCtx context.Context // bounds the instance's stop; set by Stop
}

var _ joiner = (*lockedComponent)(nil)

// newLockedComponent runs the components build makes under the cluster
// lock of env's component config.
func newLockedComponent(env componentEnv, build func() (*restComponent, error)) *lockedComponent {
	return &lockedComponent{env: env, node: env.Cluster, name: lockName(env), build: build}
}

// lockName is "component-" and a digest of the component's realm, class
// and extra: the same on every node that runs the same component, even
// when a container component reaches each node's router at another
// address.
func lockName(env componentEnv) string {
	c := env.Config
	b, _ := json.Marshal([]any{c.Realm, c.Class, c.MessageForwarder, c.RESTCallee})
	h := sha256.Sum256(b)
	return "component-" + hex.EncodeToString(h[:16])
}

// Start takes part in the lock; the component starts when this node holds
// it, maybe later.
func (l *lockedComponent) Start(context.Context) error {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	go func() {
		defer close(l.done)
		if err := l.node.Hold(ctx, l.name, l.held); err != nil && ctx.Err() == nil {
			l.env.Logger.Error("component: cluster lock table unavailable; not started", "err", err)
		}
	}()
	return nil
}

// held runs an instance of the component while this node holds the lock
// (ctx).
func (l *lockedComponent) held(ctx context.Context) {
	c, err := l.build()
	if err == nil {
		err = c.Start(ctx)
	}
	if err != nil {
		if ctx.Err() == nil {
			l.env.Logger.Error("component failed to start on the lock's holder; the lock is given up", "err", err)
		}
		return
	}
	l.env.Logger.Info("component started: this node holds its cluster lock", "lock", l.name)
	l.cur.Store(c)
	<-ctx.Done()
	l.cur.Store(nil)
	stopCtx, cancel := l.instanceStop()
	defer cancel()
	if err := c.Stop(stopCtx); err != nil {
		l.env.Logger.Warn("component stop", "err", err)
	}
}

// instanceStop is the context of an instance's stop: the node's, or
// lockedStopTimeout when the lock was lost.
func (l *lockedComponent) instanceStop() (context.Context, context.CancelFunc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopCtx != nil {
		return l.stopCtx, func() {}
	}
	return context.WithTimeout(context.Background(), lockedStopTimeout)
}

// Stop stops the instance running, if any, and gives the lock up.
func (l *lockedComponent) Stop(ctx context.Context) error {
	l.mu.Lock()
	l.stopCtx = ctx
	l.mu.Unlock()
	l.cancel()
	select {
	case <-l.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait returns nil: the component has started, on this node or another.
func (l *lockedComponent) Wait(context.Context) error { return nil }

// Joined reports whether the component is ready: its instance joined, or
// no instance here (another node holds the lock).
func (l *lockedComponent) Joined() bool {
	c := l.cur.Load()
	return c == nil || c.Joined()
}

// Holding reports whether this node runs the component now.
func (l *lockedComponent) Holding() bool { return l.cur.Load() != nil }

// joinCluster makes the locked components of n, a reload's build, take
// part in the locks through running's member of the cluster: n's own
// never joins. (A change of controller.cluster needs a restart.)
func (n *Node) joinCluster(running *Node) {
	if running.cluster == nil {
		return
	}
	for _, c := range n.components {
		if l, ok := c.comp.(*lockedComponent); ok {
			l.node = running.cluster
		}
	}
}

// workerAt returns the config of the worker at path ("workers[1]") of
// the config n was built from, or nil.
func (n *Node) workerAt(path string) config.Worker {
	for i, w := range n.cfg.Workers {
		if fmt.Sprintf("workers[%d]", i) == path {
			return w
		}
	}
	return nil
}
