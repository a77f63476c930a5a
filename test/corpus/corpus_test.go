// Package corpus_test runs Junction's own corpus of Crossbar-shaped nodes:
// each directory of nodes/ is a node as a Crossbar user lays it out (the
// config in .crossbar, the application code beside it: Python components,
// guest programs, static web files) with a client that proves the
// application code works under Junction. See README.md.
package corpus_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"go.uber.org/goleak"
)

// harness is the junction binary and the client dependencies, prepared
// once by TestMain.
var harness = &nodeproc.Harness{}

// TestMain installs the dependencies (scripts/install-test-deps.sh, quick
// when they are present) and builds the junction binary once (with -race
// when the tests run with it). After the tests, no goroutine may be left.
func TestMain(m *testing.M) {
	nodeproc.Main(m, harness, func() error { return goleak.Find() })
}

// Where the test finds what the nodes and their clients need.
const (
	python     = "/usr/bin/python3" // Debian's, with autobahn and Twisted
	nodeJS     = "node"             // Node.js, for JavaScript clients and guests
	clientsDir = "clients"          // corpusclient.py, on the Python clients' PYTHONPATH
	nodesDir   = "nodes"
)

// clientTimeout bounds one client run; the clients give up by themselves
// well before (corpusclient.TIMEOUT).
const clientTimeout = 60 * time.Second

// maxSocketPath is the longest Unix socket path Linux takes (sun_path,
// less its terminating NUL); maxSocketName is the longest name a node
// gives a socket in its .crossbar directory.
const (
	maxSocketPath = 107
	maxSocketName = 16
)

// TestCorpus runs every node of the corpus as a subtest: junction check
// must accept its directory, junction start must run it (in the node
// directory, as crossbar start), its client must pass, and the node must
// stop at SIGTERM with status 0, having logged no warning but the ones the
// node names.
func TestCorpus(t *testing.T) {
	harness.RequireDeps(t)
	harness.RequireBinary(t)
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			t.Logf("proves: %s", c.proves)
			runNode(t, c)
		})
	}
}

// TestCorpusTable checks that TestCorpus runs every directory of nodes/
// and README.md lists each one.
func TestCorpusTable(t *testing.T) {
	entries, err := os.ReadDir(nodesDir)
	if err != nil {
		t.Fatal(err)
	}
	var dirs, names []string
	for _, e := range entries {
		dirs = append(dirs, e.Name())
	}
	for _, c := range corpus {
		names = append(names, c.name)
	}
	slices.Sort(names)
	if !slices.Equal(dirs, names) {
		t.Errorf("nodes/ holds %q, the table runs %q", dirs, names)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if !strings.Contains(string(readme), "| `"+name+"` |") {
			t.Errorf("README.md has no row for %s", name)
		}
	}
}

// runNode checks, starts and exercises one node of the corpus, which
// stops when the test ends.
func runNode(t *testing.T, c corpusNode) {
	dir := copyNode(t, c.name)
	n := startNode(t, c, dir)
	r := &nodeRun{node: n, dir: dir, addr: n.Addr(nodeproc.Transport(0, 0))}
	if r.addr == "" {
		t.Fatalf("%s: the router's first transport logged no address", c.name)
	}
	if c.static.path != "" {
		getStatic(t, r.addr, dir, c.static)
	}
	if c.client != "" {
		runClient(t, dir, c.client, r.addr)
	}
	if c.check != nil {
		c.check(t, r)
	}
	// the node stops when the test ends (nodeproc), after the Go
	// sessions of the checks have left
}

// portAttempts bounds how often startNode prepares and starts a node
// whose port was taken.
const portAttempts = 5

// startNode prepares the node in dir, checks it and starts it. A node
// that cannot listen on port 0 (freePort: the shared port of identical
// workers) gets a port its prepare found free, which another process may
// take before the node listens on it: the node then exits with "address
// already in use", and it is prepared (a new port) and started again.
// Nothing else is retried.
func startNode(t *testing.T, c corpusNode, dir string) *nodeproc.Node {
	t.Helper()
	for attempt := 1; ; attempt++ {
		env := nodeEnv(t)
		if c.prepare != nil {
			env = append(env, c.prepare(t, dir)...)
		}
		warnings := nodeWarnings(c.warnings, dir)
		checkNode(t, dir, env, warnings)
		n, err := harness.TryStartIn(t, dir, nodeproc.Options{Name: c.name, Env: env, AllowedWarnings: warnings})
		if err == nil {
			return n
		}
		if attempt == portAttempts || !strings.Contains(err.Error(), "address already in use") {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		t.Logf("attempt %d: the port was taken before the node listened; again with another", attempt)
	}
}

// nodeRun is a node of the corpus that runs.
type nodeRun struct {
	node *nodeproc.Node
	dir  string // the node directory (a copy of nodes/NAME)
	addr string // the address of the router's first transport
}

// copyNode copies nodes/name into a new temporary directory, the node
// directory the test runs, and returns it.
func copyNode(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(nodesDir, name))); err != nil {
		t.Fatalf("copy node %s: %v", name, err)
	}
	if len(filepath.Join(dir, ".crossbar"))+1+maxSocketName > maxSocketPath {
		t.Fatalf("node directory %s is too long for the Unix sockets in it", dir)
	}
	return dir
}

// checkNode runs junction check --cbdir DIR/.crossbar with env added to
// the test's environment, which must accept the config with no warning
// but the node's (warnings: the messages the node may log).
func checkNode(t *testing.T, dir string, env, warnings []string) {
	t.Helper()
	cmd := exec.Command(harness.Binary, "check", "--cbdir", filepath.Join(dir, ".crossbar"))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := len(lines) - 1
	if err != nil || !strings.HasPrefix(lines[last], "ok: ") {
		t.Fatalf("junction check: %v\n%s", err, out)
	}
	for _, line := range lines[:last] {
		if !slices.ContainsFunc(warnings, func(w string) bool {
			return strings.Contains(line, ": warning: ") && strings.HasSuffix(line, ": "+strings.TrimPrefix(w, "config: "))
		}) {
			t.Fatalf("junction check printed what the node may not log:\n%s", out)
		}
	}
}

// nodeWarnings is warnings with "{dir}" replaced by the node directory dir,
// for the messages that name a file of it.
func nodeWarnings(warnings []string, dir string) []string {
	out := make([]string, len(warnings))
	for i, w := range warnings {
		out[i] = strings.ReplaceAll(w, "{dir}", dir)
	}
	return out
}

// nodeEnv is what the node's environment adds to the test's: Debian's
// Python first on PATH (the Python runner's default interpreter is
// python3 on PATH; the first one here may lack autobahn), and NODE_PATH
// for the Node.js guests' require("autobahn").
func nodeEnv(t *testing.T) []string {
	return []string{
		"PATH=" + filepath.Dir(python) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"NODE_PATH=" + jsModules(t),
	}
}

// jsModules is test/interop/js/node_modules, where scripts/install-test-deps.sh
// installs autobahn-js.
func jsModules(t *testing.T) string {
	t.Helper()
	root, err := nodeproc.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "test", "interop", "js", "node_modules")
}

// runClient runs the node's client (client.py under Debian's Python,
// client.js under Node.js) in the node directory with the address of the
// router's first transport; it must exit 0.
func runClient(t *testing.T, dir, client, addr string) {
	t.Helper()
	clients, err := filepath.Abs(clientsDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	interpreter := python
	if strings.HasSuffix(client, ".js") {
		interpreter = nodeJS
	}
	cmd := exec.CommandContext(ctx, interpreter, client, addr)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+clients, "NODE_PATH="+jsModules(t), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", client, err, out)
	}
	t.Logf("%s:\n%s", client, out)
}

// getStatic GETs path of the web transport at addr, which must answer 200
// with the file the node serves there (path relative to the node
// directory's web root, file relative to the node directory).
func getStatic(t *testing.T, addr, dir string, s staticFile) {
	t.Helper()
	want, err := fs.ReadFile(os.DirFS(dir), s.file)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + s.path)
	if err != nil {
		t.Fatalf("GET %s: %v", s.path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || string(got) != string(want) {
		t.Fatalf("GET %s: %d %v %q, want 200 with %s", s.path, resp.StatusCode, err, got, s.file)
	}
}
