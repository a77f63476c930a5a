package node

import (
	"fmt"
	"maps"
	"slices"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/wamp"
)

// proxyWorker builds a proxy worker: its relay over its routes and
// connections, and its transports, whose sessions (clients', and the
// bridge services' and dynamic authenticators' own) go through the relay
// to the backend routers.
func (b *builder) proxyWorker(path string, w *config.ProxyWorker) {
	if b.notBuilt(path, w.Options.Disabled, w.RunsAs) {
		return
	}
	routes, err := b.proxyRoutes(path, w)
	if err != nil {
		b.fail(err)
		return
	}
	routed := w.RoutedRealms()
	realms := slices.Collect(maps.Values(routed))
	ru := &routerUnit{path: path, relay: proxy.New(proxy.Options{Routes: routes, Logger: b.log.With("worker", path)}),
		dyn: newDynamicCalls(b, realms), fn: newFunctionAuths(b.log.With("worker", path)), opts: w.Options}
	ru.dyn.unit = ru
	for _, name := range slices.Sorted(maps.Keys(routed)) {
		ru.names = append(ru.names, name)
	}
	b.node.relays = append(b.node.relays, ru)
	for i, t := range w.Transports {
		b.fail(b.transport(fmt.Sprintf("%s.transports[%d]", path, i), ru, t))
	}
	b.pyWorker(path, true, w.Options, nil, ru.fn)
}

// proxyRoutes translates the routes of w, each to the backends of its
// connections (the same connection is one backend for all its routes).
func (b *builder) proxyRoutes(path string, w *config.ProxyWorker) ([]proxy.Route, error) {
	backends := map[string]*proxy.Backend{}
	var errs config.Errors
	for _, name := range slices.Sorted(maps.Keys(w.Connections)) {
		be, err := b.proxyBackend(name, w.Connections[name])
		if err != nil {
			errs = append(errs, fieldError(config.ChildPath(path+".connections", name)+".transport", err))
			continue
		}
		backends[name] = be
	}
	if len(errs) > 0 {
		return nil, errs
	}
	routes := make([]proxy.Route, 0, len(w.Routes))
	for _, r := range w.Routes {
		rt := proxy.Route{Realm: wamp.URI(r.Realm), Role: r.Role}
		for _, name := range r.Connections {
			rt.Backends = append(rt.Backends, backends[name])
		}
		routes = append(routes, rt)
	}
	return routes, nil
}

// proxyBackend is the backend of connection name: its dialer, login
// methods and the node key (loaded at the first cryptosign-proxy login).
func (b *builder) proxyBackend(name string, c *config.ProxyConnection) (*proxy.Backend, error) {
	if c.Transport == nil {
		return nil, fmt.Errorf("node: missing")
	}
	dial, err := componentDialer(c.Transport, b.dir, true)
	if err != nil {
		return nil, err
	}
	return &proxy.Backend{Name: name, Dial: dial, Methods: c.Methods, Key: b.nodeKey()}, nil
}
