package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

func histogramOf(ds ...time.Duration) meter.HistogramSnapshot {
	var h meter.Histogram
	for _, d := range ds {
		h.Observe(d)
	}
	return h.Snapshot()
}

// TestCollector: two routers' counters are summed by realm and label, two
// proxy workers' likewise, the services' by type and code, histograms
// come out in seconds.
func TestCollector(t *testing.T) {
	realm := func(sessions int, joins uint64, d time.Duration) router.RealmStats {
		return router.RealmStats{Sessions: sessions, Registrations: 1, Subscriptions: 2, CallsInFlight: 1,
			Joins: map[string]uint64{"ticket": joins}, AuthFailures: map[string]uint64{"ticket": 1},
			CallDurations: histogramOf(d)}
	}
	st := Stats{
		Routers: []RouterStats{
			{Worker: "workers[0]", Stats: router.Stats{SlowConsumers: 1, TooLong: 4, Unencodable: 2,
				Received: router.MessageCounts{"CALL": 3}, Sent: router.MessageCounts{"EVENT": 5, "RESULT": 3},
				CallErrors:        map[string]uint64{"application": 2},
				OtherAuthFailures: map[string]uint64{"other": 4},
				Realms:            map[wamp.URI]router.RealmStats{"realm1": realm(2, 5, time.Millisecond)}}},
			{Worker: "workers[1]", Stats: router.Stats{SlowConsumers: 2, TooLong: 1, Unencodable: 1,
				Received: router.MessageCounts{"CALL": 1}, Sent: router.MessageCounts{"EVENT": 1},
				OtherAuthFailures: map[string]uint64{"ticket": 1},
				Realms: map[wamp.URI]router.RealmStats{"realm1": realm(1, 1, time.Minute),
					"realm2": realm(7, 0, 0)}}},
		},
		Proxies: []ProxyStats{
			{Worker: "workers[2]", Stats: proxy.Stats{Sessions: map[wamp.URI]int{"realm1": 4},
				Joins:        map[proxy.RealmMethod]uint64{{Realm: "realm1", AuthMethod: "ticket"}: 9},
				AuthFailures: map[proxy.RealmMethod]uint64{{Realm: "realm1", AuthMethod: "ticket"}: 2, {Realm: proxy.OtherRealm, AuthMethod: "anonymous"}: 1}}},
			{Worker: "workers[3]", Stats: proxy.Stats{Sessions: map[wamp.URI]int{"realm1": 1},
				ToClient: proxy.Refusals{TooLong: 2, Unencodable: 1}, ToBackend: proxy.Refusals{TooLong: 3},
				AuthFailures: map[proxy.RealmMethod]uint64{{Realm: "realm1", AuthMethod: "ticket"}: 3}}},
		},
		Services: []ServiceStats{
			{Type: ServiceCaller, Requests: requests(200, 200, 500)},
			{Type: ServiceCaller, Requests: requests(200)},
			{Type: ServiceSubscriber, Requests: requests(0), Queue: &QueueStats{Depth: 3, Delivered: 4, Retried: 5, Dropped: 6, QueueFull: 7}},
			{Type: ServiceEventStream, Requests: requests(200), Streams: &StreamStats{Open: 2, Delivered: 40, SlowClosed: 1, Refused: 5}},
			{Type: ServiceEventStream, Requests: requests(), Streams: &StreamStats{Open: 1, Delivered: 2}},
		},
	}
	srv := httptest.NewServer(Handler(func() Stats { return st }))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	for _, want := range []string{
		`junction_sessions{realm="realm1"} 3`,
		`junction_sessions{realm="realm2"} 7`,
		`junction_sessions_joined_total{authmethod="ticket",realm="realm1"} 6`,
		`junction_sessions_joined_total{authmethod="ticket",realm="realm2"} 0`,
		`junction_auth_failures_total{authmethod="ticket",realm="realm1"} 2`,
		`junction_auth_failures_total{authmethod="other",realm="other"} 4`,
		`junction_auth_failures_total{authmethod="ticket",realm="other"} 1`,
		`junction_registrations{realm="realm1"} 2`,
		`junction_subscriptions{realm="realm2"} 2`,
		`junction_calls_in_flight{realm="realm1"} 2`,
		`junction_messages_received_total{type="CALL"} 4`,
		`junction_messages_sent_total{type="EVENT"} 6`,
		`junction_events_delivered_total 6`,
		`junction_slow_consumer_disconnects_total 3`,
		`junction_messages_too_long_total 5`,
		`junction_messages_unencodable_total 3`,
		`junction_call_errors_total{error="application"} 2`,
		`junction_call_duration_seconds_bucket{le="0.0001"} 1`,
		`junction_call_duration_seconds_bucket{le="0.001"} 2`,
		`junction_call_duration_seconds_bucket{le="30"} 2`,
		`junction_call_duration_seconds_bucket{le="+Inf"} 3`,
		`junction_call_duration_seconds_sum 60.001`,
		`junction_call_duration_seconds_count 3`,
		`junction_proxy_sessions{realm="realm1"} 5`,
		`junction_proxy_sessions_joined_total{authmethod="ticket",realm="realm1"} 9`,
		`junction_proxy_auth_failures_total{authmethod="ticket",realm="realm1"} 5`,
		`junction_proxy_auth_failures_total{authmethod="anonymous",realm="other"} 1`,
		`junction_proxy_messages_too_long_total{direction="to_client"} 2`,
		`junction_proxy_messages_too_long_total{direction="to_backend"} 3`,
		`junction_proxy_messages_unencodable_total{direction="to_client"} 1`,
		`junction_proxy_messages_unencodable_total{direction="to_backend"} 0`,
		`junction_bridge_requests_total{code="200",service="caller"} 3`,
		`junction_bridge_requests_total{code="500",service="caller"} 1`,
		`junction_bridge_requests_total{code="0",service="subscriber"} 1`,
		`junction_bridge_request_duration_seconds_count{code="200",service="caller"} 3`,
		`junction_subscriber_queue_depth 3`,
		`junction_subscriber_delivered_total 4`,
		`junction_subscriber_retries_total 5`,
		`junction_subscriber_dropped_total{reason="failed"} 6`,
		`junction_subscriber_dropped_total{reason="queue_full"} 7`,
		`junction_bridge_requests_total{code="200",service="eventstream"} 1`,
		`junction_event_streams 3`,
		`junction_event_stream_events_total 42`,
		`junction_event_stream_slow_closed_total 1`,
		`junction_event_stream_refused_total 5`,
		"# TYPE go_goroutines gauge",
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("no %s in:\n%s", want, body)
		}
	}
}

func requests(codes ...int) meter.RequestStats {
	var r meter.Requests
	for _, c := range codes {
		r.Observe(c, time.Millisecond)
	}
	return r.Snapshot()
}

// TestOtherRealmLabels: the proxies count unrouted realms under the label
// the routers use for unknown realms.
func TestOtherRealmLabels(t *testing.T) {
	if string(proxy.OtherRealm) != OtherRealm {
		t.Errorf("proxy.OtherRealm = %q, router.OtherLabel = %q", proxy.OtherRealm, OtherRealm)
	}
}
