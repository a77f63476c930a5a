package node

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/local"
	"github.com/junction-wamp/junction/internal/wamp"
)

// component is a running class component (an HTTP bridge component).
type component interface {
	// Start connects and starts working; ctx bounds the start only.
	Start(ctx context.Context) error
	// Stop stops it, bounded by ctx.
	Stop(ctx context.Context) error
}

// componentEnv is what a component builder gets.
type componentEnv struct {
	Path   string            // "workers[1].components[0]"
	Config *config.Component // Realm, Extra, ...
	// Dial opens a connection to the component's router: an in-memory
	// pair for a router component (joining with its "role"), the
	// configured transport for a container component. Use it with
	// client.Connect, which reconnects with backoff.
	Dial   client.Dialer
	Logger *slog.Logger
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
	path    string
	cfg     *config.Component
	comp    component
	started bool
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

// component builds the component c through componentTypes.
func (b *builder) component(path string, c *config.Component, dial client.Dialer) error {
	if c == nil {
		return pathError(path, fmt.Errorf("node: missing component"))
	}
	build, ok := componentTypes[c.Class]
	if !ok {
		return pathError(path+".classname", fmt.Errorf("node: component class %q is not implemented yet", c.Classname))
	}
	comp, err := build(componentEnv{Path: path, Config: c, Dial: dial, Logger: b.log.With("component", path)})
	if err != nil {
		return err
	}
	b.node.components = append(b.node.components, &componentUnit{path: path, cfg: c, comp: comp})
	return nil
}

// localDialer connects to a router in the same process: each dial makes
// an in-memory pair and attaches one end to gate on a new goroutine, which
// ends with the session (Router.Close waits for it).
func localDialer(gate interface{ Attach(wamp.Peer) }) client.Dialer {
	return func(context.Context) (wamp.Peer, error) {
		mine, theirs := local.Pair(local.Options{})
		go gate.Attach(theirs)
		return mine, nil
	}
}
