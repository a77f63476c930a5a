package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTestdata loads each realistic Crossbar configuration: no errors, and
// exactly the warnings listed.
func TestTestdata(t *testing.T) {
	tests := []struct {
		file  string
		warns []string
	}{
		{"crossbar_init.json", nil},
		{"crossbar_init.yaml", nil},
		{"auth_rawsocket.json", []string{
			`controller.id: ignored: Junction has no separate controller to name`,
			`controller.options.title: ignored: the process title is not set`,
			`workers[0].options.pythonpath: ignored: the worker has no Python component, function authenticator or Python web path to run`,
			`workers[0].options.title: ignored: workers run in-process; logs name a worker by its JSON path`,
			`workers[0].transports[1].endpoint.tls.dhparam: ignored: Go chooses its own key exchange`,
			`workers[0].transports[1].url: ignored: the transport serves every URL path`,
		}},
		{"container_bridge.json", []string{
			`workers[1].options.pythonpath: ignored: the worker has no Python component, function authenticator or Python web path to run`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, warns, err := Loader{LookupEnv: lookupTestEnv}.Load(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c == nil || len(c.Workers) == 0 {
				t.Fatalf("Load returned no workers")
			}
			if got, want := warningsText(warns), strings.Join(tt.warns, "\n"); got != want {
				t.Errorf("warnings:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestJSONAndYAMLAgree checks that the same configuration in both syntaxes
// decodes to the same Config.
func TestJSONAndYAMLAgree(t *testing.T) {
	fromJSON, _, err := Loader{LookupEnv: lookupTestEnv}.Load("testdata/crossbar_init.json")
	if err != nil {
		t.Fatal(err)
	}
	fromYAML, _, err := Loader{LookupEnv: lookupTestEnv}.Load("testdata/crossbar_init.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Errorf("JSON and YAML differ:\n%#v\n%#v", fromJSON.Workers[0], fromYAML.Workers[0])
	}
}

// TestYAMLRules checks that YAML documents give the same errors, at the
// same paths, as JSON ones.
func TestYAMLRules(t *testing.T) {
	tests := []struct{ yaml, json string }{
		{"version: 1", `{"version": 1}`},
		{"version: 2\nworker: []", `{"version": 2, "worker": []}`},
		{"version: 2\nworkers:\n- type: router\n  realms:\n  - name: a..b", top(`{"type": "router", "realms": [{"name": "a..b"}]}`)},
		{"version: 2\nworkers:\n- type: router\n  transports:\n  - type: rawsocket\n    endpoint: {type: tcp, port: 70000}\n    serializers: [json, xml]",
			transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 70000}, "serializers": ["json", "xml"]}`)},
		{"version: 2\nworkers:\n- type: router\n  transports:\n  - type: rawsocket\n    endpoint: {type: tcp, port: 1.5}",
			transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 1.5}}`)},
		{"version: 2\nworkers:\n- type: router\n  transports:\n  - type: rawsocket\n    endpoint: {type: tcp, port: '80'}",
			transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": "80"}}`)},
	}
	for _, tt := range tests {
		_, _, yerrs := parseTest(t, tt.yaml, YAML)
		_, _, jerrs := parseTest(t, tt.json, JSON)
		if yerrs == nil || yerrs.Error() != jerrs.Error() {
			t.Errorf("YAML %q:\n%v\nJSON:\n%v", tt.yaml, yerrs, jerrs)
		}
	}
}

func TestYAMLSyntax(t *testing.T) {
	for _, doc := range []string{"version: [", "a: 1\na: 2", "- 1\n- 2", ""} {
		_, _, errs := parseTest(t, doc, YAML)
		if len(errs) != 1 || errs[0].Path != "" {
			t.Errorf("YAML %q: got %v", doc, errs)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	if _, _, err := Load("testdata/no-such-file.json"); err == nil || !strings.HasPrefix(err.Error(), "config: ") {
		t.Errorf("Load of a missing file: %v", err)
	}
	if FormatOf("a/config.YML") != YAML || FormatOf("config.yaml") != YAML || FormatOf("config.json") != JSON {
		t.Errorf("FormatOf is wrong")
	}
	if JSON.String() != "json" || YAML.String() != "yaml" {
		t.Errorf("Format.String is wrong")
	}
}
