package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cgiConfig loads but for a web path Junction refuses ("not supported").
const cgiConfig = `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
		"paths": {"app": {"type": "cgi", "directory": "cgi-bin", "processor": "/usr/bin/python3"}}}]}]}`

// twoProblems has two errors: an unknown key and a port out of range.
const twoProblems = `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}], "bogus": 1,
	"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 70000}}]}]}`

const emptyConfig = `{"version": 2, "workers": []}`

// fleetTree writes a tree of node configs under a new temporary
// directory, returned with the name of each file (relative to it) that
// check finds, in the order it finds them:
//
//	a/.crossbar/config.json                        goodConfig: loads, with a warning
//	b/.crossbar/config.yaml, config_w1.json        load; key.pub, config.json.bak are not configs
//	c/deep/.crossbar-node1/config.json             refused: cgi
//	c/deep/.crossbar-node1/sub/.crossbar/config.json  refused: two problems
//	d/config.json                                  not in a .crossbar directory
//	e/.crossbar/config.json                        refused: not JSON
//	node_modules/x/.crossbar/config.json, .git/.crossbar/config.json  not searched
//	empty/web/index.html                           no config below empty
func fleetTree(t *testing.T) (string, []string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"a/.crossbar/config.json":                          goodConfig,
		"b/.crossbar/config.yaml":                          "version: 2\nworkers: []\n",
		"b/.crossbar/config_w1.json":                       emptyConfig,
		"b/.crossbar/key.pub":                              "not a config",
		"b/.crossbar/config.json.bak":                      "{",
		"c/deep/.crossbar-node1/config.json":               cgiConfig,
		"c/deep/.crossbar-node1/sub/.crossbar/config.json": twoProblems,
		"d/config.json":                                    "{",
		"e/.crossbar/config.json":                          "{",
		"node_modules/x/.crossbar/config.json":             "{",
		".git/.crossbar/config.json":                       "{",
		"empty/web/index.html":                             "<p>hi</p>",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Dir(p), filepath.Base(p), body)
	}
	return root, []string{
		"a/.crossbar/config.json",
		"b/.crossbar/config.yaml",
		"b/.crossbar/config_w1.json",
		"c/deep/.crossbar-node1/config.json",
		"c/deep/.crossbar-node1/sub/.crossbar/config.json",
		"e/.crossbar/config.json",
	}
}

// TestCheckFleet: check over several configs, each line of its output (a
// prefix of it) in order, and its exit status.
func TestCheckFleet(t *testing.T) {
	root, found := fleetTree(t)
	at := func(i int) string { return filepath.Join(root, filepath.FromSlash(found[i])) }
	asDir := filepath.Join(root, "b", ".crossbar") // a directory given as a file
	const cgiMsg = `workers[0].transports[0].paths.app.type: not supported: path type "cgi" (CGI scripts)`
	tests := []struct {
		name  string
		args  []string
		code  int
		lines []string // each a prefix of the line of the same index
	}{
		{"several --config", []string{"--config", at(1), "--config", at(2)}, 0, []string{
			"ok: " + at(1),
			"ok: " + at(2),
			"checked 2 configs: 2 load, 0 refused"}},
		{"each line of each config", []string{"--config", at(0), "--config", at(4)}, 1, []string{
			at(0) + ": warning: workers[0].options.pythonpath: ",
			"ok: " + at(0),
			at(4) + ": workers[0].bogus: unknown key",
			at(4) + ": workers[0].transports[0].endpoint.port: must be in 0..65535",
			"checked 2 configs: 1 load, 1 refused"}},
		{"tree", []string{"--summary", root}, 1, []string{
			"ok: " + at(0),
			"ok: " + at(1),
			"ok: " + at(2),
			"refused: " + at(3) + ": " + cgiMsg,
			"refused: " + at(4) + ": workers[0].bogus: unknown key (and 1 more)",
			"refused: " + at(5) + ": config: ",
			"checked 6 configs: 3 load, 3 refused"}},
		{"subtree that loads", []string{filepath.Join(root, "b"), "--summary"}, 0, []string{
			"ok: " + at(1),
			"ok: " + at(2),
			"checked 2 configs: 2 load, 0 refused"}},
		{"node directory as the root", []string{"--summary", asDir}, 0, []string{
			"ok: " + at(1),
			"ok: " + at(2),
			"checked 2 configs: 2 load, 0 refused"}},
		{"file argument and duplicates", []string{"--summary", at(3), filepath.Join(root, "c"), "--config", at(3)}, 1, []string{
			"refused: " + at(3) + ": " + cgiMsg,
			"refused: " + at(4) + ": ",
			"checked 2 configs: 0 load, 2 refused"}},
		{"several --cbdir", []string{"--summary", "--cbdir", filepath.Join(root, "a", ".crossbar"), "--cbdir", asDir}, 0, []string{
			"ok: " + at(0),
			"ok: " + filepath.Join(asDir, "config.yaml"),
			"checked 2 configs: 2 load, 0 refused"}},
		{"--cbdir without config", []string{"--cbdir", asDir, "--cbdir", filepath.Join(root, "empty")}, 1, []string{
			"ok: " + filepath.Join(asDir, "config.yaml"),
			filepath.Join(root, "empty") + ": no config.yaml, config.yml or config.json",
			"checked 1 config: 1 load, 0 refused; 1 argument without a config"}},
		{"no config under a directory", []string{filepath.Join(root, "empty"), filepath.Join(root, "d")}, 1, []string{
			filepath.Join(root, "empty") + ": no node config found: no config*.json, *.yaml or *.yml in a .crossbar directory below it",
			filepath.Join(root, "d") + ": no node config found: ",
			"checked 0 configs: 0 load, 0 refused; 2 arguments without a config"}},
		{"missing argument", []string{filepath.Join(root, "nope")}, 1, []string{
			filepath.Join(root, "nope") + ": no such file or directory",
			"checked 0 configs: 0 load, 0 refused; 1 argument without a config"}},
		{"unreadable and invalid files", []string{"--summary", "--config", asDir, at(5), "--blockers"}, 1, []string{
			"refused: " + asDir + ": config: read " + asDir + ": is a directory",
			"refused: " + at(5) + ": config: ",
			"checked 2 configs: 0 load, 2 refused",
			"refused for (configs per reason; a config may have several):",
			"     1  the document does not parse",
			"     1  the file cannot be read"}},
		{"blockers", []string{"--summary", "--blockers", root, "--config", at(3)}, 1, []string{
			"ok: ", "ok: ", "ok: ", "refused: ", "refused: ", "refused: ",
			"checked 6 configs: 3 load, 3 refused",
			"refused for (configs per reason; a config may have several):",
			"     1  bogus: unknown key",
			"     1  not supported: path type \"cgi\" (CGI scripts)",
			"     1  port: must be in 0..65535",
			"     1  the document does not parse"}},
		{"after --", []string{"--summary", "--", at(1)}, 0, []string{
			"ok: " + at(1),
			"checked 1 config: 1 load, 0 refused"}},
		{"--summary with one config", []string{"--summary", "--config", at(0)}, 0, []string{
			"ok: " + at(0),
			"checked 1 config: 1 load, 0 refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), nil, append([]string{"check"}, tt.args...), &out, &errOut, noEnv)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != len(tt.lines) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tt.lines), &out)
			}
			for i, want := range tt.lines {
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("line %d = %q, want %q...", i, lines[i], want)
				}
			}
			if errOut.Len() > 0 {
				t.Errorf("stderr: %s", &errOut)
			}
		})
	}
}

// TestCheckSingleUnchanged: one --cbdir and one --config is the single
// check (the --config is used; no summary line), as before the fleet.
func TestCheckSingleUnchanged(t *testing.T) {
	root, found := fleetTree(t)
	file := filepath.Join(root, filepath.FromSlash(found[1]))
	var out bytes.Buffer
	code := run(t.Context(), nil, []string{"check", "--cbdir", filepath.Join(root, "a", ".crossbar"), "--config", file}, &out, &out, noEnv)
	if code != 0 || out.String() != "ok: "+file+"\n" {
		t.Errorf("exit %d, output %q; want 0 and only %q", code, &out, "ok: "+file)
	}
}

func TestLastKey(t *testing.T) {
	tests := map[string]string{
		"version":                             "version",
		"workers[1]":                          "workers",
		`workers[0].transports[0].paths["/"]`: "paths",
		`a.principals["x.y@z"].realm`:         "realm",
		`a.principals["x.y@z"]`:               "principals",
		"workers[0].realms[0].trace":          "trace",
	}
	for path, want := range tests {
		if got := lastKey(path); got != want {
			t.Errorf("lastKey(%q) = %q, want %q", path, got, want)
		}
	}
}
