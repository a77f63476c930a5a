package cluster_test

import (
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/wamp"
)

// TestEarlierLifeCleaned: when every member is cut off at once, none
// reaps another; a node that rejoins deletes what its earlier life left
// in the sess table itself. A testament of a session that left while its
// node was fenced fired then, on its node, and never again; one of a
// session that lives on is kept under the node's new life, and fires
// once when that node is lost.
func TestEarlierLifeCleaned(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(time.Second, 200*time.Millisecond))
	nodes := []*cluster.Node{sites[0].node, sites[1].node, sites[2].node}
	const topic wamp.URI = "com.earlier.will"
	here, there := listen(t, sites[0].own(t), topic), listen(t, sites[1].own(t), topic)
	probe(t, sites[0].own(t), topic, here, there)
	lives, leaves := sites[0].own(t), sites[0].own(t)
	addTestament(t, lives, topic, "lives")
	addTestament(t, leaves, topic, "leaves")
	rostered(t, sites[0])

	var old []cluster.Member
	for _, s := range sites {
		old = append(old, s.node.Self())
		clustertest.Cut(t, s.node)
	}
	waitUntil(t, "every node fenced", func() bool {
		return sites[0].node.Fenced() && sites[1].node.Fenced() && sites[2].node.Fenced()
	})
	leaves.Close()
	if got := here.next(t); got != "leaves" {
		t.Fatalf("testament %q on its node, want leaves", got)
	}
	for _, s := range sites {
		clustertest.Heal(t, s.node)
	}
	waitUntil(t, "every node rejoined", func() bool {
		for i, s := range sites {
			if s.node.Fenced() || s.node.Self() == old[i] {
				return false
			}
		}
		return true
	})
	clustertest.WaitMembers(t, nodes, nodes...)
	waitUntil(t, "the first node's earlier life's records deleted", func() bool {
		n, err := cluster.SessionRecords(sites[1].fabric, old[0])
		return err == nil && n == 0
	})

	probe(t, sites[2].own(t), topic, there) // whichever node reaps the first
	clustertest.Kill(sites[0].node)
	if got := there.next(t); got != "lives" {
		t.Fatalf("testament %q once the node is lost, want lives", got)
	}
	clustertest.WaitMembers(t, nodes[1:], nodes[1:]...)
	if _, err := sites[1].own(t).Publish(ctxFor(t), topic, wamp.List{"end"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := there.next(t); got != "end" {
		t.Errorf("after the testament: %q, want end (each testament once)", got)
	}
}
