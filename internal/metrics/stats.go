// Package metrics turns a snapshot of the node's counters (Stats: the
// routers', the bridge services', the proxies') into Prometheus metrics,
// with the Go runtime and process collectors, and serves them in the text
// exposition format. The counters themselves are atomics in the structs
// that count (router, bridge, meter); they are read and summed at scrape
// time, so the routing hot path knows nothing of Prometheus. This is the
// only package that imports client_golang.
package metrics

import (
	"time"

	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/internal/router"
)

// Stats is a snapshot of a node's counters: what the metrics path service
// exposes and the dashboard shows.
type Stats struct {
	Started  time.Time      // when the node started; zero before
	Routers  []RouterStats  // the router workers', in config order
	Proxies  []ProxyStats   // the proxy workers', in config order
	Services []ServiceStats // the bridge services, REST components and proxies, in config order
	Cluster  *ClusterStats  // controller.cluster's member; nil without a cluster
}

// RouterStats are one router worker's counters. Stats.Realms holds its
// configured realms (and only those).
type RouterStats struct {
	Worker string // its JSON path, "workers[0]"
	router.Stats
}

// ProxyStats are one proxy worker's counters of its client sessions.
type ProxyStats struct {
	Worker string // its JSON path, "workers[1]"
	proxy.Stats
}

// Service types, the values of the "service" label.
const (
	ServiceCaller      = "caller"
	ServicePublisher   = "publisher"
	ServiceWebhook     = "webhook"
	ServiceEventStream = "eventstream"
	ServiceAPI         = "api"
	ServiceCallee      = "callee"
	ServiceSubscriber  = "subscriber"
	ServiceProxy       = "proxy"
)

// ServiceStats are one HTTP bridge service's counters: a path service
// (Caller, Publisher, Webhook, event stream, API, reverse proxy,
// WebSocket proxy) counts the requests it answered, a REST component (Callee,
// Subscriber) the requests it made.
type ServiceStats struct {
	Type     string // one of the Service constants
	Path     string // its JSON path in the config, "workers[0].transports[0].paths.call"
	URL      string // the web path it serves, "/call"; "" for a component
	Requests meter.RequestStats
	Queue    *QueueStats  // a Subscriber's deliveries; nil for the others
	Streams  *StreamStats // an event stream's streams; nil for the others
}

// StreamStats are an event stream service's streams.
type StreamStats struct {
	Open       int64  // streams open now
	Delivered  uint64 // events written to the streams' clients
	SlowClosed uint64 // clients closed because their queue was full
	Refused    uint64 // streams refused over max_streams or max_streams_per_ip
}

// QueueStats are a Subscriber's deliveries.
type QueueStats struct {
	Depth     int    // events waiting in its queues now
	Delivered uint64 // events the target accepted
	Retried   uint64 // retry attempts
	Dropped   uint64 // events given up after trying
	QueueFull uint64 // events dropped because their queue was full
}
