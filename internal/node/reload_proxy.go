package node

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/proxy"
)

// runsProxy reports whether the node builds a relay for w.
func runsProxy(w *config.ProxyWorker) bool { return !w.Options.Disabled && w.RunsAs == "" }

// proxyWorker compares two proxy workers at path and applies what can
// change live on the running relay: its routes and connections
// (proxyRoutes) and its transports' static "auth" (gates). Anything else
// (options, a transport's endpoint, options or paths) needs a restart.
func (r *reloader) proxyWorker(path string, old, w *config.ProxyWorker) {
	ru, next := r.node.relayAt(path), r.next.relayAt(path)
	if ru == nil || next == nil {
		return // built by neither: nothing runs
	}
	a, b := *old, *w
	a.Transports, b.Transports, a.Routes, b.Routes, a.Connections, b.Connections = nil, nil, nil, nil, nil, nil
	if !same(a, b) {
		r.restart(path+".options", "worker options changed")
	}
	if len(old.Transports) != len(w.Transports) {
		r.restart(path+".transports", "%d transports, now %d", len(old.Transports), len(w.Transports))
	}
	for i := range min(len(old.Transports), len(w.Transports)) {
		if !sameExcept(reflect.ValueOf(old.Transports[i]), reflect.ValueOf(w.Transports[i]), authType) {
			r.restart(fmt.Sprintf("%s.transports[%d]", path, i), "transport changed (endpoint, options or paths)")
		}
	}
	r.gates(ru, next)
	if !same(old.Routes, w.Routes) || !same(old.Connections, w.Connections) {
		r.proxyRoutes(path, ru, next, old, w)
	}
}

// proxyRoutes gives the running relay of ru the routes of next, the
// relay built from w: the sessions whose route is gone, or now goes to
// another connection, or to a connection whose config changed, get
// GOODBYE junction.close.config_changed. A connection unchanged keeps
// its running backend, so its sessions stay. Routes that add or remove a
// realm on a worker whose transports ask a dynamic authenticator need a
// restart instead (its calling sessions are made for the realms routed
// at start).
func (r *reloader) proxyRoutes(path string, ru, next *routerUnit, old, w *config.ProxyWorker) {
	if !slices.Equal(ru.realmNames(), next.realmNames()) && slices.ContainsFunc(ru.gates, func(g *clientGateUnit) bool { return askingAuth(g.auth) }) {
		r.restart(path+".routes", "routed realms changed, with dynamic or function authentication")
		return
	}
	kept := map[string]*proxy.Backend{}
	for _, rt := range ru.relay.Routes() {
		for _, b := range rt.Backends {
			if same(old.Connections[b.Name], w.Connections[b.Name]) {
				kept[b.Name] = b
			}
		}
	}
	routes := next.relay.Routes()
	for _, rt := range routes {
		for i, b := range rt.Backends {
			if k := kept[b.Name]; k != nil {
				rt.Backends[i] = k
			}
		}
	}
	closed := ru.relay.SetRoutes(routes)
	ru.setRealmNames(next.realmNames())
	r.applied(path+".routes", "routes and connections replaced, %d sessions of routes removed or moved closed", closed)
}

// relayAt returns the proxy unit of the worker at path, or nil.
func (n *Node) relayAt(path string) *routerUnit {
	i := slices.IndexFunc(n.relays, func(ru *routerUnit) bool { return ru.path == path })
	if i < 0 {
		return nil
	}
	return n.relays[i]
}
