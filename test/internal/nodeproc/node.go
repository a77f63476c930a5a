package nodeproc

import (
	"fmt"
	"net"
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
// SIGTERM (cmd/junction's stopTimeout); StopBound leaves it some slack.
const (
	StartBound = 20 * time.Second // for "node started", and for each Node.WaitLog
	StopBound  = 15 * time.Second // from SIGTERM to exit
)

// waitDelay bounds how long cmd.Wait waits for the log pipe after the
// process has exited (a grandchild holding it open).
const waitDelay = 5 * time.Second

// Options are the test's specifics of one node. The zero value is a node
// named "junction" that may log no warning.
type Options struct {
	// Name names the node in reports ("router", "container").
	Name string
	// AllowedWarnings are the messages of the WARN lines the node may log
	// (one ending in "*": the messages that begin with what comes before
	// it); any other warning fails the test.
	AllowedWarnings []string
	// Debug starts the node with --loglevel debug.
	Debug bool
	// Env holds "KEY=value" entries added to the node's environment, which
	// is otherwise the test process's; an entry overrides a variable of
	// that name (PATH, to choose the interpreter a worker runs).
	Env []string
}

// Node is a running junction binary. Its methods are safe for concurrent
// use.
type Node struct {
	name    string
	allowed []string
	cmd     *exec.Cmd
	log     *nodeLog
	exited  chan struct{} // closed when cmd.Wait has returned
	waitErr error         // cmd.Wait's result; read after exited is closed
	stopped sync.Once
}

// Start runs binary start --config configPath --logformat json in the
// config's directory and waits (up to StartBound) for the log line "node
// started"; it fails the test when the node exits or the bound passes
// first. When the test ends the node is stopped (see Stop).
func Start(t testing.TB, binary, configPath string, opts Options) *Node {
	t.Helper()
	return start(t, binary, filepath.Dir(configPath), []string{"--config", configPath}, opts)
}

// StartAll is Start for several nodes at once, opts[i] for the node of
// configPaths[i]: it runs them all, then waits for each to start. The
// nodes of a cluster need it: each waits at start for the others.
func StartAll(t testing.TB, binary string, configPaths []string, opts []Options) []*Node {
	t.Helper()
	nodes := make([]*Node, len(configPaths))
	for i, path := range configPaths {
		nodes[i] = launch(t, binary, filepath.Dir(path), []string{"--config", path}, opts[i])
	}
	for _, n := range nodes {
		if err := n.wait(1, MsgIs("node started")); err != nil {
			t.Fatalf("%s did not start: %v\n%s", n.name, err, n.log)
		}
	}
	return nodes
}

// FreeAddrs returns n loopback addresses ("127.0.0.1:PORT") whose ports
// the OS just chose and released: for the cluster route ports a config
// names before its node starts.
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		addrs[i] = l.Addr().String()
	}
	return addrs
}

// StartIn runs binary start --logformat json in the node directory dir, as
// a Crossbar user runs crossbar start there: the config is found in the
// default --cbdir, dir/.crossbar. Otherwise it is Start.
func StartIn(t testing.TB, binary, dir string, opts Options) *Node {
	t.Helper()
	return start(t, binary, dir, nil, opts)
}

// TryStartIn is StartIn, except for a node that exits before "node
// started" (a port another process took, say): that does not fail the
// test, TryStartIn returns an *ExitedError with the node's log, and the
// test may start it again. A node that neither starts nor exits within
// StartBound fails the test, as with StartIn.
func TryStartIn(t testing.TB, binary, dir string, opts Options) (*Node, error) {
	t.Helper()
	n := launch(t, binary, dir, nil, opts)
	err := n.wait(1, MsgIs("node started"))
	if err == nil {
		return n, nil
	}
	select {
	case <-n.exited:
		n.stopped.Do(func() {}) // gone: nothing to stop or check
		return nil, &ExitedError{Name: n.name, Status: exitStatus(n.waitErr), Log: n.log.String()}
	default:
		t.Fatalf("%s did not start: %v\n%s", n.name, err, n.log)
		return nil, err
	}
}

// ExitedError is TryStartIn's error: the node exited before it started.
type ExitedError struct {
	Name   string // Options.Name
	Status string // "exit status 1"
	Log    string // the node's whole log
}

func (e *ExitedError) Error() string {
	return fmt.Sprintf("%s exited before it started (%s); its log:\n%s", e.Name, e.Status, e.Log)
}

// start runs binary start FLAGS --logformat json in dir, for Start and
// StartIn, and waits for "node started".
func start(t testing.TB, binary, dir string, flags []string, opts Options) *Node {
	t.Helper()
	n := launch(t, binary, dir, flags, opts)
	if err := n.wait(1, MsgIs("node started")); err != nil {
		t.Fatalf("%s did not start: %v\n%s", n.name, err, n.log)
	}
	return n
}

// launch runs binary start FLAGS --logformat json in dir, stopped when
// the test ends.
func launch(t testing.TB, binary, dir string, flags []string, opts Options) *Node {
	t.Helper()
	n := &Node{name: opts.Name, allowed: opts.AllowedWarnings, log: newNodeLog(), exited: make(chan struct{})}
	if n.name == "" {
		n.name = "junction"
	}
	if binary == "" {
		t.Fatalf("%s: no junction binary (nodeproc.Build failed?)", n.name)
	}
	args := append(append([]string{"start"}, flags...), "--logformat", "json")
	if opts.Debug {
		args = append(args, "--loglevel", "debug")
	}
	n.cmd = exec.Command(binary, args...)
	n.cmd.Dir = dir
	if len(opts.Env) > 0 {
		n.cmd.Env = append(os.Environ(), opts.Env...)
	}
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	n.cmd.WaitDelay = waitDelay
	DieWithParent(n.cmd)
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", binary, err)
	}
	go func() {
		n.waitErr = n.cmd.Wait()
		close(n.exited)
	}()
	t.Cleanup(func() { n.Stop(t) })
	return n
}

// Transport is the name the log gives the transport at index of worker,
// "workers[0].transports[1]": the argument of Addr.
func Transport(worker, index int) string {
	return "workers[" + strconv.Itoa(worker) + "].transports[" + strconv.Itoa(index) + "]"
}

// Addr is the address ("127.0.0.1:PORT") the "listening" line of transport
// (see Transport) logged, "" when none did. Every listening line comes
// before "node started", so after Start an address that is "" stays so.
func (n *Node) Addr(transport string) string { return n.log.address(transport) }

// Addrs returns the logged addresses by transport (a copy).
func (n *Node) Addrs() map[string]string { return n.log.addresses() }

// PID is the node's process ID, for reading what the system says of it
// (/proc/PID on Linux). It stays the node's while the Node has not been
// stopped.
func (n *Node) PID() int { return n.cmd.Process.Pid }

// Log is the node's whole log so far (stdout and stderr).
func (n *Node) Log() string { return n.log.String() }

// WaitLog waits (up to StartBound) until count log records match; it fails
// the test, naming what, when the node exits or the bound passes first.
func (n *Node) WaitLog(t testing.TB, what string, count int, match func(Record) bool) {
	t.Helper()
	if err := n.wait(count, match); err != nil {
		t.Fatalf("%s: waiting for %s: %v\n%s", n.name, what, err, n.log)
	}
}

// wait blocks until count records match; it fails when the node has exited
// with fewer (it cannot log more) or after StartBound.
func (n *Node) wait(count int, match func(Record) bool) error {
	timer := time.NewTimer(StartBound)
	defer timer.Stop()
	for {
		got, changed := n.log.count(match)
		if got >= count {
			return nil
		}
		select {
		case <-changed:
		case <-n.exited: // the log is complete once Wait has returned
			if got, _ = n.log.count(match); got >= count {
				return nil
			}
			return fmt.Errorf("%d matching log lines of %d: it exited (%v)", got, count, exitStatus(n.waitErr))
		case <-timer.C:
			return fmt.Errorf("%d matching log lines of %d within %s", got, count, StartBound)
		}
	}
}

// Stop ends the node, once (later calls and the test's cleanup do
// nothing). When the test has not failed so far: SIGTERM by PID, exit
// status 0 within StopBound, and no unexpected log line (see Options), or
// the test fails. When it has failed: SIGKILL, and the log goes to the
// test's output.
func (n *Node) Stop(t testing.TB) {
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
func (n *Node) terminate(t testing.TB) {
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("%s: SIGTERM: %v", n.name, err)
	}
	select {
	case <-n.exited:
		if n.waitErr != nil {
			t.Errorf("%s exited with %v after SIGTERM, want status 0", n.name, n.waitErr)
		}
	case <-time.After(StopBound):
		_ = n.cmd.Process.Kill()
		<-n.exited
		t.Errorf("%s did not exit within %s of SIGTERM", n.name, StopBound)
	}
}

// exitStatus describes cmd.Wait's result.
func exitStatus(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}
