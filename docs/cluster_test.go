package docs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/node"
)

// TestClusterWalkthrough starts cluster.md's three nodes (their route
// ports and web ports moved to ports the OS chose) and checks what the
// page shows: every node sees the two others up, and /readyz says so.
func TestClusterWalkthrough(t *testing.T) {
	addrs := clustertest.FreeAddrs(t, 3)
	cfgs := make([]*config.Config, 3)
	for i := range cfgs {
		cfg, _ := load(t, filepath.Join("examples", "cluster", fmt.Sprintf("node%d.json", i+1)))
		emb := cfg.Controller.Cluster.NATS.Embedded
		emb.Listen, emb.Routes = addrs[i], nil
		for j, a := range addrs {
			if j != i {
				emb.Routes = append(emb.Routes, "nats://"+a)
			}
		}
		rewrite(t, cfg)
		cfgs[i] = cfg
	}
	// The nodes start together (each waits for the cluster's table),
	// within the bound the node package's cluster tests give.
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	nodes, errs := make([]*node.Node, 3), make([]error, 3)
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Go(func() { nodes[i], errs[i] = launch(t, ctx, cfg) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		deadline := time.Now().Add(testTimeout)
		r := n.Readiness()
		for !twoUp(r) && time.Now().Before(deadline) {
			<-time.After(20 * time.Millisecond)
			r = n.Readiness()
		}
		if !r.Ready || !twoUp(r) || !strings.HasPrefix(r.Cluster.Member, fmt.Sprintf("node-%d.", i+1)) {
			t.Errorf("node %d: %+v, cluster %+v", i+1, r, r.Cluster)
		}
	}
	base := "http://" + nodes[0].Listeners()[0].Address
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %d", resp.StatusCode)
	}
	var documented []string
	for line := range strings.Lines(section(t, operations, "Metrics")) {
		if m := regexp.MustCompile("^\\| `(junction_cluster_[a-z_]+)` \\|").FindStringSubmatch(line); m != nil {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(documented)
	served := slices.DeleteFunc(families(t, base+"/metrics"), func(f string) bool { return !strings.HasPrefix(f, "junction_cluster_") })
	if len(documented) == 0 || !slices.Equal(served, documented) {
		t.Errorf("/metrics serves %v,\n%s documents %v", served, operations, documented)
	}
}

// twoUp reports whether r shows two other members up.
func twoUp(r node.Readiness) bool {
	if r.Cluster == nil || len(r.Cluster.Members) != 2 {
		return false
	}
	for _, m := range r.Cluster.Members {
		if m.State != "up" {
			return false
		}
	}
	return true
}

// TestClusterExamplesDiffer: the three example nodes differ only in the
// node's name and ports, as cluster.md says.
func TestClusterExamplesDiffer(t *testing.T) {
	var texts []string
	for i := 1; i <= 3; i++ {
		b, err := os.ReadFile(filepath.Join("examples", "cluster", fmt.Sprintf("node%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		s = strings.ReplaceAll(s, fmt.Sprintf("node-%d", i), "node-N")
		for _, p := range []string{"8080", "8081", "8082", "6222", "6223", "6224"} {
			s = strings.ReplaceAll(s, p, "PORT")
		}
		texts = append(texts, s)
	}
	if texts[0] != texts[1] || texts[1] != texts[2] {
		t.Error("the example nodes differ in more than their names and ports")
	}
}
