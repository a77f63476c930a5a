package node

import (
	"encoding/json"
	"net/http"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/internal/web"
)

// Readiness is what the "ready" path service answers, as JSON.
type Readiness struct {
	Ready bool `json:"ready"`
	// State is "starting", "running" or "stopping".
	State string `json:"state"`
	// NotReady names what is not ready, each with its JSON path in the
	// config: "workers[0].transports[1]: not listening yet".
	NotReady []string `json:"not_ready,omitempty"`
	// Cluster is the node's view of its cluster (controller.cluster).
	Cluster *ClusterReadiness `json:"cluster,omitempty"`
}

// ClusterReadiness is the node's view of its cluster in Readiness.
type ClusterReadiness struct {
	Member   string `json:"member"` // name.epoch
	Isolated bool   `json:"isolated"`
	// NATS is the state of the node's NATS connection: "connected",
	// "reconnecting", "closed" or "not joined".
	NATS string `json:"nats"`
	// Routes counts the other nodes' NATS servers routed to (embedded).
	Routes  int                 `json:"routes"`
	Members []ClusterMemberInfo `json:"members"`
}

// ClusterMemberInfo is another member in ClusterReadiness.
type ClusterMemberInfo struct {
	Member string `json:"member"`
	// State is "up", "lost" (not heard for a lease, or this node is
	// isolated) or "left" (it said goodbye).
	State string `json:"state"`
	// HeardAgo is the time since its last heartbeat, in seconds.
	HeardAgo float64 `json:"heard_ago"`
	// Refuses: it holds this node lost while this node hears it (a
	// one-way cut): no calls between the two until it hears this node.
	Refuses bool `json:"refuses,omitempty"`
}

// joiner is a component that can tell whether it is joined now (the REST
// components and router links; after a reconnect, from the new join on).
type joiner interface {
	Joined() bool
}

// Readiness reports whether the node is ready for traffic: it has
// started (every listener up) and is not stopping, it has joined its
// cluster (controller.cluster) and is not fenced, and every embedded
// session of the bridge services, every component (REST and Python) and
// every router link is joined now, and every Python web path's process
// serves: one that is away (restarting, reconnecting, or stopped for
// good) makes the node not ready. Safe for concurrent use at any time.
func (n *Node) Readiness() Readiness {
	n.mu.Lock()
	st, bound := n.state, len(n.bound)
	n.mu.Unlock()
	sessions, _, components := n.live()
	r := Readiness{State: st.String()}
	if st != stateRunning {
		r.NotReady = append(r.NotReady, "node: "+r.State)
	}
	if st != stateStopped {
		for _, l := range n.listeners[min(bound, len(n.listeners)):] {
			r.NotReady = append(r.NotReady, l.path+": not listening yet")
		}
	}
	for _, s := range sessions {
		if s.Session() == nil {
			r.NotReady = append(r.NotReady, s.path+": bridge session not joined")
		}
	}
	for _, c := range components {
		if j, ok := c.comp.(joiner); ok && !j.Joined() {
			r.NotReady = append(r.NotReady, c.path+": "+c.kind()+" not joined")
		}
	}
	for _, u := range n.snapshotPyWebs() {
		if !u.sock.Serving() {
			r.NotReady = append(r.NotReady, u.path+": Python web process not serving")
		}
	}
	for _, w := range n.snapshotRunners() {
		for _, c := range w.components() {
			if !c.joined.Load() {
				r.NotReady = append(r.NotReady, c.path+": component not joined")
			}
		}
	}
	if n.cluster != nil {
		r.Cluster = n.clusterReadiness(&r)
	}
	r.Ready = len(r.NotReady) == 0
	return r
}

// clusterReadiness reports the cluster, and adds to r.NotReady when the
// node has not joined or is fenced (isolated, on_isolation fence).
func (n *Node) clusterReadiness(r *Readiness) *ClusterReadiness {
	s := n.cluster.Status()
	switch {
	case !s.Joined:
		r.NotReady = append(r.NotReady, clusterPath+": not joined")
	case s.Fenced:
		r.NotReady = append(r.NotReady, clusterPath+": isolated (hears fewer than a majority of the members)")
	}
	c := &ClusterReadiness{Member: s.Self.String(), Isolated: s.Isolated, NATS: s.NATS, Routes: s.Routes,
		Members: []ClusterMemberInfo{}}
	for _, p := range s.Peers {
		state := "lost"
		switch {
		case p.Up:
			state = "up"
		case p.Left:
			state = "left"
		}
		c.Members = append(c.Members, ClusterMemberInfo{Member: p.Member.String(), State: state, HeardAgo: p.Heard.Seconds(), Refuses: p.Refuses})
	}
	return c
}

// kind names c in the readiness report: a router link, or a component.
func (c *componentUnit) kind() string {
	if c.cfg.Class == rlinkClass {
		return "router link"
	}
	return "component"
}

func (s state) String() string {
	switch s {
	case stateRunning:
		return "running"
	case stateStopped:
		return "stopping"
	}
	return "starting"
}

// buildHealth builds a "health" service: liveness, 200 while the process
// serves HTTP.
func buildHealth(*pathEnv, string, string, config.PathService) (http.Handler, error) {
	return web.OnlyMountPath(probe(func() (int, any) {
		return http.StatusOK, map[string]string{"status": "ok"}
	})), nil
}

// buildReady builds a "ready" service: 200 with the node's Readiness when
// it is ready, 503 with it otherwise.
func buildReady(env *pathEnv, _, _ string, _ config.PathService) (http.Handler, error) {
	n := env.b.node
	return web.OnlyMountPath(probe(func() (int, any) {
		r := n.Readiness()
		if !r.Ready {
			return http.StatusServiceUnavailable, r
		}
		return http.StatusOK, r
	})), nil
}

// buildMetrics builds a "metrics" service: the node's Prometheus metrics,
// behind its require_ip.
func buildMetrics(env *pathEnv, path, _ string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.MetricsService)
	ips, err := bridge.ParseIPRules(s.RequireIP)
	if err != nil {
		return nil, relError(path+".options", err)
	}
	return web.OnlyMountPath(ips.Guard(metrics.Handler(env.b.node.Stats))), nil
}

// probe answers GET and HEAD with fn's status and JSON body, never
// cached.
func probe(fn func() (int, any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		status, body := fn()
		b, _ := json.Marshal(body) // plain strings and bools: cannot fail
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		if r.Method == http.MethodGet {
			_, _ = w.Write(append(b, '\n'))
		}
	})
}
