package metrics

import "github.com/prometheus/client_golang/prometheus"

// ClusterStats is the node's member of its cluster (controller.cluster),
// as the collector reads it: plain values, so that this package needs
// nothing of NATS.
type ClusterStats struct {
	Joined, Isolated, Fenced bool
	Isolations               uint64
	NATSConnected            bool
	Routes                   int           // to the other nodes' NATS servers
	Peers                    []ClusterPeer // the other members it knows
	// Messages between members: sent and received by this node, lost
	// (missing from a sender's sequence) in gaps, dropped on arrival.
	Sent, Received, Lost, Gaps, Dropped uint64
	// EventsDropped counts the publications between members dropped, by
	// reason (member_lost, send_failed, no_realm, malformed).
	EventsDropped map[string]uint64
}

// ClusterPeer is another member: its name (a bounded label: the nodes
// of the cluster), whether it is live, and whether it holds this node
// lost while this node hears it (a one-way cut).
type ClusterPeer struct {
	Name        string
	Up, Refuses bool
}

var (
	descClusterUp         = desc("cluster_member_up", "1 while another member of the cluster is live as this node sees it, else 0 (lost, left, or this node isolated).", "member")
	descClusterRefuses    = desc("cluster_member_refuses", "1 while another member holds this node lost although this node hears it (a one-way cut: no calls between the two), else 0.", "member")
	descClusterMembers    = desc("cluster_members", "Live members of the cluster as this node sees it, itself included (0 while fenced).")
	descClusterIsolated   = desc("cluster_isolated", "1 while this node hears fewer than a majority of the members it knows.")
	descClusterIsolations = desc("cluster_isolations_total", "Times this node was isolated.")
	descClusterNATS       = desc("cluster_nats_connected", "1 while the node's NATS connection is up.")
	descClusterRoutes     = desc("cluster_routes", "Other nodes' NATS servers the embedded server has a route to.")
	descClusterMessages   = desc("cluster_messages_total", "Messages between members: sent and received by this node, lost (missing from a sender's sequence), dropped on arrival (for an earlier epoch, from a lost member, of no handler).", "result")
	descClusterGaps       = desc("cluster_gaps_total", "Gaps found in the senders' sequences (each is logged).")
	descClusterEvDropped  = desc("cluster_events_dropped_total", "Publications between members dropped (logged, rate-limited): from or to a member held lost (member_lost), not sent (send_failed: fenced, stopping, NATS refused), for a realm not served here (no_realm), not encodable or decodable (malformed).", "reason")
)

// collectCluster sends the cluster's metrics; none without a cluster.
func collectCluster(ch chan<- prometheus.Metric, c *ClusterStats) {
	if c == nil {
		return
	}
	members := 0
	if c.Joined && !c.Fenced {
		members = 1
	}
	for _, p := range c.Peers {
		ch <- prometheus.MustNewConstMetric(descClusterUp, prometheus.GaugeValue, boolValue(p.Up), p.Name)
		ch <- prometheus.MustNewConstMetric(descClusterRefuses, prometheus.GaugeValue, boolValue(p.Refuses), p.Name)
		if p.Up {
			members++
		}
	}
	ch <- prometheus.MustNewConstMetric(descClusterMembers, prometheus.GaugeValue, float64(members))
	ch <- prometheus.MustNewConstMetric(descClusterIsolated, prometheus.GaugeValue, boolValue(c.Isolated))
	ch <- prometheus.MustNewConstMetric(descClusterIsolations, prometheus.CounterValue, float64(c.Isolations))
	ch <- prometheus.MustNewConstMetric(descClusterNATS, prometheus.GaugeValue, boolValue(c.NATSConnected))
	ch <- prometheus.MustNewConstMetric(descClusterRoutes, prometheus.GaugeValue, float64(c.Routes))
	for _, m := range []struct {
		result string
		n      uint64
	}{{"sent", c.Sent}, {"received", c.Received}, {"lost", c.Lost}, {"dropped", c.Dropped}} {
		ch <- prometheus.MustNewConstMetric(descClusterMessages, prometheus.CounterValue, float64(m.n), m.result)
	}
	ch <- prometheus.MustNewConstMetric(descClusterGaps, prometheus.CounterValue, float64(c.Gaps))
	for reason, n := range c.EventsDropped {
		ch <- prometheus.MustNewConstMetric(descClusterEvDropped, prometheus.CounterValue, float64(n), reason)
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
