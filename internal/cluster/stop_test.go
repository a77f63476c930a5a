package cluster_test

import (
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/wamp"
)

// stopSite stops s as a node does (internal/node): the fabric told
// first, then the router, the fabric and the member.
func stopSite(s *site) {
	s.fabric.Leave()
	s.router.Close()
	s.fabric.Close()
	s.node.Close()
}

// stopBound bounds the stop of the last node: the fixed stop takes tens
// of milliseconds; a table write waiting for a quorum took 5 s.
const stopBound = 3 * time.Second

// TestLastNodeStops: the last node of a cluster, the two others gone
// before it (its tables have lost their quorum), stops at once, with its
// sessions subscribed, registered and holding testaments, rather than
// waiting for writes and reads that the tables never answer. Its server
// leads every table, so that each write waits for its timeout (without a
// leader it would fail sooner).
func TestLastNodeStops(t *testing.T) {
	sites := startSites(t, 3)
	for _, s := range sites {
		c := s.join(t)
		if _, err := c.Subscribe(ctxFor(t), "com.stop.topic", func(*client.Event) {}, nil); err != nil {
			t.Fatal(err)
		}
		register(t, c, "com.stop.proc", answer(s.node.Self().Name), wamp.Dict{"invoke": "roundrobin"})
		addTestament(t, c, "com.stop.will", "gone")
	}
	for _, s := range sites {
		rostered(t, s)
	}
	if err := cluster.LeadTables(ctxFor(t), sites[0].node, "sess", "reg", "sub", "ret"); err != nil {
		t.Fatal(err)
	}
	stopSite(sites[2])
	stopSite(sites[1])
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		stopSite(sites[0])
	}()
	select {
	case <-stopped:
	case <-time.After(stopBound):
		t.Fatalf("the last node did not stop within %v", stopBound)
	}
}
