package junction_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/junction-wamp/junction"
)

// realmJSON is a configuration with one realm and no transport.
const realmJSON = `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}]}]}`

func TestLoadConfig(t *testing.T) {
	t.Setenv("JUNCTION_TEST_REALM", "from-env")
	tests := []struct {
		name, file, text string
		want             string // the error's text, "" for none
	}{
		{"json", "config.json", realmJSON, ""},
		{"yaml", "config.yaml", "version: 2\nworkers:\n  - type: router\n    realms:\n      - name: realm1\n", ""},
		{"env", "config.json", `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "${JUNCTION_TEST_REALM}"}]}]}`, ""},
		{"missing env", "config.json", `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "${JUNCTION_TEST_NOT_SET}"}]}]}`,
			"config.json: workers[0].realms[0].name: environment variable JUNCTION_TEST_NOT_SET is not set"},
		{"two problems", "config.json", `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "bad realm"}], "transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": -1}}]}]}`,
			"config.json: workers[0].realms[0].name: invalid realm URI \"bad realm\"\nconfig.json: workers[0].transports[0].endpoint.port: must be in 0..65535, not -1"},
		{"syntax", "config.json", "{\"version\": 2,\n  \"workers\": [}\n", "config.json:2:15: "},
		{"yaml syntax", "config.yaml", "version: 2\nworkers: [\n", "config.yaml:2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := junction.LoadConfig(path)
			if tt.want == "" {
				if err != nil || cfg == nil {
					t.Fatalf("LoadConfig: %v", err)
				}
				return
			}
			var ce *junction.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("LoadConfig: %v (%T), want a *ConfigError", err, err)
			}
			if got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""); !strings.HasPrefix(got, tt.want) {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
			if ce.Problems[0].File != path {
				t.Errorf("problem's file %q, want %q", ce.Problems[0].File, path)
			}
		})
	}
}

func TestLoadConfigNoFile(t *testing.T) {
	_, err := junction.LoadConfig(filepath.Join(t.TempDir(), "none.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadConfig of no file: %v, want fs.ErrNotExist", err)
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name, text string
		want       junction.ConfigProblem // Path and Line only; zero for none
	}{
		{"json", realmJSON, junction.ConfigProblem{}},
		{"json after spaces", "\n  " + realmJSON, junction.ConfigProblem{}},
		{"yaml", "version: 2\nworkers:\n  - type: router\n    realms: [{name: realm1}]\n", junction.ConfigProblem{}},
		{"json problem", `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}, {"name": "a b"}]}]}`,
			junction.ConfigProblem{Path: "workers[0].realms[1].name"}},
		{"json unknown key", `{"version": 2, "workers": [], "colour": 1}`, junction.ConfigProblem{Path: "colour"}},
		{"json syntax", "{\"version\": 2,\n\"workers\": ]}", junction.ConfigProblem{Line: 2}},
		{"yaml problem", "version: 3\nworkers: []\n", junction.ConfigProblem{Path: "version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := junction.ParseConfig([]byte(tt.text))
			if tt.want == (junction.ConfigProblem{}) {
				if err != nil || cfg == nil {
					t.Fatalf("ParseConfig: %v", err)
				}
				return
			}
			var ce *junction.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("ParseConfig: %v (%T), want a *ConfigError", err, err)
			}
			p := ce.Problems[0]
			if p.Path != tt.want.Path || p.Line != tt.want.Line || p.File != "" || p.Message == "" {
				t.Errorf("problem %+v, want path %q line %d", p, tt.want.Path, tt.want.Line)
			}
			if !strings.HasPrefix(err.Error(), p.Path) || !strings.Contains(err.Error(), p.Message) {
				t.Errorf("error %q does not name %q: %q", err, p.Path, p.Message)
			}
		})
	}
}

func TestConfigWarnings(t *testing.T) {
	cfg, err := junction.ParseConfig([]byte(`{"version": 2, "workers": [{"type": "router", "options": {"pythonpath": ["."]}, "realms": [{"name": "realm1"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	w := cfg.Warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "workers[0].options.pythonpath: ") {
		t.Errorf("warnings %q, want one at workers[0].options.pythonpath", w)
	}
	if w := junction.RouterConfig().Warnings(); len(w) != 0 {
		t.Errorf("RouterConfig's warnings: %q", w)
	}
}

func TestRouterConfigBadRealm(t *testing.T) {
	_, err := junction.Start(t.Context(), junction.RouterConfig("realm1", "no spaces allowed"), junction.Options{})
	var ce *junction.ConfigError
	if !errors.As(err, &ce) || ce.Problems[0].Path != "workers[0].realms[1].name" {
		t.Fatalf("Start: %v, want a *ConfigError at workers[0].realms[1].name", err)
	}
}

func TestStartNoConfig(t *testing.T) {
	for _, cfg := range []*junction.Config{nil, {}} {
		if _, err := junction.Start(t.Context(), cfg, junction.Options{}); err == nil {
			t.Errorf("Start(%v) succeeded", cfg)
		}
	}
}
