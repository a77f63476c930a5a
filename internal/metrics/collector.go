package metrics

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/internal/router"
)

// OtherRealm is the realm label of the refused joins that named no
// configured realm.
const OtherRealm = router.OtherLabel

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("junction_"+name, help, labels, nil)
}

// The metrics, described once.
var (
	descSessions       = desc("sessions", "Sessions joined to the realm now, the node's own included.", "realm")
	descJoined         = desc("sessions_joined_total", "Sessions that joined the realm.", "realm", "authmethod")
	descAuthFailures   = desc("auth_failures_total", "Joins refused after HELLO (authentication failed or denied, unknown realm, role not allowed, no method, throttled); realm \"other\" when the HELLO named no configured realm.", "realm", "authmethod")
	descReceived       = desc("messages_received_total", "WAMP messages received by the routers.", "type")
	descSent           = desc("messages_sent_total", "WAMP messages sent (queued to the connection) by the routers; not those their receiver refused (messages_too_long_total, messages_unencodable_total).", "type")
	descInFlight       = desc("calls_in_flight", "Calls routed to a callee and not answered yet.", "realm")
	descCallDuration   = desc("call_duration_seconds", "Time from CALL to its final RESULT or ERROR at the router, for calls routed to a callee.")
	descCallErrors     = desc("call_errors_total", "ERRORs answering CALLs, by URI: a wamp.error.* URI the router knows (or junction.error.limit_exceeded, cluster_unavailable, cluster_isolated), else \"application\".", "error")
	descEvents         = desc("events_delivered_total", "EVENTs sent to subscribers.")
	descSlow           = desc("slow_consumer_disconnects_total", "Sessions closed because their peer did not read fast enough.")
	descTooLong        = desc("messages_too_long_total", "WAMP messages not sent because they were longer than their receiver accepts (a RawSocket client's maximum message length).")
	descUnencodable    = desc("messages_unencodable_total", "WAMP messages not sent because they held a value their receiver's serializer cannot encode (an in-process session's NaN for a JSON client, say).")
	descRegistrations  = desc("registrations", "Registrations on the realm now.", "realm")
	descSubscriptions  = desc("subscriptions", "Subscriptions on the realm now.", "realm")
	descProxySessions  = desc("proxy_sessions", "Client sessions that proxy workers relay now (their backend routers count them too, as logged in by the proxy).", "realm")
	descProxyJoined    = desc("proxy_sessions_joined_total", "Client sessions that proxy workers authenticated and relayed, by the method the client authenticated with.", "realm", "authmethod")
	descProxyTooLong   = desc("proxy_messages_too_long_total", "Messages that proxy workers did not relay because they were longer than their receiver accepts (a RawSocket's maximum message length): a backend router's for a client (direction to_client), a client's for a backend router (to_backend).", "direction")
	descProxyUnencode  = desc("proxy_messages_unencodable_total", "Messages that proxy workers did not relay because they held a value their receiver's serializer cannot encode: a backend router's for a client (direction to_client), a client's for a backend router (to_backend).", "direction")
	descProxyFailures  = desc("proxy_auth_failures_total", "Joins that proxy workers refused after HELLO (authentication failed or denied, no route, backend refused or unreachable, throttled); realm \"other\" when no route names the HELLO's realm.", "realm", "authmethod")
	descBridgeRequests = desc("bridge_requests_total", "HTTP requests of the bridge: answered by the caller, publisher, webhook and proxy services, made by the callee and subscriber components; code 0 is no response.", "service", "code")
	descBridgeDuration = desc("bridge_request_duration_seconds", "Duration of the bridge's HTTP requests.", "service", "code")
	descQueueDepth     = desc("subscriber_queue_depth", "Events waiting in the subscriber components' queues.")
	descDelivered      = desc("subscriber_delivered_total", "Events the subscriber components delivered.")
	descRetries        = desc("subscriber_retries_total", "Delivery retries of the subscriber components.")
	descDropped        = desc("subscriber_dropped_total", "Events the subscriber components lost: after failing (reason failed) or never tried, their queue being full (reason queue_full).", "reason")
	descStreams        = desc("event_streams", "Event streams open now (eventstream path services).")
	descStreamEvents   = desc("event_stream_events_total", "Events written to the clients of event streams.")
	descStreamSlow     = desc("event_stream_slow_closed_total", "Event stream clients closed because they did not read fast enough (their queue was full).")
	descStreamRefused  = desc("event_stream_refused_total", "Event streams refused (503) because max_streams or max_streams_per_ip were open.")
)

var allDescs = []*prometheus.Desc{
	descSessions, descJoined, descAuthFailures, descReceived, descSent, descInFlight,
	descCallDuration, descCallErrors, descEvents, descSlow, descTooLong, descUnencodable, descRegistrations, descSubscriptions,
	descProxySessions, descProxyJoined, descProxyFailures, descProxyTooLong, descProxyUnencode,
	descBridgeRequests, descBridgeDuration, descQueueDepth, descDelivered, descRetries, descDropped,
	descStreams, descStreamEvents, descStreamSlow, descStreamRefused,
	descClusterUp, descClusterMembers, descClusterIsolated, descClusterIsolations,
	descClusterNATS, descClusterRoutes, descClusterMessages, descClusterGaps,
}

// collector reads a Stats at each scrape and turns it into constant
// metrics: the counters are summed over the routers and services here,
// not kept twice.
type collector struct {
	read func() Stats
}

var _ prometheus.Collector = collector{}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	st := c.read()
	collectRouters(ch, st.Routers)
	collectProxies(ch, st.Proxies)
	collectServices(ch, st.Services)
	collectCluster(ch, st.Cluster)
}

// realmSums are the routers' per-realm numbers summed by realm name.
type realmSums struct {
	sessions, inFlight, regs, subs map[string]float64
	joined, failures               map[[2]string]uint64 // realm, authmethod
}

func collectRouters(ch chan<- prometheus.Metric, routers []RouterStats) {
	rs := realmSums{sessions: map[string]float64{}, inFlight: map[string]float64{}, regs: map[string]float64{},
		subs: map[string]float64{}, joined: map[[2]string]uint64{}, failures: map[[2]string]uint64{}}
	received, sent, callErrors := map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
	var slow, tooLong, unencodable uint64
	var durations meter.HistogramSnapshot
	for _, r := range routers {
		rs.add(r.Stats, &durations)
		addAll(received, r.Received)
		addAll(sent, r.Sent)
		addAll(callErrors, r.CallErrors)
		slow += r.SlowConsumers
		tooLong += r.TooLong
		unencodable += r.Unencodable
	}
	rs.collect(ch)
	counters(ch, descReceived, received)
	counters(ch, descSent, sent)
	counters(ch, descCallErrors, callErrors)
	ch <- prometheus.MustNewConstMetric(descEvents, prometheus.CounterValue, float64(sent[wampEvent]))
	ch <- prometheus.MustNewConstMetric(descSlow, prometheus.CounterValue, float64(slow))
	ch <- prometheus.MustNewConstMetric(descTooLong, prometheus.CounterValue, float64(tooLong))
	ch <- prometheus.MustNewConstMetric(descUnencodable, prometheus.CounterValue, float64(unencodable))
	ch <- histogram(descCallDuration, durations)
}

// wampEvent is the EVENT message's type label.
const wampEvent = "EVENT"

func (rs *realmSums) add(st router.Stats, durations *meter.HistogramSnapshot) {
	for name, r := range st.Realms {
		realm := string(name)
		rs.sessions[realm] += float64(r.Sessions)
		rs.inFlight[realm] += float64(r.CallsInFlight)
		rs.regs[realm] += float64(r.Registrations)
		rs.subs[realm] += float64(r.Subscriptions)
		for m, v := range r.Joins {
			rs.joined[[2]string{realm, m}] += v
		}
		for m, v := range r.AuthFailures {
			rs.failures[[2]string{realm, m}] += v
		}
		durations.Merge(r.CallDurations)
	}
	for m, v := range st.OtherAuthFailures {
		rs.failures[[2]string{OtherRealm, m}] += v
	}
}

func (rs *realmSums) collect(ch chan<- prometheus.Metric) {
	gauges(ch, descSessions, rs.sessions)
	gauges(ch, descInFlight, rs.inFlight)
	gauges(ch, descRegistrations, rs.regs)
	gauges(ch, descSubscriptions, rs.subs)
	pairCounters(ch, descJoined, rs.joined)
	pairCounters(ch, descAuthFailures, rs.failures)
}

func compareKeys(a, b [2]string) int {
	if a[0] != b[0] {
		return strings.Compare(a[0], b[0])
	}
	return strings.Compare(a[1], b[1])
}

func addAll(to, from map[string]uint64) {
	for k, v := range from {
		to[k] += v
	}
}

func gauges(ch chan<- prometheus.Metric, d *prometheus.Desc, m map[string]float64) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, m[k], k)
	}
}

func counters(ch chan<- prometheus.Metric, d *prometheus.Desc, m map[string]uint64) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(m[k]), k)
	}
}

// histogram is h as a Prometheus histogram, in seconds.
func histogram(d *prometheus.Desc, h meter.HistogramSnapshot, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(meter.Bounds))
	for i, b := range meter.Bounds {
		buckets[b.Seconds()] = h.Buckets[i]
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum.Seconds(), buckets, labels...)
}

// collectProxies sums the proxy workers' counters by realm and method.
func collectProxies(ch chan<- prometheus.Metric, proxies []ProxyStats) {
	sessions := map[string]float64{}
	joined, failures := map[[2]string]uint64{}, map[[2]string]uint64{}
	var toClient, toBackend proxy.Refusals
	for _, p := range proxies {
		toClient.TooLong += p.ToClient.TooLong
		toClient.Unencodable += p.ToClient.Unencodable
		toBackend.TooLong += p.ToBackend.TooLong
		toBackend.Unencodable += p.ToBackend.Unencodable
		for realm, n := range p.Sessions {
			sessions[string(realm)] += float64(n)
		}
		for k, n := range p.Joins {
			joined[[2]string{string(k.Realm), k.AuthMethod}] += n
		}
		for k, n := range p.AuthFailures {
			failures[[2]string{string(k.Realm), k.AuthMethod}] += n
		}
	}
	gauges(ch, descProxySessions, sessions)
	pairCounters(ch, descProxyJoined, joined)
	pairCounters(ch, descProxyFailures, failures)
	if len(proxies) > 0 { // no series on a node without a proxy worker, as the others
		for _, d := range []struct {
			name string
			n    proxy.Refusals
		}{{proxy.ToClient, toClient}, {proxy.ToBackend, toBackend}} {
			ch <- prometheus.MustNewConstMetric(descProxyTooLong, prometheus.CounterValue, float64(d.n.TooLong), d.name)
			ch <- prometheus.MustNewConstMetric(descProxyUnencode, prometheus.CounterValue, float64(d.n.Unencodable), d.name)
		}
	}
}

// pairCounters sends the counters of m, labelled by each key's two
// values, in order.
func pairCounters(ch chan<- prometheus.Metric, d *prometheus.Desc, m map[[2]string]uint64) {
	for _, k := range slices.SortedFunc(maps.Keys(m), compareKeys) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(m[k]), k[0], k[1])
	}
}

// serviceCode is a (service type, status code) series.
type serviceCode struct {
	service string
	code    int
}

func collectServices(ch chan<- prometheus.Metric, services []ServiceStats) {
	byCode := map[serviceCode]*meter.HistogramSnapshot{}
	var q QueueStats
	var st StreamStats
	for _, s := range services {
		if s.Streams != nil {
			st.Open += s.Streams.Open
			st.Delivered += s.Streams.Delivered
			st.SlowClosed += s.Streams.SlowClosed
			st.Refused += s.Streams.Refused
		}
		for _, c := range s.Requests.Codes {
			k := serviceCode{s.Type, c.Code}
			if byCode[k] == nil {
				byCode[k] = &meter.HistogramSnapshot{}
			}
			byCode[k].Merge(c.Duration)
		}
		if s.Queue != nil {
			q.Depth += s.Queue.Depth
			q.Delivered += s.Queue.Delivered
			q.Retried += s.Queue.Retried
			q.Dropped += s.Queue.Dropped
			q.QueueFull += s.Queue.QueueFull
		}
	}
	keys := slices.SortedFunc(maps.Keys(byCode), func(a, b serviceCode) int {
		if a.service != b.service {
			return strings.Compare(a.service, b.service)
		}
		return a.code - b.code
	})
	for _, k := range keys {
		h, code := byCode[k], strconv.Itoa(k.code)
		ch <- prometheus.MustNewConstMetric(descBridgeRequests, prometheus.CounterValue, float64(h.Count), k.service, code)
		ch <- histogram(descBridgeDuration, *h, k.service, code)
	}
	ch <- prometheus.MustNewConstMetric(descQueueDepth, prometheus.GaugeValue, float64(q.Depth))
	ch <- prometheus.MustNewConstMetric(descDelivered, prometheus.CounterValue, float64(q.Delivered))
	ch <- prometheus.MustNewConstMetric(descRetries, prometheus.CounterValue, float64(q.Retried))
	ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(q.Dropped), "failed")
	ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(q.QueueFull), "queue_full")
	ch <- prometheus.MustNewConstMetric(descStreams, prometheus.GaugeValue, float64(st.Open))
	ch <- prometheus.MustNewConstMetric(descStreamEvents, prometheus.CounterValue, float64(st.Delivered))
	ch <- prometheus.MustNewConstMetric(descStreamSlow, prometheus.CounterValue, float64(st.SlowClosed))
	ch <- prometheus.MustNewConstMetric(descStreamRefused, prometheus.CounterValue, float64(st.Refused))
}
