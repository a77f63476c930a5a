package node

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
)

// builder translates a config into the node's units. It is used by New
// only, on one goroutine.
type builder struct {
	node   *Node
	dir    string // the node directory; "" is the current directory
	log    *slog.Logger
	nonces map[string]*bridge.NonceCache // by signing key; see signing
}

// build adds a unit for every enabled worker, transport and component.
func (b *builder) build(cfg *config.Config) error {
	for i, w := range cfg.Workers {
		path := fmt.Sprintf("workers[%d]", i)
		var err error
		switch w := w.(type) {
		case *config.RouterWorker:
			err = b.routerWorker(path, w)
		case *config.ContainerWorker:
			err = b.containerWorker(path, w)
		default:
			err = pathError(path, fmt.Errorf("node: unknown worker type %T", w))
		}
		if err != nil {
			return err
		}
	}
	return nil
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
func (b *builder) routerWorker(path string, w *config.RouterWorker) error {
	if w.Options.Disabled {
		b.log.Info("worker disabled", "worker", path)
		return nil
	}
	realms, err := realmOptions(path, w.Realms)
	if err != nil {
		return err
	}
	logCache(b.log, path, w.Realms)
	r, err := router.New(router.Options{Realms: realms, Logger: b.log.With("worker", path)})
	if err != nil {
		return pathError(path+".realms", err)
	}
	ru := &routerUnit{path: path, router: r, realms: realms}
	b.node.routers = append(b.node.routers, ru)
	for i, t := range w.Transports {
		if err := b.transport(fmt.Sprintf("%s.transports[%d]", path, i), ru, t); err != nil {
			return err
		}
	}
	for i, c := range w.Components {
		cp := fmt.Sprintf("%s.components[%d]", path, i)
		dial := localDialer(r.Gate(anonymousAs(c.Role)))
		if err := b.component(cp, c, dial); err != nil {
			return err
		}
	}
	return nil
}

// containerWorker builds the components of w, each with a dialer of its
// own transport.
func (b *builder) containerWorker(path string, w *config.ContainerWorker) error {
	if w.Options.Disabled {
		b.log.Info("worker disabled", "worker", path)
		return nil
	}
	for i, c := range w.Components {
		cp := fmt.Sprintf("%s.components[%d]", path, i)
		if c.Transport == nil {
			return pathError(cp+".transport", fmt.Errorf("node: missing"))
		}
		dial, err := ComponentDialer(c.Transport, b.dir)
		if err != nil {
			return pathError(cp+".transport", err)
		}
		if err := b.component(cp, c, dial); err != nil {
			return err
		}
	}
	return nil
}

// transport builds the listener of one transport.
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
	default:
		err = pathError(path, fmt.Errorf("node: unknown transport type %T", t))
	}
	if err != nil {
		return err
	}
	b.node.listeners = append(b.node.listeners, l)
	return nil
}
