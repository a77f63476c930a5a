package node

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"github.com/junction-wamp/junction/internal/auth"
	"log/slog"
	"path/filepath"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
)

// builder translates a config into the node's units. It is used by New
// only, on one goroutine.
type builder struct {
	node *Node
	// owner is the node whose information the node info pages show: nil
	// for node itself (a reload builds units for a running node).
	owner  *Node
	dir    string // the node directory; "" is the current directory
	log    *slog.Logger
	nonces map[string]*bridge.NonceCache // by signing key; see signing
	// keyLoader loads the node key once, for the router links; see nodeKey.
	keyLoader func() (ed25519.PrivateKey, error)
	errs      config.Errors    // the problems found so far
	warns     []config.Warning // what was built with a warning
	// cookies are the cookie stores the units built use, opened or kept
	// (see cookieStore); a reload of web paths closes the others.
	cookies map[*auth.CookieStore]bool
}

// build adds a unit for every enabled worker, transport and component. An
// item that cannot be built is recorded in b.errs and the build goes on
// with the next, so that New reports every problem at once.
func (b *builder) build(cfg *config.Config) {
	b.node.shutdown = newShutdownPolicy(cfg.Controller.Shutdown, enabledWorkers(cfg))
	b.buildCluster(cfg)
	for i, w := range cfg.Workers {
		path := fmt.Sprintf("workers[%d]", i)
		switch w := w.(type) {
		case *config.RouterWorker:
			b.routerWorker(path, w)
		case *config.ContainerWorker:
			b.containerWorker(path, w)
		case *config.GuestWorker:
			b.guestWorker(path, w)
		case *config.TesteeWorker:
			b.testeeWorker(path, w)
		case *config.ProxyWorker:
			b.proxyWorker(path, w)
		default:
			b.fail(fieldError(path, fmt.Errorf("node: unknown worker type %T", w)))
		}
	}
	b.capListeners()
}

// enabledWorkers counts the workers that start (not disabled), as
// shutdown_on_last_worker_exit counts them. A guest counts as running
// throughout: its exits do not reach the shutdown triggers (as in
// Crossbar), and a watched one may start again.
func enabledWorkers(cfg *config.Config) int {
	n := 0
	for _, w := range cfg.Workers {
		switch w := w.(type) {
		case *config.GuestWorker:
			n++
		case *config.RouterWorker:
			if !w.Options.Disabled && w.RunsAs == "" {
				n++
			}
		case *config.ProxyWorker:
			if !w.Options.Disabled && w.RunsAs == "" {
				n++
			}
		case *config.ContainerWorker:
			if !w.Options.Disabled {
				n++
			}
		case *config.TesteeWorker:
			if !w.Options.Disabled {
				n++
			}
		}
	}
	return n
}

// infoNode is the node the node info pages describe.
func (b *builder) infoNode() *Node {
	if b.owner != nil {
		return b.owner
	}
	return b.node
}

// fail records the problems of err (nil records nothing).
func (b *builder) fail(err error) { b.errs = appendError(b.errs, err) }

// warn records and logs a warning at a JSON path: something built that
// will not do what the config seems to ask (a static directory that does
// not exist). It is logged as start logs the config's own warnings.
func (b *builder) warn(path, msg string) {
	b.warns = append(b.warns, config.Warning{Path: path, Msg: msg})
	b.log.Warn("config: "+msg, "path", path)
}

// resolve returns name relative to the node directory, or name itself
// when absolute.
func (b *builder) resolve(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	dir := b.dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return filepath.Join(dir, name)
	}
	return abs
}

// routerWorker builds the router of w, its listeners and its components.
// Without a router (its realms did not translate), the transports and
// components of w are not built.
func (b *builder) routerWorker(path string, w *config.RouterWorker) {
	if b.notBuilt(path, w.Options.Disabled, w.RunsAs) {
		return
	}
	realms, err := realmOptions(path, w.Realms)
	if err != nil {
		b.fail(err)
		return
	}
	logCache(b.log, path, w.Realms)
	dyn := newDynamicCalls(b, w.Realms)
	dyn.useDynamicAuthorizers(path, w.Realms, realms)
	r, err := router.New(router.Options{Realms: realms, Logger: b.log.With("worker", path), Fabric: b.fabric()})
	if err != nil {
		b.fail(fieldError(path+".realms", err))
		return
	}
	ru := &routerUnit{path: path, router: r, names: realmNamesOf(w.Realms), dyn: dyn, fn: newFunctionAuths(b.log.With("worker", path)),
		opts: w.Options}
	dyn.unit = ru
	b.node.routers = append(b.node.routers, ru)
	for i, t := range w.Transports {
		b.fail(b.transport(fmt.Sprintf("%s.transports[%d]", path, i), ru, t))
	}
	var py []*pyComponent
	for i, c := range w.Components {
		cp := fmt.Sprintf("%s.components[%d]", path, i)
		if c != nil && c.Python() {
			py = append(py, routerPyComponent(cp, c, internalGate(r, c.Role), b.log))
			continue
		}
		env := componentEnv{Path: cp, Config: c, Router: true}
		if c != nil {
			env.Dial = localDialer(internalGate(r, c.Role))
			env.LocalRealm = localRealm(w.Realms, c.Realm)
		}
		b.fail(b.component(env))
	}
	b.pyWorker(path, true, w.Options, py, ru.fn)
	b.routerLinks(path, r, w.Realms)
}

// notBuilt reports, and logs, that the router or proxy worker at path is
// not built: it is disabled, or runs as the identical worker at runsAs.
func (b *builder) notBuilt(path string, disabled bool, runsAs string) bool {
	switch {
	case disabled:
		b.log.Info("worker disabled", "worker", path)
	case runsAs != "":
		b.log.Info("worker runs as one with an identical worker on its shared port", "worker", path, "runs_as", runsAs)
	default:
		return false
	}
	return true
}

// containerWorker builds the components of w, each with a dialer of its
// own transport.
func (b *builder) containerWorker(path string, w *config.ContainerWorker) {
	if w.Options.Disabled {
		b.log.Info("worker disabled", "worker", path)
		return
	}
	var py []*pyComponent
	for i, c := range w.Components {
		cp := fmt.Sprintf("%s.components[%d]", path, i)
		if c != nil && c.Python() {
			if pc, err := b.containerPyComponent(cp, c); err != nil {
				b.fail(err)
			} else {
				py = append(py, pc)
			}
			continue
		}
		b.fail(b.containerComponent(cp, c))
	}
	if pw := b.pyWorker(path, false, w.Options, py, nil); pw != nil {
		pw.restart, pw.shutdown = w.Restart, w.Shutdown
	}
}

// containerPyComponent builds a Python component of a container, with
// the dialer of its transport.
func (b *builder) containerPyComponent(path string, c *config.Component) (*pyComponent, error) {
	if c.Transport == nil {
		return nil, fieldError(path+".transport", errors.New("node: missing"))
	}
	dial, err := ComponentDialer(c.Transport, b.dir)
	if err != nil {
		return nil, fieldError(path+".transport", err)
	}
	return containerPyComponent(path, c, dial, componentURL(c.Transport), b.log), nil
}

// containerComponent builds a container component: it connects in the
// background over its own transport (its router may not be up yet). A
// transport that cannot be dialed and options the component refuses are
// both reported.
func (b *builder) containerComponent(path string, c *config.Component) error {
	env := componentEnv{Path: path, Config: c, Background: true}
	if c == nil {
		return b.component(env)
	}
	if c.Transport == nil {
		return fieldError(path+".transport", errors.New("node: missing"))
	}
	env.URL = componentURL(c.Transport)
	dial, err := ComponentDialer(c.Transport, b.dir)
	if err != nil {
		err = fieldError(path+".transport", err)
	}
	env.Dial = dial
	return joinErrors(err, b.component(env))
}

// transport builds the listener of one transport. Its error may be a
// config.Errors.
func (b *builder) transport(path string, ru *routerUnit, t config.Transport) error {
	var (
		l   *listenerUnit
		err error
	)
	switch t := t.(type) {
	case *config.WebTransport:
		l, err = b.webTransport(path, ru, t)
	case *config.WebSocketTransport:
		l, err = b.webSocketTransport(path, ru, t)
	case *config.RawSocketTransport:
		l, err = b.rawSocketTransport(path, ru, t)
	case *config.MQTTTransport:
		l, err = b.mqttTransport(path, ru, t)
	case *config.UniversalTransport:
		l, err = b.universalTransport(path, ru, t)
	case *config.FlashPolicyTransport:
		l, err = b.flashPolicyTransport(path, t)
	default:
		err = fieldError(path, fmt.Errorf("node: unknown transport type %T", t))
	}
	if err != nil {
		return err
	}
	b.node.listeners = append(b.node.listeners, l)
	return nil
}
