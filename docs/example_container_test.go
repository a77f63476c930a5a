package docs

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
)

// TestContainerExample checks examples/container.json, the configuration
// deploy/Dockerfile's container runs: its web transport listens on every
// interface at the port the Dockerfile exposes and probes, and (ports
// rewritten to 127.0.0.1, as in every test) it serves WAMP, the probes,
// the metrics and the dashboard.
func TestContainerExample(t *testing.T) {
	cfg, _ := load(t, filepath.Join("examples", "container.json"))
	web := cfg.Workers[0].(*config.RouterWorker).Transports[0].(*config.WebTransport)
	if e := web.Endpoint; e.Type != "tcp" || e.Interface != "" || e.Port != 8080 {
		t.Errorf("endpoint %+v, want TCP port 8080 on every interface", e)
	}
	dockerfile := readPage(t, "../deploy/Dockerfile")
	for _, want := range []string{"docs/examples/container.json", "\nEXPOSE 8080\n", `"http://127.0.0.1:8080/healthz"`} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("deploy/Dockerfile does not have %s", want)
		}
	}

	r := startExample(t, "container.json")
	addr := r.addr(t, "workers[0].transports[0]")
	must(t)(joinWS(t, "ws://"+addr+"/ws", client.Config{Realm: "realm1"}))
	tests := []struct {
		path, accept string
		want         string // in the body
	}{
		{"/healthz", "", `{"status":"ok"}`},
		{"/readyz", "", `{"ready":true,"state":"running"}`},
		{"/metrics", "", "\n" + `junction_sessions{realm="realm1"} 1` + "\n"},
		{"/dashboard/", "application/json", `"realms":[{"name":"realm1","sessions":1,`},
		{"/", "", "realm1"},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		if resp, body := send(t, req); resp.StatusCode != http.StatusOK || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s: %d %s, want 200 with %s", tt.path, resp.StatusCode, body, tt.want)
		}
	}
}

// TestContainerExampleNeedsRequireIP: on the container's listener (every
// interface) the dashboard is refused without its require_ip, which the
// example sets.
func TestContainerExampleNeedsRequireIP(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(readPage(t, filepath.Join("examples", "container.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	paths := doc["workers"].([]any)[0].(map[string]any)["transports"].([]any)[0].(map[string]any)["paths"].(map[string]any)
	delete(paths["dashboard"].(map[string]any), "options")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = config.Loader{}.Load(file)
	const want = "workers[0].transports[0].paths.dashboard.options.require_ip: required"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("without require_ip: %v, want %s", err, want)
	}
}
