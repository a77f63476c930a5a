package config

import (
	"reflect"
	"testing"
)

func TestOpsServicesDecode(t *testing.T) {
	c, _, errs := parseTest(t, web(`{"metrics": {"type": "metrics", "options": {"require_ip": ["127.0.0.1", "10.0.0.0/8"]}},
		"m2": {"type": "metrics"}, "healthz": {"type": "health"}, "readyz": {"type": "ready"}}`), JSON)
	if errs != nil {
		t.Fatal(errs)
	}
	paths := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths
	want := Paths{
		"metrics": &MetricsService{RequireIP: []string{"127.0.0.1", "10.0.0.0/8"}},
		"m2":      &MetricsService{},
		"healthz": &HealthService{},
		"readyz":  &ReadyService{},
	}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %#v,\nwant %#v", paths, want)
	}
}
