package node

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/wamp"
)

// fakeComponent joins with its dialer on Start and checks on Stop that
// its session is still up (components stop before the routers close).
type fakeComponent struct {
	env         componentEnv
	startErr    error
	c           *client.Client
	role        any
	aliveAtStop bool
}

func (f *fakeComponent) Start(ctx context.Context) error {
	if f.startErr != nil {
		return f.startErr
	}
	c, err := client.Connect(ctx, f.env.Dial, client.Config{Realm: wamp.URI(f.env.Config.Realm)}, client.ReconnectOptions{})
	if err != nil {
		return err
	}
	f.c, f.role = c, c.Session().Details()["authrole"]
	return nil
}

func (f *fakeComponent) Wait(context.Context) error { return nil }

func (f *fakeComponent) Stop(ctx context.Context) error {
	f.aliveAtStop = f.c.Session() != nil
	return f.c.Leave(ctx)
}

// withComponent puts a fake builder in componentTypes for the test.
func withComponent(t *testing.T, class string, f *fakeComponent) {
	old, had := componentTypes[class]
	componentTypes[class] = func(env componentEnv) (component, error) { f.env = env; return f, nil }
	t.Cleanup(func() {
		if had {
			componentTypes[class] = old
		} else {
			delete(componentTypes, class)
		}
	})
}

const componentConfig = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
	"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}],
	"components": [{"type": "class", "classname": "router.adapter.rest.MessageForwarder", "realm": "realm1",
		"extra": {"subscriptions": [{"topic": "com.example.t", "url": "http://127.0.0.1:1/x"}]}}]}]}`

func TestRouterComponentLifecycle(t *testing.T) {
	f := &fakeComponent{}
	withComponent(t, config.ClassMessageForwarder, f)
	n, err := New(parse(t, componentConfig, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if f.role != config.DefaultComponentRole || f.env.Path != "workers[0].components[0]" {
		t.Errorf("component joined as %v at %q, want %s at workers[0].components[0]", f.role, f.env.Path, config.DefaultComponentRole)
	}
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if !f.aliveAtStop {
		t.Error("the component's session was gone when it was stopped: routers must close after components")
	}
}

func TestComponentStartFails(t *testing.T) {
	f := &fakeComponent{startErr: errors.New("boom")}
	withComponent(t, config.ClassMessageForwarder, f)
	n, err := New(parse(t, componentConfig, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Start(testCtx(t))
	if err == nil || !strings.Contains(err.Error(), "workers[0].components[0]: boom") {
		t.Fatalf("Start: %v, want the component's path", err)
	}
	// A router's components start before its listeners, as Crossbar's:
	// none was bound.
	if ls := n.Listeners(); len(ls) != 0 {
		t.Fatalf("listeners %v bound before the router's components started", ls)
	}
}

// TestContainerComponentStartFails: a container component starts after
// the listeners; when it fails, they are closed again.
func TestContainerComponentStartFails(t *testing.T) {
	f := &fakeComponent{startErr: errors.New("boom")}
	withComponent(t, config.ClassMessageForwarder, f)
	n, err := New(parse(t, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]},
		{"type": "container", "components": [{"type": "class", "classname": "router.adapter.rest.MessageForwarder", "realm": "realm1",
			"extra": {"subscriptions": [{"topic": "com.example.t", "url": "http://127.0.0.1:1/x"}]},
			"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "nowhere.sock"}}}]}]}`, nil), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Start(testCtx(t))
	if err == nil || !strings.Contains(err.Error(), "workers[1].components[0]: boom") {
		t.Fatalf("Start: %v, want the component's path", err)
	}
	ls := n.Listeners()
	if len(ls) != 1 {
		t.Fatalf("listeners %v", ls)
	}
	if c, err := net.Dial("tcp", ls[0].Address); err == nil {
		c.Close()
		t.Error("the listener still accepts after the failed start")
	}
}
