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
}

// joiner is a component that can tell whether it is joined now (the REST
// components and router links; after a reconnect, from the new join on).
type joiner interface {
	Joined() bool
}

// Readiness reports whether the node is ready for traffic: it has
// started (every listener up) and is not stopping, and every embedded
// session of the bridge services, every component (REST and Python) and
// every router link is joined now: one that is away (restarting,
// reconnecting, or stopped for good) makes the node not ready. Safe for
// concurrent use at any time.
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
	for _, w := range n.snapshotRunners() {
		for _, c := range w.components() {
			if !c.joined.Load() {
				r.NotReady = append(r.NotReady, c.path+": component not joined")
			}
		}
	}
	r.Ready = len(r.NotReady) == 0
	return r
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
