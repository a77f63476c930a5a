package docs

import (
	"bufio"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/junction-wamp/junction/client"
)

const operations = "operations.md"

// section returns the text of page's "## title" section.
func section(t *testing.T, page, title string) string {
	t.Helper()
	text := readPage(t, page)
	_, after, ok := strings.Cut(text, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", page, title)
	}
	body, _, _ := strings.Cut(after, "\n## ")
	return body
}

// families scrapes url and returns the junction_* metric families.
func families(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var names []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[1] == "TYPE" && strings.HasPrefix(f[2], "junction_") {
			names = append(names, f[2])
		}
	}
	slices.Sort(names)
	return names
}

var metricName = regexp.MustCompile("junction_[a-z_]+")

// TestOperationsMetrics: the Metrics section's table lists exactly the
// metric families the embedded default's /metrics serves, and those of
// the proxy workers.
func TestOperationsMetrics(t *testing.T) {
	r := startExample(t, "minimal.json")
	base := "http://" + r.addr(t, "workers[0].transports[0]")
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	page := must(t)(joinWS(t, ws, client.Config{Realm: "realm1"}))
	defer page.Close()
	// What makes every counter with labels show: a refused join, a call
	// error, a bridge request.
	if _, err := joinWS(t, ws, client.Config{Realm: "no.such.realm"}); err == nil {
		t.Fatal("joined an unknown realm")
	}
	if _, err := page.Call(testCtx(t), "com.example.nothing", nil, nil); err == nil {
		t.Fatal("called a procedure nobody registered")
	}
	resp, err := http.Post(base+"/call", "application/json", strings.NewReader(`{"procedure":"com.example.nothing"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var documented []string
	for line := range strings.Lines(section(t, operations, "Metrics")) {
		if m := regexp.MustCompile("^\\| `(junction_[a-z_]+)` \\|").FindStringSubmatch(line); m != nil {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(documented)
	// The proxy workers' families have series only on a node with a proxy
	// worker, which minimal.json has not (metrics.TestCollector has them),
	// the cluster's only on a node of a cluster (TestClusterWalkthrough).
	documented = slices.DeleteFunc(documented, func(name string) bool {
		return strings.HasPrefix(name, "junction_proxy_") || strings.HasPrefix(name, "junction_cluster_")
	})
	// The bridge counts a request once its handler has returned, which
	// may be just after the client has the answer: scrape until it shows.
	deadline := time.Now().Add(testTimeout)
	served := families(t, base+"/metrics")
	for !slices.Equal(served, documented) && time.Now().Before(deadline) {
		<-time.After(5 * time.Millisecond)
		served = families(t, base+"/metrics")
	}
	if !slices.Equal(served, documented) {
		t.Errorf("/metrics serves %v,\n%s documents %v", served, operations, documented)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
}

// TestPrometheusExamples: the scrape config and alert rules under
// examples/prometheus are YAML, are what operations.md shows, and name
// only metrics that exist (a histogram by its _bucket, _count or _sum).
func TestPrometheusExamples(t *testing.T) {
	known := map[string]bool{}
	for line := range strings.Lines(section(t, operations, "Metrics")) {
		if m := regexp.MustCompile("^\\| `(junction_[a-z_]+)` \\| (\\w+)").FindStringSubmatch(line); m != nil {
			known[m[1]] = true
			if m[2] == "histogram" {
				for _, suffix := range []string{"_bucket", "_count", "_sum"} {
					known[m[1]+suffix] = true
				}
			}
		}
	}
	shown := section(t, operations, "Prometheus scrape config and alert rules")
	for _, name := range []string{"prometheus.yml", "alerts.yml"} {
		b, err := os.ReadFile(filepath.Join("examples", "prometheus", name))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(b, &doc); err != nil || len(doc) == 0 {
			t.Errorf("%s: %v", name, err)
		}
		if !strings.Contains(shown, "```yaml\n"+string(b)+"```") {
			t.Errorf("%s is not shown as is in %s", name, operations)
		}
		for _, m := range metricName.FindAllString(string(b), -1) {
			if !known[m] {
				t.Errorf("%s names %s, which is no metric (%v)", name, m, slices.Sorted(maps.Keys(known)))
			}
		}
	}
}
