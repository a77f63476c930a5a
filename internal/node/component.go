package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/wamp"
)

// component is a running built-in class component (an HTTP bridge
// component); Python class components run in their worker's pyWorker.
type component interface {
	// Start connects and starts working; ctx bounds the start only. With
	// componentEnv.Background it only starts connecting.
	Start(ctx context.Context) error
	// Stop stops it (a connection still in progress included), bounded
	// by ctx.
	Stop(ctx context.Context) error
	// Wait waits until it has started: joined, and registered or
	// subscribed; or returns why it did not, or ctx's error. Safe to call
	// at any time, from any goroutine.
	Wait(ctx context.Context) error
}

// componentEnv is what a component builder gets.
type componentEnv struct {
	Path   string            // "workers[1].components[0]"
	Config *config.Component // Realm, Extra, ...
	// Dial opens a connection to the component's router: an in-memory
	// pair for a router component (joining with its "role"), the
	// configured transport for a container component. Use it with
	// client.Connect, which reconnects with backoff.
	Dial client.Dialer
	// URL is where Dial connects, for the logs; "" for a router
	// component.
	URL string
	// Background says that Start must not wait for the first join: the
	// router of a container component runs elsewhere and may not be up
	// yet, so the component connects (retrying with backoff) and then
	// registers or subscribes in the background, as Crossbar's
	// containers do. A router component's router is in the process and
	// started first: it joins at once, and Start waits for it, so that a
	// registration the router refuses fails the start.
	Background bool
	// Router marks a router component: it starts before the listeners
	// open, as Crossbar starts a router's components before its
	// transports.
	Router bool
	// Cluster is the node's member of its cluster, nil on one node or
	// for a router component of a realm that stays on its node
	// ("cluster": false): a component that must act once in the cluster
	// runs under its lock.
	Cluster *cluster.Node
	// LocalRealm marks a router component of a realm that stays on its
	// node.
	LocalRealm bool
	Logger     *slog.Logger
}

// componentBuilder builds a component of one class. Its errors name their
// JSON path (env.Path or below).
type componentBuilder func(env componentEnv) (component, error)

// componentTypes are the class components built in, by config.Component
// Class (config.ClassRESTCallee, config.ClassMessageForwarder). Adding a
// class is one line here.
var componentTypes = map[string]componentBuilder{
	config.ClassRESTCallee:       buildRESTCallee,
	config.ClassMessageForwarder: buildMessageForwarder,
}

// componentUnit is one component of a worker.
type componentUnit struct {
	path       string
	cfg        *config.Component
	url        string // componentEnv.URL
	background bool   // componentEnv.Background
	router     bool   // componentEnv.Router
	comp       component
	started    bool
}

func (c *componentUnit) start(ctx context.Context) error {
	if err := c.comp.Start(ctx); err != nil {
		return pathError(c.path, err)
	}
	c.started = true
	return nil
}

func (c *componentUnit) stop(ctx context.Context) error {
	if !c.started {
		return nil
	}
	c.started = false
	if err := c.comp.Stop(ctx); err != nil {
		return pathError(c.path, err)
	}
	return nil
}

// component builds the component of env (Path, Config, Dial, URL and
// Background set) through componentTypes.
func (b *builder) component(env componentEnv) error {
	c := env.Config
	if c == nil {
		return fieldError(env.Path, errors.New("node: missing component"))
	}
	build, ok := componentTypes[c.Class]
	if !ok {
		return fieldError(env.Path+".classname", fmt.Errorf("node: component class %q is not implemented yet", c.Classname))
	}
	env.Logger = b.log.With("component", env.Path)
	if !env.LocalRealm {
		env.Cluster = b.clusterHost().cluster
	}
	comp, err := build(env)
	if err != nil {
		return err
	}
	b.node.components = append(b.node.components,
		&componentUnit{path: env.Path, cfg: c, url: env.URL, background: env.Background, router: env.Router, comp: comp})
	return nil
}

// logStart logs the start of c.
func (c *componentUnit) logStart(log *slog.Logger) {
	if c.background {
		log.Info("component connecting", "component", c.path, "class", c.cfg.Class, "realm", c.cfg.Realm, "url", c.url)
		return
	}
	log.Info("component started", "component", c.path, "class", c.cfg.Class, "realm", c.cfg.Realm)
}

// localDialer connects to a router in the same process: each dial makes
// an in-memory pair and attaches one end to gate on a new goroutine, which
// ends with the session (Router.Close waits for it).
func localDialer(gate interface{ Attach(wamp.Peer) }) client.Dialer {
	return pairDialer(gate, local.Options{})
}

// parkingDialer is localDialer for the HTTP bridge's sessions: the
// router's end parks (local.Options.Parks), so that the router's work for
// a request's CALL runs on the HTTP handler's goroutine rather than being
// handed to the session's, and an idle session holds no goroutine (the
// one running Attach ends when the session first parks).
func parkingDialer(gate interface{ Attach(wamp.Peer) }) client.Dialer {
	return pairDialer(gate, local.Options{Parks: true})
}

func pairDialer(gate interface{ Attach(wamp.Peer) }, opts local.Options) client.Dialer {
	return func(context.Context) (wamp.Peer, error) {
		mine, theirs := local.Pair(opts)
		go gate.Attach(theirs)
		return mine, nil
	}
}

// localRealm reports whether realm, of a router worker's realms, stays on
// its node ("cluster": false in its options).
func localRealm(realms []*config.Realm, realm string) bool {
	for _, r := range realms {
		if r != nil && r.Name == realm {
			return !r.Options.Cluster
		}
	}
	return false
}
