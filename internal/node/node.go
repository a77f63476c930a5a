package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/web"
)

// Options configure a Node. The zero value resolves relative paths against
// the current directory and logs nothing.
type Options struct {
	// Dir is the node directory (the config file's folder, Crossbar's
	// ".crossbar"): static directories, TLS files and Unix socket paths
	// are relative to it. "" means the current directory.
	Dir string
	// Logger receives the node's logs; nil discards them.
	Logger *slog.Logger
}

// Listener is a listening transport, with its real address (the port the
// system chose for port 0).
type Listener struct {
	Transport string // its JSON path, "workers[0].transports[1]"
	Type      string // "web", "websocket" or "rawsocket"
	Network   string // "tcp", "tcp4", "tcp6" or "unix"
	Address   string // "127.0.0.1:8080", or the socket file's path
}

// ErrStarted is returned by a second Start.
var ErrStarted = errors.New("node: already started")

// Node is a running configuration. Start and Stop may be called from
// different goroutines; Listeners and the node info page are safe for
// concurrent use at any time. A Node starts at most once.
type Node struct {
	log        *slog.Logger
	routers    []*routerUnit
	relays     []*routerUnit // the proxy workers' (relay set, router nil)
	listeners  []*listenerUnit
	components []*componentUnit  // replaced by a reload under mu too (setComponents)
	runners    []*pyWorker       // the workers' Python runners; replaced by a reload under mu too (setRunners)
	sessions   []*bridgeSession  // of the caller, publisher and webhook services
	proxies    []proxyUnit       // the reverse proxies and WebSocket reverse proxies
	services   []serviceUnit     // the bridge path services and proxies, for Stats
	archives   []*archiveUnit    // the archive path services, opened at start
	pyWebs     []*pyWebUnit      // the wsgi and resource path services' Python processes
	longPolls  []*longPollUnit   // the long-poll path services
	shutdown   *shutdownPolicy   // when a worker's exit stops the node
	guests     []*guestUnit      // the guest workers, in config order
	warnings   []config.Warning  // of the build; see Warnings
	dir        string            // Options.Dir
	certs      []*web.TLSOptions // the listeners' TLS files, read again by Reload
	cluster    *cluster.Node     // controller.cluster's member; nil: one node
	fabric     *cluster.Fabric   // the routers' link to the cluster; nil: one node
	replays    *cluster.Replays  // the cluster's replay table of signed requests; nil: one node

	// reloadMu serializes Reload and Stop: Reload alone changes cfg, the
	// routers' gates and realm names, and the path services' units
	// (sessions, proxies, archives) after Start.
	reloadMu sync.Mutex
	cfg      *config.Config // the config last applied

	mu      sync.Mutex // guards the fields below
	state   state
	started time.Time
	bound   []Listener // in start order
}

type state int

const (
	stateNew state = iota
	stateStarting
	stateRunning
	stateStopped
)

// New translates cfg into routers, listeners and components without
// starting anything. It reports every item that could not be built (a TLS
// file that does not load, a static directory that does not exist, a
// require_ip entry or a component "extra" that does not parse, a component
// class not built in yet), not only the first: the error is then a
// config.Errors, each problem at its JSON path, sorted by path as package
// config sorts its own.
func New(cfg *config.Config, opts Options) (*Node, error) {
	if cfg == nil {
		return nil, errors.New("node: nil config")
	}
	n := &Node{log: opts.Logger, cfg: cfg, dir: opts.Dir}
	if n.log == nil {
		n.log = slog.New(slog.DiscardHandler)
	}
	b := &builder{node: n, dir: opts.Dir, log: n.log}
	b.build(cfg)
	if len(b.errs) > 0 {
		b.errs.Sort()
		return nil, b.errs
	}
	n.warnings = b.warns
	return n, nil
}

// Warnings returns what New built with a warning, each at its JSON path,
// in the order of the config: a static directory that does not exist
// (every request there gets 404 until it does, as with Crossbar). New has
// logged each of them at warn level already. The config's own warnings
// come from config.Load, not from here.
func (n *Node) Warnings() []config.Warning { return n.warnings }

// Start joins the cluster first (controller.cluster: its embedded NATS
// server's route port bound, its name checked), then starts the routers
// and realms, then joins the embedded sessions
// of the HTTP bridge services, then opens the archives and starts the
// Python processes of the wsgi and resource paths (waiting until each
// serves: a module that does not import fails the start), then starts the router components (the
// bridge components, and the Python runner of each router worker that has
// Python components, which starts them one by one), then binds and serves
// the listeners, then starts joining the proxy workers' own sessions (in
// the background), then starts the container components, as Crossbar starts
// a router's components before its transports. Start waits until a router
// component has joined and registered or subscribed, and until a Python
// component is ready (its onJoin has returned), as Crossbar does; a
// bridge component of a container connects in the background (its router
// may not be up yet), retrying with backoff, each failed attempt logged
// at warn, and registers or subscribes once joined, so Start does not
// wait for it. Then it starts the guest workers, in config order, once
// every router listens (a guest's executable that cannot be found fails
// the start). If a step fails, what already started is stopped again and
// the error names the transport or component path (and for a listener the
// address, e.g. "workers[0].transports[1]: listen tcp 127.0.0.1:8080:
// bind: address already in use"). ctx bounds the start, and the stop
// after a failure.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	if n.state != stateNew {
		n.mu.Unlock()
		return ErrStarted
	}
	n.state = stateStarting
	n.started = time.Now()
	n.mu.Unlock()
	err := n.startAll(ctx)
	n.mu.Lock()
	if err == nil && n.state == stateStopped {
		err = errStopDuringStart
	}
	if err == nil {
		n.state = stateRunning
	} else {
		n.state = stateStopped
	}
	n.mu.Unlock()
	if err != nil {
		n.stopAll(ctx)
	}
	return err
}

// errStopDuringStart: Stop was called while Start ran; Start stops what it
// started itself.
var errStopDuringStart = errors.New("node: stopped while starting")

// startAll starts every unit in order; units left unstarted are skipped by
// stopAll.
func (n *Node) startAll(ctx context.Context) error {
	if n.cluster != nil {
		if err := n.cluster.Join(ctx); err != nil {
			return pathError(clusterPath, err)
		}
		if err := n.fabric.Start(ctx); err != nil {
			return pathError(clusterPath, err)
		}
		n.replays.Start()
	}
	for _, r := range n.routers {
		n.log.Info("router started", "worker", r.path, "realms", r.realmNames())
	}
	for _, r := range n.relays {
		n.log.Info("proxy started", "worker", r.path, "realms", r.realmNames())
	}
	for _, s := range n.sessions {
		if s.background {
			continue // after the listeners, below
		}
		if err := s.start(ctx); err != nil {
			return err
		}
	}
	for _, a := range n.archives {
		if err := a.start(ctx); err != nil {
			return err
		}
	}
	for _, u := range n.pyWebs {
		if err := u.start(ctx); err != nil {
			return err
		}
	}
	if err := n.startComponents(ctx, true); err != nil {
		return err
	}
	for _, l := range n.listeners {
		info, err := l.start(n.log)
		if err != nil {
			return err
		}
		n.mu.Lock()
		n.bound = append(n.bound, info)
		n.mu.Unlock()
		attrs := []any{"transport", info.Transport, "type", info.Type,
			"network", info.Network, "address", info.Address,
			"max_connections", l.limits.Max, "max_connections_per_ip", l.limits.MaxPerIP}
		if l.engine != "" {
			attrs = append(attrs, "http_engine", l.engine)
		}
		if l.loops > 0 {
			attrs = append(attrs, "loops", l.loops)
		}
		n.log.Info("listening", attrs...)
		l.logServices(n.log)
	}
	for _, s := range n.sessions {
		if s.background { // a proxy's: its backend may be a router of this node
			s.start(ctx)
		}
	}
	if err := n.startComponents(ctx, false); err != nil {
		return err
	}
	for _, g := range n.guests {
		if err := g.start(); err != nil {
			return err
		}
	}
	return nil
}

// startComponents starts the router components (router true) or the
// container components: the bridge components, then the Python runners.
func (n *Node) startComponents(ctx context.Context, router bool) error {
	for _, c := range n.components {
		if c.router != router {
			continue
		}
		if err := c.start(ctx); err != nil {
			return err
		}
		c.logStart(n.log)
	}
	for _, w := range n.runners {
		if w.router != router {
			continue
		}
		if err := w.start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Stop stops the node: guest workers (SIGTERM to each one's process
// group, SIGKILL after the grace or when ctx ends; no child outlives
// them), components (ending the attempts of those still
// connecting; the Python runners get SIGTERM, then SIGKILL once ctx ends
// or after their grace), then listeners (no new connections, in-flight HTTP requests
// finish), then the embedded sessions of the HTTP bridge services
// (GOODBYE), the reverse proxies' idle upstream connections and the
// connections passing through them after an upgrade, and the WebSockets
// relayed by WebSocket reverse proxies (close 1001), the archives and
// the Python processes of the wsgi and resource paths, then the proxy
// workers' sessions (GOODBYE wamp.close.system_shutdown to the client and
// the backend), then routers (GOODBYE wamp.close.system_shutdown to every session; the
// routers and their sessions close concurrently), then the
// listeners' remaining connections, then the cluster's member (a clean
// leave: the other members see it gone at once). ctx bounds the whole stop: when it
// ends, Stop closes what is left without waiting and returns ctx's error.
// Stop before Start only marks the node stopped (Start then fails); Stop
// during Start makes Start stop what it started and fail; a second Stop
// does nothing.
func (n *Node) Stop(ctx context.Context) error {
	n.reloadMu.Lock() // a reload under way finishes first
	defer n.reloadMu.Unlock()
	n.mu.Lock()
	s := n.state
	n.state = stateStopped
	n.mu.Unlock()
	if s != stateRunning {
		return nil
	}
	return n.stopAll(ctx)
}

// stopAll runs the stop phases in reverse start order.
func (n *Node) stopAll(ctx context.Context) error {
	var errs []error
	if n.fabric != nil {
		n.fabric.Leave()
	}
	for _, g := range slices.Backward(n.guests) {
		g.stop(ctx)
	}
	for _, w := range slices.Backward(n.runners) {
		errs = append(errs, w.stop(ctx))
	}
	for _, c := range slices.Backward(n.components) {
		errs = append(errs, c.stop(ctx))
	}
	for _, l := range slices.Backward(n.listeners) {
		errs = append(errs, l.shutdown(ctx))
	}
	for _, s := range slices.Backward(n.sessions) {
		errs = append(errs, s.stop(ctx))
	}
	for _, p := range n.proxies {
		errs = append(errs, p.shutdown(ctx))
	}
	for _, a := range n.archives {
		errs = append(errs, a.stop())
	}
	for _, u := range n.pyWebs {
		errs = append(errs, u.stop(ctx))
	}
	errs = append(errs, closeUnits(ctx, n.relays)...)
	errs = append(errs, closeUnits(ctx, n.routers)...)
	for _, l := range slices.Backward(n.listeners) {
		errs = append(errs, l.close(ctx))
	}
	if n.cluster != nil {
		n.replays.Close()
		n.fabric.Close()
		errs = append(errs, n.cluster.Close()) // after the routers: no half-done work
	}
	n.log.Info("node stopped")
	return errors.Join(errs...)
}

// closeUnits closes the routers (or proxies) concurrently, each bounded
// by ctx: a router whose clients do not read delays the others by
// nothing. The proxies close before the routers, so that their clients
// hear that the proxy shuts down.
func closeUnits(ctx context.Context, units []*routerUnit) []error {
	errs := make([]error, len(units))
	var wg sync.WaitGroup
	for i, r := range units {
		wg.Go(func() { errs[i] = r.close(ctx) })
	}
	wg.Wait()
	return errs
}

// WaitComponents waits until every component has started (joined, and
// registered or subscribed): after Start, a container component may still
// be connecting in the background. It returns the errors of the components
// that failed to start or were stopped first, each with its path, or ctx's
// error. Safe for concurrent use; call it once Start has returned nil (a
// component that was never started is waited for until ctx ends).
func (n *Node) WaitComponents(ctx context.Context) error {
	var errs []error
	for _, c := range n.snapshotComponents() {
		if err := c.comp.Wait(ctx); err != nil {
			errs = append(errs, pathError(c.path, err))
		}
	}
	return errors.Join(errs...)
}

// Listeners returns the bound listeners with their real addresses, in
// start order.
func (n *Node) Listeners() []Listener {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.bound)
}

// Started returns when Start was called (zero before).
func (n *Node) Started() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.started
}

// pathError prefixes err with a JSON path.
func pathError(path string, err error) error {
	return fmt.Errorf("%s: %w", path, err)
}
