package node

import (
	"cmp"
	"maps"
	"slices"

	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/internal/web"
	"github.com/junction-wamp/junction/wamp"
)

// dashboardProxies are the proxy workers, each with its routes and its
// counters in ps (Node.Stats: one for each of n.relays, in their order).
func (n *Node) dashboardProxies(ps []metrics.ProxyStats) []web.DashboardProxyWorker {
	workers := make([]web.DashboardProxyWorker, 0, len(n.relays))
	for i, ru := range n.relays {
		st := ps[i].Stats
		w := web.DashboardProxyWorker{Worker: ru.path, Routes: proxyRoutes(ru.relay.Routes()),
			Realms: []web.DashboardProxyRealm{}, Joins: proxyJoins(st)}
		for _, name := range ru.realmNames() {
			w.Realms = append(w.Realms, web.DashboardProxyRealm{Name: name, Sessions: st.Sessions[wamp.URI(name)]})
		}
		workers = append(workers, w)
	}
	return workers
}

// proxyRoutes are rs as the dashboard shows them: their connections by
// name.
func proxyRoutes(rs []proxy.Route) []web.DashboardProxyRoute {
	routes := make([]web.DashboardProxyRoute, len(rs))
	for i, r := range rs {
		routes[i] = web.DashboardProxyRoute{Realm: string(r.Realm), Role: r.Role, Connections: make([]string, len(r.Backends))}
		for j, b := range r.Backends {
			routes[i].Connections[j] = b.Name
		}
	}
	return routes
}

// proxyJoins are the joins and refusals of st side by side, by realm
// (proxy.OtherRealm last), then authmethod.
func proxyJoins(st proxy.Stats) []web.DashboardProxyJoins {
	keys := slices.Collect(maps.Keys(st.Joins))
	for k := range st.AuthFailures {
		if _, ok := st.Joins[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, byRealmMethod)
	joins := make([]web.DashboardProxyJoins, len(keys))
	for i, k := range keys {
		joins[i] = web.DashboardProxyJoins{Realm: string(k.Realm), AuthMethod: k.AuthMethod,
			Joined: st.Joins[k], Refused: st.AuthFailures[k]}
	}
	return joins
}

// byRealmMethod orders by realm (proxy.OtherRealm last), then authmethod.
func byRealmMethod(a, b proxy.RealmMethod) int {
	if ao, bo := a.Realm == proxy.OtherRealm, b.Realm == proxy.OtherRealm; ao != bo {
		if ao {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.Realm, b.Realm), cmp.Compare(a.AuthMethod, b.AuthMethod))
}
