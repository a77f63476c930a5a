package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the node's metrics (read at each scrape), with the Go
// runtime and process collectors, in the Prometheus text exposition
// format (or OpenMetrics, or protobuf, when the scraper asks). Each
// Handler has a registry of its own, so that several nodes can live in one
// process (tests).
func Handler(read func() Stats) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{read: read},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
