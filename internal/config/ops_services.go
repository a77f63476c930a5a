package config

// MetricsService is a path service of "type": "metrics": the node's
// Prometheus metrics in the text exposition format.
type MetricsService struct {
	// RequireIP is "options.require_ip": when not empty, only clients from
	// these addresses or networks ("10.0.0.0/8", "::1") are served; others
	// get 403, as the bridge services' option of the same name. Entries
	// are parsed when the node is built.
	RequireIP []string
}

// HealthService is a path service of "type": "health": liveness, 200
// while the node serves.
type HealthService struct{}

// ReadyService is a path service of "type": "ready": readiness, 200 once
// every listener is up and every component has joined, else 503 with what
// is not ready.
type ReadyService struct{}

// PathType returns "metrics".
func (*MetricsService) PathType() string { return "metrics" }

// PathType returns "health".
func (*HealthService) PathType() string { return "health" }

// PathType returns "ready".
func (*ReadyService) PathType() string { return "ready" }

func (d *decoder) metricsService(o *object) *MetricsService {
	return &MetricsService{RequireIP: requireIPOption(o)}
}

// requireIPOption decodes the "options" of a path service whose only
// option is "require_ip" (metrics, dashboard).
func requireIPOption(o *object) []string {
	oo, ok := o.child("options")
	if !ok {
		return nil
	}
	defer oo.done()
	return oo.strList("require_ip")
}
