package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Bounds on the node's start and stop. The binary stops within 10 s of
// SIGTERM (cmd/junction's stopTimeout); stopBound leaves it some slack.
const (
	buildTimeout = 5 * time.Minute
	startBound   = 20 * time.Second
	stopBound    = 15 * time.Second
)

// junctionPath is the binary TestMain built, or "" with buildErr saying
// why not. Set once by TestMain before any test runs, read-only afterwards.
var (
	junctionPath string
	buildErr     error
)

// buildJunction builds cmd/junction into dir (with -race when this test
// binary has it, so that the router runs race-checked under the clients)
// and returns the binary's path.
func buildJunction(dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "junction")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/junction")
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("interop: go %s in %s: %w\n%s", strings.Join(args, " "), root, err, out)
	}
	return bin, nil
}

// moduleRoot is the nearest directory at or above the working directory
// that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("interop: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("interop: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// node is a running junction binary.
type node struct {
	cmd     *exec.Cmd
	log     *nodeLog
	exited  chan struct{} // closed when cmd.Wait has returned
	waitErr error         // cmd.Wait's result; read after exited is closed
	addrs   [numTransports]string
}

// startNode starts the binary with the config of nodeConfig and waits
// until it listens. When the test ends the node is stopped with SIGTERM and
// must exit 0 with no warning in its log; when the test failed it is
// killed instead, and its log is added to the test's output.
func startNode(t *testing.T) *node {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir)
	n := &node{log: newNodeLog(), exited: make(chan struct{})}
	n.cmd = exec.Command(junctionPath, "start", "--config", cfg, "--logformat", "json")
	n.cmd.Dir = dir
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	n.cmd.WaitDelay = 5 * time.Second
	dieWithParent(n.cmd)
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", junctionPath, err)
	}
	go func() {
		n.waitErr = n.cmd.Wait()
		close(n.exited)
	}()
	t.Cleanup(func() { n.stop(t) })
	n.waitListening(t)
	return n
}

// waitListening waits for the log line "node started" and takes the
// transports' addresses from the "listening" lines before it.
func (n *node) waitListening(t *testing.T) {
	t.Helper()
	select {
	case <-n.log.started:
	case <-n.exited:
		t.Fatalf("junction exited before it started: %v", n.waitErr)
	case <-time.After(startBound):
		t.Fatalf("junction did not start within %s", startBound)
	}
	for i := range n.addrs {
		n.addrs[i] = n.log.address(fmt.Sprintf("workers[0].transports[%d]", i))
		if n.addrs[i] == "" {
			t.Fatalf("no listening line for workers[0].transports[%d]", i)
		}
	}
}

// url is where a client authenticating with a reaches the node over
// transport tr ("websocket" or "rawsocket").
func (n *node) url(tr string, a authCase) string {
	if tr == "websocket" {
		return "ws://" + n.addrs[webTransport] + "/" + wsPaths[a.method]
	}
	if a.method == anonymous.method {
		return "rs://" + n.addrs[rsAnonTransport]
	}
	return "rs://" + n.addrs[rsAuthTransport]
}

// stop ends the node: SIGTERM and a clean exit when the test passed so far,
// SIGKILL when it failed.
func (n *node) stop(t *testing.T) {
	if t.Failed() {
		_ = n.cmd.Process.Kill()
		<-n.exited
		t.Logf("junction (killed, the test failed): %v\njunction's log:\n%s", n.waitErr, n.log)
		return
	}
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("junction: SIGTERM: %v", err)
	}
	select {
	case <-n.exited:
		if n.waitErr != nil {
			t.Errorf("junction exited with %v after SIGTERM, want status 0", n.waitErr)
		}
	case <-time.After(stopBound):
		_ = n.cmd.Process.Kill()
		<-n.exited
		t.Errorf("junction did not exit within %s of SIGTERM", stopBound)
	}
	if bad := n.log.unexpected(); len(bad) > 0 {
		t.Errorf("junction logged warnings, errors or non-JSON lines:\n%s", strings.Join(bad, "\n"))
	}
	if t.Failed() {
		t.Logf("junction's log:\n%s", n.log)
	}
}

// nodeLog is the binary's stdout and stderr (slog's JSON lines), kept for
// reports. Safe for concurrent use.
type nodeLog struct {
	started chan struct{} // closed at the line "node started"

	mu      sync.Mutex
	partial []byte   // an incomplete last line; mu must be held
	lines   []string // mu must be held
	addrs   map[string]string
}

func newNodeLog() *nodeLog {
	return &nodeLog{started: make(chan struct{}), addrs: map[string]string{}}
}

// logLine is what the tests read of a log line.
type logLine struct {
	Level     string `json:"level"`
	Msg       string `json:"msg"`
	Transport string `json:"transport"`
	Address   string `json:"address"`
}

// Write takes the log, line by line.
func (l *nodeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.add(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
}

// add records a line; mu must be held.
func (l *nodeLog) add(line string) {
	l.lines = append(l.lines, line)
	var ll logLine
	if json.Unmarshal([]byte(line), &ll) != nil {
		return
	}
	switch ll.Msg {
	case "listening":
		l.addrs[ll.Transport] = ll.Address
	case "node started":
		select {
		case <-l.started:
		default:
			close(l.started)
		}
	}
}

// address is the address transport listens on, "" if not logged.
func (l *nodeLog) address(transport string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addrs[transport]
}

// unexpected returns the lines that are not JSON log lines at level INFO or
// DEBUG: warnings, errors, and anything else (a panic, a race report).
func (l *nodeLog) unexpected() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var bad []string
	for _, line := range l.lines {
		var ll logLine
		if json.Unmarshal([]byte(line), &ll) != nil || (ll.Level != "INFO" && ll.Level != "DEBUG") {
			bad = append(bad, line)
		}
	}
	if len(l.partial) > 0 {
		bad = append(bad, string(l.partial))
	}
	return bad
}

func (l *nodeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + string(l.partial)
}
