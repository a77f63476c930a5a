package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Bounds on a node's start and stop. The binary stops within 10 s of
// SIGTERM (cmd/junction's stopTimeout); stopBound leaves it some slack.
const (
	startBound = 20 * time.Second
	stopBound  = 15 * time.Second
)

// node is a running junction binary.
type node struct {
	name    string // for reports: "router", "container", ...
	cmd     *exec.Cmd
	log     *nodeLog
	allowed []string      // WARN messages this node may log
	exited  chan struct{} // closed when cmd.Wait has returned
	waitErr error         // cmd.Wait's result; read after exited is closed
	stopped sync.Once
}

// startNode writes cfg into a new temp dir, starts the binary on it and
// waits for the log line "node started". When the test ends the node is
// stopped (see stop) unless the test stopped it already. allowed are the
// WARN messages the node may log (any other warning fails the test).
func startNode(t *testing.T, name string, cfg obj, allowed ...string) *node {
	t.Helper()
	requireBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatalf("%s config: %v", name, err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("%s config: %v", name, err)
	}
	n := &node{name: name, log: newNodeLog(), allowed: allowed, exited: make(chan struct{})}
	n.cmd = exec.Command(junctionPath, "start", "--config", path, "--logformat", "json")
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
	n.waitStarted(t)
	return n
}

func (n *node) waitStarted(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- n.log.wait(ctx, 1, msgIs("node started")) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s did not start within %s: %v\n%s", n.name, startBound, err, n.log)
		}
	case <-n.exited:
		cancel()
		<-done
		t.Fatalf("%s exited before it started: %v\n%s", n.name, n.waitErr, n.log)
	}
}

// addr is the address of the node's transport N of worker 0.
func (n *node) addr(t *testing.T, transport int) string {
	t.Helper()
	name := "workers[0].transports[" + strconv.Itoa(transport) + "]"
	a := n.log.address(name)
	if a == "" {
		t.Fatalf("%s: no listening line for %s\n%s", n.name, name, n.log)
	}
	return a
}

// waitLog waits (up to startBound) until n lines match.
func (n *node) waitLog(t *testing.T, what string, count int, match func(logRecord) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	if err := n.log.wait(ctx, count, match); err != nil {
		t.Fatalf("%s: waiting for %s: %v\n%s", n.name, what, err, n.log)
	}
}

// stop ends the node once: SIGTERM, a clean exit (status 0 within
// stopBound) and no unexpected log line when the test passed so far;
// SIGKILL and the log in the test's output when it failed.
func (n *node) stop(t *testing.T) {
	n.stopped.Do(func() {
		if t.Failed() {
			_ = n.cmd.Process.Kill()
			<-n.exited
			t.Logf("%s (killed, the test failed): %v\nits log:\n%s", n.name, n.waitErr, n.log)
			return
		}
		n.terminate(t)
		if bad := n.log.unexpected(n.allowed); len(bad) > 0 {
			t.Errorf("%s logged warnings, errors or non-JSON lines:\n%s", n.name, strings.Join(bad, "\n"))
		}
		if t.Failed() {
			t.Logf("%s's log:\n%s", n.name, n.log)
		}
	})
}

// terminate sends SIGTERM and waits for exit status 0.
func (n *node) terminate(t *testing.T) {
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("%s: SIGTERM: %v", n.name, err)
	}
	select {
	case <-n.exited:
		if n.waitErr != nil {
			t.Errorf("%s exited with %v after SIGTERM, want status 0", n.name, n.waitErr)
		}
	case <-time.After(stopBound):
		_ = n.cmd.Process.Kill()
		<-n.exited
		t.Errorf("%s did not exit within %s of SIGTERM", n.name, stopBound)
	}
}
