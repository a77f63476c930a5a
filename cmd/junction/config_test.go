package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// envOf is a lookupEnv with the variables of m only.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// TestCBDir: a node directory named by --cbdir or CROSSBAR_DIR must hold
// a config (else exit 2); the embedded default runs only when neither is
// given and .crossbar has none. Run in a fresh working directory.
func TestCBDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	node := filepath.Join(dir, "node")
	os.Mkdir(node, 0o755)
	nodeConfig := writeFile(t, node, "config.json", goodConfig)
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	otherConfig := writeFile(t, other, "config.yaml", "version: 2\nworkers: []\n")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	file := writeFile(t, dir, "plain.txt", "")
	missing := filepath.Join(dir, "nope")
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stdout string // substring
		stderr string
	}{
		{"nothing given: embedded default", []string{"check"}, nil, 0, "ok: (embedded default)", ""},
		{"empty CROSSBAR_DIR is not given", []string{"check"}, map[string]string{"CROSSBAR_DIR": ""}, 0, "ok: (embedded default)", ""},
		{"--cbdir", []string{"check", "--cbdir", node}, nil, 0, "ok: " + nodeConfig, ""},
		{"CROSSBAR_DIR", []string{"check"}, map[string]string{"CROSSBAR_DIR": other}, 0, "ok: " + otherConfig, ""},
		{"--cbdir wins over CROSSBAR_DIR", []string{"check", "--cbdir", node}, map[string]string{"CROSSBAR_DIR": other}, 0, "ok: " + nodeConfig, ""},
		{"--config wins over both", []string{"check", "--cbdir", missing, "--config", otherConfig}, map[string]string{"CROSSBAR_DIR": missing}, 0, "ok: " + otherConfig, ""},
		{"--cbdir missing", []string{"check", "--cbdir", missing}, nil, 2, "",
			"junction check: --cbdir " + missing + " does not exist (the embedded default config runs only when neither --cbdir nor CROSSBAR_DIR is given)"},
		{"CROSSBAR_DIR missing", []string{"check"}, map[string]string{"CROSSBAR_DIR": missing}, 2, "", "CROSSBAR_DIR " + missing + " does not exist"},
		{"--cbdir without a config", []string{"check", "--cbdir", empty}, nil, 2, "",
			"--cbdir " + empty + " has no config.yaml, config.yml or config.json (junction init --cbdir " + empty + " writes one)"},
		{"--cbdir is a file", []string{"check", "--cbdir", file}, nil, 2, "", "--cbdir " + file + " is not a directory"},
		{"start: --cbdir missing", []string{"start", "--cbdir", missing}, nil, 2, "", `level=ERROR msg=config err="--cbdir ` + missing + ` does not exist`},
		{"start: CROSSBAR_DIR without a config", []string{"start", "--logformat", "json"}, map[string]string{"CROSSBAR_DIR": empty}, 2, "",
			`"level":"ERROR","msg":"config","err":"CROSSBAR_DIR ` + empty + ` has no config.yaml`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), nil, tt.args, &out, &errOut, envOf(tt.env))
			if code != tt.code || !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s\nwant stdout %q, stderr %q", code, tt.code, &out, &errOut, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestInitCrossbarDir: init writes into CROSSBAR_DIR when --cbdir is not
// given.
func TestInitCrossbarDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	var out, errOut bytes.Buffer
	if code := run(t.Context(), nil, []string{"init"}, &out, &errOut, envOf(map[string]string{"CROSSBAR_DIR": dir})); code != 0 {
		t.Fatalf("init: exit %d: %s", code, &errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		t.Error(err)
	}
}

// TestConfigSyntaxError: check prints a syntax error with its file, line
// and column and the excerpt, indented; start logs it in the log format
// asked for, the excerpt as an attribute.
func TestConfigSyntaxError(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "config.json", "{\"version\": 2,\n  \"workers\": [],}\n")
	badYAML := writeFile(t, dir, "config.yaml", "version: 2\nworkers: : []\n")
	jsonErr := bad + ":2:17: invalid JSON: invalid character '}' looking for beginning of object key string"
	yamlErr := badYAML + ":2: invalid YAML: mapping values are not allowed in this context"
	t.Run("check json", func(t *testing.T) {
		var out bytes.Buffer
		if code := run(t.Context(), nil, []string{"check", "--config", bad}, &out, &bytes.Buffer{}, noEnv); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if want := jsonErr + "\n    " + `  "workers": [],}` + "\n    " + strings.Repeat(" ", 16) + "^\n"; out.String() != want {
			t.Errorf("check printed\n%s\nwant\n%s", &out, want)
		}
	})
	t.Run("check yaml", func(t *testing.T) {
		var out bytes.Buffer
		if code := run(t.Context(), nil, []string{"check", "--config", badYAML}, &out, &bytes.Buffer{}, noEnv); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if want := yamlErr + "\n    workers: : []\n"; out.String() != want {
			t.Errorf("check printed\n%s\nwant\n%s", &out, want)
		}
	})
	t.Run("start json log", func(t *testing.T) {
		var errOut bytes.Buffer
		if code := run(t.Context(), nil, []string{"start", "--config", bad, "--logformat", "json"}, &bytes.Buffer{}, &errOut, noEnv); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		var rec map[string]any
		if err := json.Unmarshal(errOut.Bytes(), &rec); err != nil {
			t.Fatalf("start wrote %q, not one JSON line: %v", &errOut, err)
		}
		want := map[string]any{"level": "ERROR", "msg": "config", "source": bad, "err": jsonErr,
			"excerpt": `  "workers": [],}` + "\n" + strings.Repeat(" ", 16) + "^"}
		for k, v := range want {
			if rec[k] != v {
				t.Errorf("%s = %q, want %q", k, rec[k], v)
			}
		}
	})
	t.Run("start text log", func(t *testing.T) {
		var errOut bytes.Buffer
		if code := run(t.Context(), nil, []string{"start", "--config", badYAML}, &bytes.Buffer{}, &errOut, noEnv); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if want := `level=ERROR msg=config source=` + badYAML + ` err="` + yamlErr + `" excerpt="workers: : []"`; !strings.Contains(errOut.String(), want) {
			t.Errorf("start logged %q, want %q", &errOut, want)
		}
	})
}
