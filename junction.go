package junction

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/node"
	"github.com/junction-wamp/junction/wamp"
)

// DefaultStopTimeout bounds the graceful stop of Run, and of a node that
// stops by itself, when Options.StopTimeout is 0: the bound of "junction
// start" after SIGTERM.
const DefaultStopTimeout = 10 * time.Second

// ErrNotRunning is returned by Node.Join, JoinAs, Connect and Reload
// after the node has stopped (Connect: once it began to stop).
var ErrNotRunning = errors.New("junction: the node is not running")

// Options configure a node. The zero value logs nothing, resolves
// relative paths as the configuration says (see Dir) and stops within
// DefaultStopTimeout.
type Options struct {
	// Logger receives the node's logs (the junction command's lines);
	// nil discards them.
	Logger *slog.Logger
	// Dir is the node directory, against which the configuration's
	// relative paths are resolved (static directories, TLS files, Unix
	// socket paths, the node key). "" means the folder of the file
	// LoadConfig read, or the current directory for another Config.
	Dir string
	// StopTimeout bounds the graceful stop of Run when its ctx ends, and
	// of a node that stops by itself; 0 means DefaultStopTimeout.
	StopTimeout time.Duration
}

func (o Options) stopTimeout() time.Duration {
	if o.StopTimeout <= 0 {
		return DefaultStopTimeout
	}
	return o.StopTimeout
}

// Node is a running node: its routers, listeners, HTTP bridge services
// and components, as "junction start" runs them. Its methods are safe
// for concurrent use.
type Node struct {
	n           *node.Node
	stopTimeout time.Duration
	once        sync.Once
	done        chan struct{} // closed once the node has stopped
	err         error         // why; set before done is closed
	stopOnce    sync.Once
	stopping    chan struct{} // closed when the node begins to stop: the Clients of Connect close
}

// Listener is a listening transport of a node, with its real address (the
// port the system chose for port 0).
type Listener struct {
	Transport string // the transport's JSON path, "workers[0].transports[1]"
	Type      string // "web", "websocket", "rawsocket", "universal", "mqtt", ...
	Network   string // "tcp", "tcp4", "tcp6" or "unix"
	Address   string // "127.0.0.1:8080", or the socket file's path
}

// Start builds a node from cfg and starts it, as "junction start" does:
// routers and realms, then the router components, then the listeners,
// then the container components and guest workers. ctx bounds the start
// only; the node runs until Stop, or until it stops by itself (see
// Done). If a step fails, what had started is stopped again and the
// error names the transport or component at fault; a configuration the
// node cannot build (a TLS file that does not load, say) gives a
// *ConfigError.
func Start(ctx context.Context, cfg *Config, opts Options) (*Node, error) {
	if cfg == nil || cfg.cfg == nil && cfg.err == nil {
		return nil, errors.New("junction: Start with no configuration")
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	n, err := node.New(cfg.cfg, node.Options{Dir: cfg.dir(opts), Logger: opts.Logger})
	if err != nil {
		return nil, configError(cfg.file, err)
	}
	if err := n.Start(ctx); err != nil {
		return nil, err
	}
	nd := &Node{n: n, stopTimeout: opts.stopTimeout(), done: make(chan struct{}), stopping: make(chan struct{})}
	go nd.watch(n.ShutdownRequested(), n.ShutdownErr)
	return nd, nil
}

// Run starts a node from cfg (see Start), waits until ctx ends, then
// stops it gracefully within Options.StopTimeout, as "junction start"
// does on SIGTERM. It returns nil after a clean stop, the error of Start
// or Stop otherwise; and if the node stops by itself first (see Done),
// Err's error.
func Run(ctx context.Context, cfg *Config, opts Options) error {
	n, err := Start(ctx, cfg, opts)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), n.stopTimeout)
		defer cancel()
		return n.Stop(sctx)
	case <-n.done:
		return n.Err()
	}
}

// Stop stops the node gracefully, in the reverse order of its start:
// guest workers and components, then listeners (in-flight HTTP requests
// finish), then the bridge services' sessions, then every WAMP session
// with GOODBYE wamp.close.system_shutdown (the in-process sessions of
// Join included). When ctx ends first, what is left is closed without
// waiting and Stop returns ctx's error. A second Stop waits for the first
// and returns nil.
func (n *Node) Stop(ctx context.Context) error {
	n.beginStop()
	err := n.n.Stop(ctx)
	n.finish(nil)
	return err
}

// Done is closed once the node has stopped: after Stop, or when it has
// stopped by itself, as "junction start" does when a worker's Python
// runner exits or its container shuts down and one of the controller's
// "shutdown" triggers applies (Crossbar's default:
// shutdown_on_worker_exit). A guest worker's exit never stops the node.
func (n *Node) Done() <-chan struct{} { return n.done }

// Err, once Done is closed, says why the node stopped: nil after Stop or
// a worker's clean exit; the worker's error when its failure stopped the
// node, joined with the stop's own error if any.
func (n *Node) Err() error {
	<-n.done
	return n.err
}

// watch stops the node when it decides to stop by itself (requested is
// closed, why says why), until it has stopped.
func (n *Node) watch(requested <-chan struct{}, why func() error) {
	select {
	case <-requested:
		n.beginStop()
		ctx, cancel := context.WithTimeout(context.Background(), n.stopTimeout)
		err := n.n.Stop(ctx)
		cancel()
		n.finish(errors.Join(why(), err))
	case <-n.done:
	}
}

// beginStop closes stopping, the first time.
func (n *Node) beginStop() { n.stopOnce.Do(func() { close(n.stopping) }) }

// finish records why the node stopped and closes done, the first time.
func (n *Node) finish(err error) {
	n.once.Do(func() {
		n.err = err
		close(n.done)
	})
}

// ReloadReport is what Node.Reload did, each change at the JSON path of
// what changed, in configuration order.
type ReloadReport struct {
	// Applied are the changes made live.
	Applied []Change
	// Restart are the changes that take effect only after a restart: left
	// as they run.
	Restart []Change
	// Failed are what could not be applied: a TLS certificate that no
	// longer loads (the old one stays), a component or guest worker that
	// did not start again (it is stopped).
	Failed []Change
}

// Change is one difference between the running configuration and the
// new one.
type Change struct {
	Path string // "workers[0].realms[1]"
	What string // "realm \"realm2\" added"
}

// Reload applies cfg to the running node without a restart, as SIGHUP
// does for "junction start": realms and roles, web paths (their services
// built anew and swapped in at once), components and guest workers are
// changed live, the sessions on what did not change are not touched, and
// the TLS certificates, client CAs and key files are read again;
// docs/operations.md lists what needs a restart instead (a transport's
// endpoint, say), which Reload reports and leaves as it runs. cfg's
// relative paths resolve against the node's directory, as Start's did. A
// cfg with problems, or one the node cannot build (a TLS file that does
// not load), gives its *ConfigError and changes nothing. ctx bounds the
// start and stop of the services Reload replaces. Reloads are
// serialized, and Stop waits for the one under way; once the node has
// stopped, Reload returns ErrNotRunning.
func (n *Node) Reload(ctx context.Context, cfg *Config) (ReloadReport, error) {
	if cfg == nil || cfg.cfg == nil && cfg.err == nil {
		return ReloadReport{}, errors.New("junction: Reload with no configuration")
	}
	if cfg.err != nil {
		return ReloadReport{}, cfg.err
	}
	rep, err := n.n.Reload(ctx, cfg.cfg)
	if err != nil {
		if errors.Is(err, node.ErrNotRunning) {
			return ReloadReport{}, ErrNotRunning
		}
		return ReloadReport{}, configError(cfg.file, err)
	}
	return ReloadReport{Applied: changes(rep.Applied), Restart: changes(rep.Restart), Failed: changes(rep.Failed)}, nil
}

func changes(cs []node.Change) []Change {
	if cs == nil {
		return nil
	}
	out := make([]Change, len(cs))
	for i, c := range cs {
		out[i] = Change{Path: c.Path, What: c.What}
	}
	return out
}

// Listeners returns the node's listening transports with their real
// addresses, in start order (nil for a node with no transport, as
// RouterConfig's).
func (n *Node) Listeners() []Listener {
	var out []Listener
	for _, l := range n.n.Listeners() {
		out = append(out, Listener{Transport: l.Transport, Type: l.Type, Network: l.Network, Address: l.Address})
	}
	return out
}

// Join opens a session on realm cfg.Realm of the node's first router
// worker (in config order) that has it, over an in-process connection:
// no socket, no serialization. The values of a call's or an event's
// payload reach the other in-process sessions as they were given (read
// numbers with wamp.AsInt, which accepts every integer type; treat what
// you receive as read-only, since other receivers may share it), and
// sessions over sockets as their serializer decodes them: send there only
// what every serializer encodes (what encoding/json marshals, floats
// finite, strings valid UTF-8). A message a socket's serializer cannot
// encode is not delivered to that session, and the router answers for it
// at once: a call whose arguments the callee's serializer cannot encode,
// or whose result the caller's cannot, fails with ERROR
// wamp.error.invalid_argument; an event is not sent to that subscriber.
//
// Which rules apply: the session does not authenticate, as a router
// component does not in Crossbar, so cfg.Auth must offer nothing (the
// router refuses it with wamp.error.no_auth_method). It gets authmethod
// "anonymous", authrole "anonymous" (JoinAs picks another) and authid
// cfg.AuthID, or a random one. In every other respect it is a client of
// the realm like one over a socket: its role's permissions, the realm's
// limits and the meta API apply to it, its registrations and
// subscriptions are those of any session, and Stop ends it with GOODBYE
// wamp.close.system_shutdown. A realm the node does not serve gives a
// *wamp.RequestError wamp.error.no_such_realm, a role the realm lacks an
// error wrapping one with wamp.error.no_such_role, and a node that has
// stopped ErrNotRunning. ctx bounds the join only.
// The session is the caller's to Leave or Close; it does not rejoin when
// it ends (Connect's does).
func (n *Node) Join(ctx context.Context, cfg client.Config) (*client.Session, error) {
	return n.JoinAs(ctx, "anonymous", cfg)
}

// JoinAs is Join with authrole role: one of the realm's roles, or
// "trusted", the role of Crossbar's router components, which may do
// everything on every realm of its router (register the router's wamp.*
// procedures included) and exists on every realm.
func (n *Node) JoinAs(ctx context.Context, role string, cfg client.Config) (*client.Session, error) {
	if role == "" {
		role = "anonymous"
	}
	s, err := n.n.Join(ctx, role, cfg)
	return s, notRunning(err)
}

// Connect is JoinAs (role "" is "anonymous") for a session that lasts: a
// client.Client over in-process connections which, whenever its session
// ends other than by the Client's Close or Leave (killed with
// wamp.session.kill, its realm removed by a reload, every session of its
// authid or role killed), joins again after opts's backoff and renews its
// registrations and subscriptions, as a Client over a socket does after a
// connection loss (see client.Connect; opts.OnJoin and OnLeave apply).
// The Client closes when the node begins to stop: its session ends then
// without GOODBYE, and it does not rejoin. ctx bounds the first join
// only, which fails as JoinAs does (with opts.RetryFirst, it is retried
// with backoff until it succeeds or ctx ends); after the node began to
// stop, Connect returns ErrNotRunning.
func (n *Node) Connect(ctx context.Context, role string, cfg client.Config, opts client.ReconnectOptions) (*client.Client, error) {
	if role == "" {
		role = "anonymous"
	}
	select {
	case <-n.stopping:
		return nil, ErrNotRunning
	default:
	}
	dial := func(context.Context) (wamp.Peer, error) {
		p, err := n.n.Dial(role, cfg)
		return p, notRunning(err)
	}
	c, err := client.Connect(ctx, dial, cfg, opts)
	if err != nil {
		return nil, err
	}
	go func() {
		select {
		case <-n.stopping:
			c.Close()
		case <-c.Done():
		}
	}()
	return c, nil
}

// notRunning is err, or ErrNotRunning for the internal node's.
func notRunning(err error) error {
	if errors.Is(err, node.ErrNotRunning) {
		return ErrNotRunning
	}
	return err
}
