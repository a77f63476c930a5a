package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// scrape returns the metrics of st as the handler serves them.
func scrape(t *testing.T, st Stats) string {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler(func() Stats { return st }).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// TestClusterMetrics: the members by name, the node's isolation and NATS
// link, the messages by result; no cluster metric without a cluster.
func TestClusterMetrics(t *testing.T) {
	body := scrape(t, Stats{Cluster: &ClusterStats{Joined: true, Isolated: true, Isolations: 2, NATSConnected: true, Routes: 2,
		Peers: []ClusterPeer{{Name: "node-2", Up: true, Refuses: true}, {Name: "node-3"}},
		Sent:  10, Received: 9, Lost: 3, Gaps: 1, Dropped: 4,
		EventsDropped: map[string]uint64{"member_lost": 5, "send_failed": 0}}})
	for _, want := range []string{
		`junction_cluster_member_up{member="node-2"} 1`,
		`junction_cluster_member_up{member="node-3"} 0`,
		`junction_cluster_member_refuses{member="node-2"} 1`,
		`junction_cluster_member_refuses{member="node-3"} 0`,
		`junction_cluster_members 2`,
		`junction_cluster_isolated 1`,
		`junction_cluster_isolations_total 2`,
		`junction_cluster_nats_connected 1`,
		`junction_cluster_routes 2`,
		`junction_cluster_messages_total{result="sent"} 10`,
		`junction_cluster_messages_total{result="received"} 9`,
		`junction_cluster_messages_total{result="lost"} 3`,
		`junction_cluster_messages_total{result="dropped"} 4`,
		`junction_cluster_gaps_total 1`,
		`junction_cluster_events_dropped_total{reason="member_lost"} 5`,
		`junction_cluster_events_dropped_total{reason="send_failed"} 0`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("no %s in:\n%s", want, body)
		}
	}
	if fenced := scrape(t, Stats{Cluster: &ClusterStats{Joined: true, Fenced: true}}); !strings.Contains(fenced, "junction_cluster_members 0\n") {
		t.Errorf("a fenced node counts itself:\n%s", fenced)
	}
	if body := scrape(t, Stats{}); strings.Contains(body, "junction_cluster_") {
		t.Errorf("cluster metrics without a cluster:\n%s", body)
	}
}
