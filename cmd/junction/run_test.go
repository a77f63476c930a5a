package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/junction-wamp/junction/internal/config"
)

const goodConfig = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
	"options": {"pythonpath": [".."]},
	"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}]}]}`

// buildFails loads but cannot be built: its static directory is below a
// file. (One that does not exist is only a warning, see staticMissing.)
const buildFails = `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
		"paths": {"/": {"type": "static", "directory": "/dev/null/web"}}}]}]}`

// staticMissing loads and builds with a warning: its static directory
// (relative to the config file's folder) does not exist, which Crossbar
// accepts, answering 404 there.
const staticMissing = `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
		"paths": {"/": {"type": "static", "directory": "../web"}}}]}]}`

// buildFailsText is what check prints and start logs for buildFails.
const buildFailsText = `workers[0].transports[0].paths["/"]: web: static directory: `

// bridgeBuildFails loads, but its require_ip entry is refused when the
// node is built: check reports it at its path.
const bridgeBuildFails = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
		"paths": {"call": {"type": "caller", "realm": "realm1", "role": "anonymous",
			"options": {"require_ip": ["10.0.0.0/255.0.255.0"]}}}}]}]}`

// calleeExtraBad has a RESTCallee without baseurl: its extra does not load.
const calleeExtraBad = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1"}],
	"components": [{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
		"extra": {"procedure": "com.example.api"}}]}]}`

// bridgeWarns is valid, with the bridge's warnings.
const bridgeWarns = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
		"paths": {"publish": {"type": "publisher", "realm": "realm1", "role": "anonymous",
			"options": {"key": "k", "secret": "s", "post_body_limit": 0}}}}]}]}`

const badConfig = `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 70000},
		"paths": {"ws": {"type": "websocket", "serialisers": ["json"]}}}]}]}`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func noEnv(string) (string, bool) { return "", false }

func TestRun(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.json", goodConfig)
	bad := writeFile(t, dir, "bad.json", badConfig)
	unbuildable := writeFile(t, dir, "unbuildable.json", buildFails)
	bridgeBad := writeFile(t, dir, "bridge.json", bridgeBuildFails)
	calleeBad := writeFile(t, dir, "callee.json", calleeExtraBad)
	bridgeWarn := writeFile(t, dir, "warn.json", bridgeWarns)
	noStatic := writeFile(t, dir, "nostatic.json", staticMissing)
	yamlDir := filepath.Join(dir, "yaml")
	os.Mkdir(yamlDir, 0o755)
	writeFile(t, yamlDir, "config.yaml", "version: 2\nworkers: []\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr []string
	}{
		{"no command", nil, 2, nil, []string{"usage:"}},
		{"unknown command", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`, "usage:"}},
		{"help", []string{"--help"}, 0, []string{"usage:"}, nil},
		{"version", []string{"version"}, 0, []string{"junction "}, nil},
		{"version extra arg", []string{"version", "x"}, 2, nil, []string{"unexpected argument"}},
		{"check good", []string{"check", "--config", good}, 0, []string{"ok: " + good, "warning: workers[0].options.pythonpath"}, nil},
		{"check bad", []string{"check", "--config", bad}, 1,
			[]string{"workers[0].transports[0].endpoint.port: ", "workers[0].transports[0].paths.ws.serialisers: ", "serializers"}, nil},
		{"check build error", []string{"check", "--config", unbuildable}, 1, []string{unbuildable + ": " + buildFailsText}, nil},
		{"check static directory missing", []string{"check", "--config", noStatic}, 0, []string{
			noStatic + `: warning: workers[0].transports[0].paths["/"].directory: ` + filepath.Join(filepath.Dir(dir), "web") + " does not exist: every request here gets 404 until it does",
			"ok: " + noStatic}, nil},
		{"start build error", []string{"start", "--config", unbuildable}, 1, nil, []string{strings.ReplaceAll(buildFailsText, `"`, `\"`)}},
		{"check require_ip", []string{"check", "--config", bridgeBad}, 1,
			[]string{bridgeBad + ": workers[0].transports[0].paths.call.options.require_ip[0]: netmask \"255.0.255.0\" is not contiguous"}, nil},
		{"check callee extra", []string{"check", "--config", calleeBad}, 1,
			[]string{calleeBad + ": workers[0].components[0].extra.baseurl: required"}, nil},
		{"check bridge warnings", []string{"check", "--config", bridgeWarn}, 0, []string{
			"warning: workers[0].transports[0].paths.publish.options.post_body_limit: unlimited: a request body is bounded only by the web transport's body_buffer_limit",
			"warning: workers[0].transports[0].paths.publish.options.secret: no \"timestamp_delta_limit\"",
			"ok: " + bridgeWarn}, nil},
		{"check missing file", []string{"check", "--config", filepath.Join(dir, "nope.json")}, 1, []string{"nope.json"}, nil},
		{"check cbdir yaml", []string{"check", "--cbdir", yamlDir}, 0, []string{"ok: " + filepath.Join(yamlDir, "config.yaml")}, nil},
		{"check cbdir missing", []string{"check", "--cbdir", filepath.Join(dir, "none")}, 2, nil, []string{"--cbdir " + filepath.Join(dir, "none") + " does not exist"}},
		{"check unknown flag", []string{"check", "--bogus"}, 2, nil, []string{"flag provided but not defined", "usage: junction check"}},
		{"check help", []string{"check", "-h"}, 0, nil, []string{"usage: junction check"}},
		{"start bad config", []string{"start", "--config", bad}, 1, nil, []string{"workers[0].transports[0].endpoint.port: "}},
		{"start bad loglevel", []string{"start", "--loglevel", "loud"}, 2, nil, []string{"--loglevel"}},
		{"start bad logformat", []string{"start", "--logformat", "xml"}, 2, nil, []string{"--logformat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), nil, tt.args, &out, &errOut, noEnv)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, &out, &errOut)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout %q lacks %q", &out, s)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr %q lacks %q", &errOut, s)
				}
			}
		})
	}
}

func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node", ".crossbar")
	var out, errOut bytes.Buffer
	if code := run(t.Context(), nil, []string{"init", "--cbdir", dir}, &out, &errOut, noEnv); code != 0 {
		t.Fatalf("init: exit %d: %s", code, &errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil || !bytes.Equal(b, config.DefaultJSON) {
		t.Fatalf("config.json = %q, %v; want the default", b, err)
	}
	writeFile(t, dir, "config.json", "{}")
	errOut.Reset()
	if code := run(t.Context(), nil, []string{"init", "--cbdir", dir}, &out, &errOut, noEnv); code != 1 {
		t.Errorf("second init: exit %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "already exists") {
		t.Errorf("second init: %q", &errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "config.json")); string(b) != "{}" {
		t.Errorf("init overwrote the config: %q", b)
	}
}

// TestStartInProcess starts a node on port 0 and stops it by ending ctx.
func TestStartInProcess(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "config.json", goodConfig)
	ctx, cancel := context.WithCancel(t.Context())
	r, w := newPipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, nil, []string{"start", "--config", good, "--logformat", "json"}, &bytes.Buffer{}, w, noEnv)
	}()
	lines := logLines(r)
	addr := listeningAddr(t, lines)
	go func() { // the rest of the log, until w closes
		for range lines {
		}
	}()
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("address %q", addr)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("start: exit %d", code)
	}
	w.Close()
}

// TestStartReloadsOnHangup: each SIGHUP that "start" gets reloads the
// config file: unchanged, it reloads with nothing to apply; broken, the
// reload is refused with every error logged and the node keeps running;
// with a realm added, the realm is added. The end of ctx (SIGINT,
// SIGTERM) still stops it with status 0.
func TestStartReloadsOnHangup(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "config.json", goodConfig)
	ctx, cancel := context.WithCancel(t.Context())
	hangup := make(chan os.Signal)
	r, w := newPipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, hangup, []string{"start", "--config", good}, &bytes.Buffer{}, w, noEnv)
		w.Close()
	}()
	lines := logLines(r)
	waitLine(t, lines, containing(`msg="node started"`))
	hangup <- syscall.SIGHUP
	waitLine(t, lines, containing(`level=INFO msg="configuration reloaded"`))

	writeFile(t, dir, "config.json", `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1", "roles": 7}]}]}`)
	hangup <- syscall.SIGHUP
	waitLine(t, lines, containing(`workers[0].realms[0].roles`))
	waitLine(t, lines, containing(`level=ERROR msg="reload refused`))

	writeFile(t, dir, "config.json", strings.Replace(goodConfig, `"realms": [`,
		`"realms": [{"name": "realm2", "roles": [{"name": "anonymous", "allow-by-default": true}]}, `, 1))
	hangup <- syscall.SIGHUP
	applied := waitLine(t, lines, containing(`msg="reload: applied"`))
	if !strings.Contains(applied, `realm2`) {
		t.Errorf("applied: %s, want realm2 added", applied)
	}
	waitLine(t, lines, containing(`msg="configuration reloaded"`))
	cancel()
	waitLine(t, lines, containing(`msg="node stopped"`))
	for range lines {
	}
	if code := <-done; code != 0 {
		t.Errorf("start: exit %d after SIGHUP and the end of ctx, want 0", code)
	}
}

// threeBuildErrors loads, but three of its items cannot be built: a
// static directory, a require_ip entry and a TLS key pair.
const threeBuildErrors = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
		"/": {"type": "static", "directory": "/dev/null/web"},
		"call": {"type": "caller", "realm": "realm1", "role": "anonymous", "options": {"require_ip": ["10.0.0.0/33"]}}}},
		{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0,
			"tls": {"key": "no.key", "certificate": "no.crt"}}}]}]}`

// TestBuildErrorsAllAtOnce: check prints every problem the build finds,
// one per line in path order, and exits 1; start logs each of them.
func TestBuildErrorsAllAtOnce(t *testing.T) {
	file := writeFile(t, t.TempDir(), "config.json", threeBuildErrors)
	want := []string{
		file + `: workers[0].transports[0].paths.call.options.require_ip[0]: invalid prefix length "33"`,
		file + `: workers[0].transports[0].paths["/"]: web: static directory: `,
		file + `: workers[0].transports[1].endpoint.tls: `,
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), nil, []string{"check", "--config", file}, &out, &errOut, noEnv); code != 1 {
		t.Errorf("check: exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("check printed %d lines, want %d:\n%s", len(lines), len(want), &out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want %q...", i, lines[i], w)
		}
	}
	out.Reset()
	if code := run(t.Context(), nil, []string{"start", "--config", file}, &out, &errOut, noEnv); code != 1 {
		t.Errorf("start: exit %d, want 1", code)
	}
	for _, w := range want {
		w = strings.ReplaceAll(strings.TrimPrefix(w, file+": "), `"`, `\"`)
		if !strings.Contains(errOut.String(), w) {
			t.Errorf("start log %q lacks %q", &errOut, w)
		}
	}
}
