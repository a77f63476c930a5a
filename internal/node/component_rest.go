package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/junction-wamp/junction/internal/bridge/rest"
	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/wamp"
)

// buildRESTCallee builds a RESTCallee: a procedure served by HTTP requests.
func buildRESTCallee(env componentEnv) (component, error) {
	o, err := rest.ParseCalleeExtra(env.Config.Extra)
	if err != nil {
		return nil, extraError(env.Path, err)
	}
	o.Logger = env.Logger
	c, err := rest.NewCallee(o)
	if err != nil {
		return nil, pathError(env.Path, err)
	}
	return &restComponent{env: env, comp: c}, nil
}

// buildMessageForwarder builds a MessageForwarder: events forwarded as
// HTTP requests.
func buildMessageForwarder(env componentEnv) (component, error) {
	o, err := rest.ParseSubscriberExtra(env.Config.Extra)
	if err != nil {
		return nil, extraError(env.Path, err)
	}
	o.Logger = env.Logger
	s, err := rest.NewSubscriber(o)
	if err != nil {
		return nil, pathError(env.Path, err)
	}
	return &restComponent{env: env, comp: s}, nil
}

// extraError gives an error of the rest package's "extra" parsers (which
// name the field relative to extra) its JSON path:
// "workers[0].components[1].extra.baseurl: ...".
func extraError(path string, err error) error {
	return fmt.Errorf("%s.extra.%w", path, err)
}

// restComponent runs a rest.Component on its own reconnecting client.
type restComponent struct {
	env  componentEnv
	comp rest.Component
	c    *client.Client // set by Start
}

// Start joins (retrying with backoff until ctx ends: a container's router
// may not be up yet), then registers or subscribes; the client renews them
// after every reconnect.
func (r *restComponent) Start(ctx context.Context) error {
	cfg := client.Config{Realm: wamp.URI(r.env.Config.Realm), Logger: r.env.Logger}
	c, err := client.Connect(ctx, r.env.Dial, cfg, componentReconnect())
	if err != nil {
		return err
	}
	if err := r.comp.Start(ctx, c); err != nil {
		c.Close()
		return err
	}
	r.c = c
	return nil
}

// Stop stops the component (its work in flight finishes, bounded by ctx),
// then leaves.
func (r *restComponent) Stop(ctx context.Context) error {
	err := r.comp.Stop(ctx)
	// Leave fails with the session's error when the router already went
	// away; only running out of time matters here.
	if lerr := r.c.Leave(ctx); lerr != nil && ctx.Err() != nil {
		err = errors.Join(err, lerr)
	}
	return err
}

// componentReconnect are the reconnect options of the class components.
// Tests replace it.
var componentReconnect = func() client.ReconnectOptions {
	return client.ReconnectOptions{RetryFirst: true}
}
