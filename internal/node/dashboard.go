package node

import (
	"cmp"
	"net/http"
	"net/netip"
	"time"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/web"
	"github.com/junction-wamp/junction/wamp"
)

// buildDashboard builds a "dashboard" service: the node's Dashboard, for
// the clients its require_ip allows (loopback without one). Its live
// streams end when the listener shuts down.
func buildDashboard(env *pathEnv, path, _ string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.DashboardService)
	var allow func(netip.Addr) bool // nil: loopback only
	if len(s.RequireIP) > 0 {
		ips, err := bridge.ParseIPRules(s.RequireIP)
		if err != nil {
			return nil, relError(path+".options", err)
		}
		allow = ips.Allows
	}
	h, err := web.NewDashboard(web.DashboardOptions{Source: env.b.node.Dashboard, Allow: allow})
	if err != nil {
		return nil, fieldError(path, err)
	}
	env.listener.onShutdown = append(env.listener.onShutdown, h.Shutdown)
	return h, nil
}

// Dashboard returns what the "dashboard" page shows for q: the version and
// start time, every realm (in config order) with its counts, the realm q
// names (or the first) in detail with one page of its sessions, the bridge
// services with their request counts, the Subscriber components' queues,
// and the proxy workers with their routes and counts. Safe for concurrent
// use.
func (n *Node) Dashboard(q web.DashboardQuery) web.Dashboard {
	st := n.Stats()
	d := web.Dashboard{Version: BuildVersion(), Started: st.Started, Realms: []web.DashboardRealm{}}
	for i, ru := range n.routers {
		for _, name := range ru.realmNames() {
			rs := st.Routers[i].Realms[wamp.URI(name)]
			d.Realms = append(d.Realms, web.DashboardRealm{Name: name, Sessions: rs.Sessions,
				Registrations: rs.Registrations, Subscriptions: rs.Subscriptions})
			if d.Realm == nil && (q.Realm == name || q.Realm == "") {
				d.Realm = realmDetail(ru.router, name, q)
			}
		}
	}
	d.BridgeServices, d.SubscriberQueues = n.dashboardServices(st.Services)
	d.ProxyWorkers = n.dashboardProxies(st.Proxies)
	return d
}

// dashboardServices are the bridge services and REST components of ss, and
// the Subscribers' queues, each with the realm of its session.
func (n *Node) dashboardServices(ss []metrics.ServiceStats) ([]web.DashboardBridgeService, []web.DashboardQueue) {
	realms := make(map[string]string, len(n.sessions)+len(n.components))
	for _, s := range n.sessions {
		realms[s.path] = string(s.cfg.Realm)
	}
	for _, c := range n.components {
		realms[c.path] = c.cfg.Realm
	}
	services, queues := []web.DashboardBridgeService{}, []web.DashboardQueue{}
	for _, s := range ss {
		where := cmp.Or(s.URL, s.Path)
		d := s.Requests.Duration()
		svc := web.DashboardBridgeService{Type: s.Type, Where: where, Path: s.Path, Realm: realms[s.Path],
			Requests: s.Requests.Requests(), Errors: s.Requests.Errors()}
		if d.Count > 0 {
			svc.MeanMillis = float64(d.Sum) / float64(d.Count) / float64(time.Millisecond)
		}
		services = append(services, svc)
		if q := s.Queue; q != nil {
			queues = append(queues, web.DashboardQueue{Where: where, Realm: realms[s.Path], Depth: q.Depth,
				Delivered: q.Delivered, Retried: q.Retried, Dropped: q.Dropped, QueueFull: q.QueueFull})
		}
	}
	return services, queues
}

// realmDetail is the realm name of rt in detail: the page of sessions q
// asks for (the last one when there are fewer pages), and the first
// registrations and subscriptions.
func realmDetail(rt *router.Router, name string, q web.DashboardQuery) *web.DashboardRealmDetail {
	size := max(q.PageSize, 1)
	page := max(q.Page, 1)
	sessions, total := rt.Sessions(wamp.URI(name), (page-1)*size, size)
	pages := max(1, (total+size-1)/size)
	if page > pages {
		page = pages
		sessions, total = rt.Sessions(wamp.URI(name), (page-1)*size, size)
	}
	d := &web.DashboardRealmDetail{Name: name, SessionsTotal: total, Page: page, Pages: pages, PageSize: size,
		Sessions: make([]web.DashboardSession, len(sessions))}
	for i, s := range sessions {
		d.Sessions[i] = web.DashboardSession{ID: uint64(s.ID), AuthID: s.AuthID, AuthRole: s.AuthRole,
			AuthMethod: s.AuthMethod, Transport: s.Transport, Serializer: s.Serializer, Peer: s.Peer, Joined: s.Joined}
	}
	regs, regTotal := rt.Registrations(wamp.URI(name), dashboardListLimit)
	d.Registrations, d.RegistrationsTotal = make([]web.DashboardRegistration, len(regs)), regTotal
	for i, r := range regs {
		d.Registrations[i] = web.DashboardRegistration{ID: uint64(r.ID), Procedure: string(r.Procedure),
			Match: r.Match, Invoke: r.Invoke, Callees: r.Callees}
	}
	subs, subTotal := rt.Subscriptions(wamp.URI(name), dashboardListLimit)
	d.Subscriptions, d.SubscriptionsTotal = make([]web.DashboardSubscription, len(subs)), subTotal
	for i, s := range subs {
		d.Subscriptions[i] = web.DashboardSubscription{ID: uint64(s.ID), Topic: string(s.Topic),
			Match: s.Match, Subscribers: s.Subscribers}
	}
	return d
}

// dashboardListLimit bounds the registrations and subscriptions the
// dashboard lists (their totals are always given).
const dashboardListLimit = 200
