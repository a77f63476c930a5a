package cluster_test

import (
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// TestReaperWithoutTheRealm: the node that reaps a lost member but does
// not serve a realm of its sessions hands them over to a member that
// does, whose watchers hear their leaving, and testaments, once. Three
// nodes, realm1 on the first two only; the second stops reaping (it is
// leaving), so the third, without realm1, reaps the first.
func TestReaperWithoutTheRealm(t *testing.T) {
	realm1 := []router.RealmOptions{{Name: "realm1"}}
	sites := startSitesServing(t, [][]router.RealmOptions{realm1, realm1, {{Name: "realm2"}}},
		clustertest.Lease(time.Second, 200*time.Millisecond))
	const topic wamp.URI = "com.handover.will"
	watchers := []metaSeen{watchLeaving(t, sites[1])}
	will := listen(t, sites[1].join(t), topic)
	interestEverywhere(t, sites[:2], sites[1:2], leavingTopics...)
	hearJoins(t, sites[:2], watchers)
	a := sites[0].join(t)
	register(t, a, "com.handover.proc", answer("a"), nil)
	subscribe(t, a, "com.handover.topic", nil)
	addTestament(t, a, topic, "handed over")
	rostered(t, sites[0])
	waitUntil(t, "the third node mirrors the second's interest in realm1", func() bool {
		return len(cluster.Interested(sites[2].fabric, "realm1", onLeave)) == 1
	})

	lost := sites[0].node.Self()
	sites[1].fabric.Leave() // it delivers on, and reaps no more
	clustertest.Kill(sites[0].node)
	waitUntil(t, "the third node reaps the first", func() bool { return cluster.Reaped(sites[2].fabric) == 1 })
	noRecords(t, sites[2], lost)
	// The second node publishes what it was handed over once it holds the
	// first lost itself; then a marker's leaving, after which nothing more
	// of a's comes.
	heard := map[[2]any]int{}
	watchers[0].until(t, map[[2]any]int{{onLeave, a.ID()}: 1}, heard)
	marker := sites[1].join(t)
	marker.Close()
	watchers[0].until(t, map[[2]any]int{{onLeave, marker.ID()}: 1}, heard)
	exactly(t, 1, heard, leftOnce(a))
	if got := will.next(t); got != "handed over" {
		t.Errorf("testament %q", got)
	}
	select {
	case got := <-will:
		t.Errorf("a second testament %q", got)
	default:
	}
}
