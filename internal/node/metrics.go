package node

import (
	"net/http"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/bridge/rest"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/internal/web"
)

// serviceUnit is a bridge path service or a proxy, whose requests it
// counts itself (stats reads them).
type serviceUnit struct {
	typ, path, url string
	stats          func() meter.RequestStats
	streams        func() metrics.StreamStats // an event stream's; nil for the others
}

// Stats returns a snapshot of the node's counters: each router worker's
// and each proxy worker's (in config order), then the bridge path services and proxies (in the
// order they were built), then the REST components (Callee, Subscriber).
// It reads atomics and takes each router's and realm's lock briefly, as
// Router.Stats does; safe for concurrent use at any time.
func (n *Node) Stats() metrics.Stats {
	st := metrics.Stats{Started: n.Started()}
	_, services, components := n.live()
	for _, r := range n.routers {
		st.Routers = append(st.Routers, metrics.RouterStats{Worker: r.path, Stats: r.router.Stats()})
	}
	for _, r := range n.relays {
		st.Proxies = append(st.Proxies, metrics.ProxyStats{Worker: r.path, Stats: r.relay.Stats()})
	}
	for _, s := range services {
		ss := metrics.ServiceStats{Type: s.typ, Path: s.path, URL: s.url, Requests: s.stats()}
		if s.streams != nil {
			x := s.streams()
			ss.Streams = &x
		}
		st.Services = append(st.Services, ss)
	}
	for _, c := range components {
		if s, ok := componentStats(c); ok {
			st.Services = append(st.Services, s)
		}
	}
	if n.cluster != nil {
		st.Cluster = clusterStats(n.cluster.Status())
	}
	return st
}

// clusterStats are the metrics' view of the cluster's status.
func clusterStats(s cluster.Status) *metrics.ClusterStats {
	c := &metrics.ClusterStats{Joined: s.Joined, Isolated: s.Isolated, Fenced: s.Fenced, Isolations: uint64(s.Isolations),
		NATSConnected: s.NATS == "connected", Routes: s.Routes,
		Sent: s.Sent, Received: s.Received, Lost: s.Lost, Gaps: s.Gaps, Dropped: s.Dropped,
		EventsDropped: s.EventsDropped.ByReason()}
	for _, p := range s.Peers {
		c.Peers = append(c.Peers, metrics.ClusterPeer{Name: p.Member.Name, Up: p.Up, Refuses: p.Refuses})
	}
	return c
}

// componentStats are the counters of a REST component (false for another).
func componentStats(c *componentUnit) (metrics.ServiceStats, bool) {
	rc, ok := c.comp.(*restComponent)
	if lc, locked := c.comp.(*lockedComponent); locked {
		rc = lc.cur.Load() // the instance running on this node, if any
		ok = rc != nil
	}
	if !ok {
		return metrics.ServiceStats{}, false
	}
	switch x := rc.comp.(type) {
	case *rest.Callee:
		return metrics.ServiceStats{Type: metrics.ServiceCallee, Path: c.path, Requests: x.Stats()}, true
	case *rest.Subscriber:
		d := x.Stats()
		return metrics.ServiceStats{Type: metrics.ServiceSubscriber, Path: c.path, Requests: d.Requests,
			Queue: &metrics.QueueStats{Depth: d.Queued, Delivered: d.Delivered, Retried: d.Retried,
				Dropped: d.Dropped, QueueFull: d.QueueFull}}, true
	}
	return metrics.ServiceStats{}, false
}

// live returns the bridge services' sessions, the services' counters and
// the components: a reload replaces them under n.mu, while Readiness and
// Stats read them at any time.
func (n *Node) live() ([]*bridgeSession, []serviceUnit, []*componentUnit) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sessions, n.services, n.components
}

// metered is a bridge service that counts its requests.
type metered interface {
	Stats() meter.RequestStats
}

// addService adds a built bridge service to the node's Stats.
func (env *pathEnv) addService(typ, path, url string, h metered) {
	env.b.node.services = append(env.b.node.services, serviceUnit{typ: typ, path: path, url: url, stats: h.Stats})
}

// addEventStream adds a built event stream service to the node's Stats,
// with its streams.
func (env *pathEnv) addEventStream(path, url string, h *bridge.EventStream) {
	env.b.node.services = append(env.b.node.services, serviceUnit{typ: metrics.ServiceEventStream, path: path, url: url,
		stats: h.Stats, streams: func() metrics.StreamStats {
			x := h.StreamStats()
			return metrics.StreamStats{Open: x.Open, Delivered: x.Delivered, SlowClosed: x.SlowClosed, Refused: x.Refused}
		}})
}

// meterProxy counts the requests of a proxy path service (the proxies
// live in web, which counts nothing) and adds it to the node's Stats.
func (env *pathEnv) meterProxy(path, url string, h http.Handler) http.Handler {
	return env.proxyMeter(path, url).Handler(h)
}

// meterReverseProxy is meterProxy for a reverse proxy, whose requests the
// loop engine may serve itself: it counts them too.
func (env *pathEnv) meterReverseProxy(path, url string, p *web.ReverseProxy) http.Handler {
	r := env.proxyMeter(path, url)
	return web.MeteredProxy(p, r.Observe, r.Handler(p))
}

// proxyMeter makes the counts of the proxy path service at path.
func (env *pathEnv) proxyMeter(path, url string) *meter.Requests {
	r := new(meter.Requests)
	env.b.node.services = append(env.b.node.services, serviceUnit{typ: metrics.ServiceProxy, path: path, url: url, stats: r.Snapshot})
	return r
}
