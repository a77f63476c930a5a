package node

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/config"
)

// clusterNodeDoc is a node of cluster "t" named name, listening for
// routes on listen, routed to routes.
func clusterNodeDoc(name, listen string, routes ...string) string {
	var rs []string
	for _, r := range routes {
		rs = append(rs, fmt.Sprintf("%q", "nats://"+r))
	}
	return `{"version": 2, "controller": {"cluster": {"name": "t", "node": "` + name + `",
		"nats": {"embedded": {"listen": "` + listen + `", "routes": [` + strings.Join(rs, ",") + `]}}}},
		"workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`
}

// startClusterNodes starts two nodes n1 and n2 of a cluster at once
// (with lease, or the default), stopped at the end of the test.
func startClusterNodes(t *testing.T, lease time.Duration) []*Node {
	t.Helper()
	return startCluster(t, 2, func(addrs []string) []*Node {
		nodes := make([]*Node, 2)
		for i := range nodes {
			cfg := parse(t, clusterNodeDoc(fmt.Sprintf("n%d", i+1), addrs[i], addrs[1-i]), nil)
			if lease != 0 {
				cfg.Controller.Cluster.Lease = lease
			}
			n, err := New(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			nodes[i] = n
		}
		return nodes
	})
}

// TestClusterNodes: two nodes of one cluster start (the cluster first),
// see each other, report it in their readiness, and a node that stops
// leaves at once.
func TestClusterNodes(t *testing.T) {
	nodes := startClusterNodes(t, 0)
	members := []*cluster.Node{nodes[0].cluster, nodes[1].cluster}
	clustertest.WaitMembers(t, members, members...)
	code, r := serveReady(t, nodes[0])
	if code != http.StatusOK || r.Cluster == nil || r.Cluster.NATS != "connected" || r.Cluster.Routes != 1 ||
		len(r.Cluster.Members) != 1 || r.Cluster.Members[0].State != "up" || r.Cluster.Member != nodes[0].cluster.Self().String() {
		t.Fatalf("ready %d %+v, cluster %+v", code, r, r.Cluster)
	}
	if st := nodes[0].Stats().Cluster; st == nil || !st.Joined || !st.NATSConnected || len(st.Peers) != 1 || !st.Peers[0].Up || st.Peers[0].Name != "n2" {
		t.Errorf("metrics' cluster %+v", st)
	}
	left := make(chan cluster.MemberEvent, 8)
	stop := nodes[0].cluster.Watch(func(ev cluster.MemberEvent) {
		if !ev.Up {
			left <- ev
		}
	})
	defer stop()
	if err := nodes[1].Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if ev := <-left; ev.Member.Name != "n2" {
		t.Errorf("lost %v, want n2", ev.Member)
	}
	if _, r := serveReady(t, nodes[0]); r.Cluster.Members[0].State != "left" {
		t.Errorf("after n2 stopped: %+v", r.Cluster.Members)
	}
}

// TestClusterListenTaken: a node whose route port is taken fails to
// start, naming the cluster's path and the port.
func TestClusterListenTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n, err := New(parse(t, clusterNodeDoc("n1", l.Addr().String(), "127.0.0.1:1"), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Start(testCtx(t))
	_, port, _ := net.SplitHostPort(l.Addr().String())
	if err == nil || !strings.HasPrefix(err.Error(), "controller.cluster: ") || !strings.Contains(err.Error(), port) {
		t.Fatalf("Start: %v, want an error at controller.cluster naming port %s", err, port)
	}
	if code, r := serveReady(t, n); code == http.StatusOK {
		t.Errorf("ready after a failed start: %+v", r)
	}
}

// TestClusterTLSFilesChecked: the routes' TLS files are read by New (and
// so by check), the error at the tls path.
func TestClusterTLSFilesChecked(t *testing.T) {
	cfg := parse(t, clusterNodeDoc("n1", "127.0.0.1:6222", "127.0.0.1:6223"), nil)
	cfg.Controller.Cluster.NATS.Embedded.TLS = &config.ServerTLS{Key: "nope.key", Certificate: "nope.crt"}
	_, err := New(cfg, Options{Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "controller.cluster.nats.embedded.tls") {
		t.Fatalf("New: %v, want an error at controller.cluster.nats.embedded.tls", err)
	}
}

// TestNoClusterNoNATS: without controller.cluster the node has no
// cluster member and its readiness says nothing of one.
func TestNoClusterNoNATS(t *testing.T) {
	n := start(t, zeroPorts(parse(t, opsDoc(`[]`), nil)), t.TempDir())
	if n.cluster != nil {
		t.Fatal("a cluster member without controller.cluster")
	}
	if _, r := serveReady(t, n); r.Cluster != nil {
		t.Errorf("readiness %+v", r)
	}
}

// TestClusterFencedNotReady: a node of two whose peer dies is isolated
// (one of two is no majority) and, fencing, not ready until the peer is
// back.
func TestClusterFencedNotReady(t *testing.T) {
	nodes := startClusterNodes(t, 2*time.Second) // the least lease the config allows
	survivor := nodes[0].cluster
	clustertest.WaitMembers(t, []*cluster.Node{survivor, nodes[1].cluster}, survivor, nodes[1].cluster)
	self := survivor.Self()
	fenced := make(chan struct{})
	stop := survivor.Watch(func(ev cluster.MemberEvent) {
		if ev.Member == self && !ev.Up {
			close(fenced)
		}
	})
	defer stop()
	clustertest.Kill(nodes[1].cluster)
	select {
	case <-fenced:
	case <-time.After(testTimeout):
		t.Fatal("the survivor was not isolated")
	}
	code, r := serveReady(t, nodes[0])
	want := "controller.cluster: isolated (hears fewer than a majority of the members)"
	if code != http.StatusServiceUnavailable || !slices.Contains(r.NotReady, want) || !r.Cluster.Isolated {
		t.Errorf("fenced: %d %+v, want 503 with %q", code, r, want)
	}
	if st := nodes[0].Stats().Cluster; !st.Isolated || !st.Fenced || st.Isolations != 1 {
		t.Errorf("metrics' cluster %+v", st)
	}
}
