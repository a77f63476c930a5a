package nodeproc

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// startFake starts this test binary as a fake node in mode (see fakeNode),
// for the recorder t.
func startFake(t *testing.T, r *recorder, mode string, opts Options) *Node {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, mode)
	return Start(r, bin, WriteConfig(r, map[string]any{"version": 2}), opts)
}

// TestStartIn checks that StartIn runs the node in its node directory, with
// the config in .crossbar found by default, and with the environment of
// Options.Env added to the test's.
func TestStartIn(t *testing.T) {
	bin, dir := fakeNodeDir(t, "ok")
	t.Setenv(probeEnv, "inherited")
	r := &recorder{TB: t}
	r.run(func(tb testing.TB) {
		n := StartIn(r, bin, dir, Options{Env: []string{probeEnv + "=set"}})
		n.WaitLog(tb, "the environment of Options.Env", 1, MsgIs("node started", probeEnv, "set"))
	})
	if got := r.errorText(); got != "" {
		t.Errorf("failed: %s", got)
	}
}

// fakeNodeDir is a node directory (an empty config in .crossbar) for
// the fake node, with this test binary as the node in mode.
func fakeNodeDir(t *testing.T, mode string) (bin, dir string) {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, mode)
	dir = t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".crossbar"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".crossbar", "config.json"), []byte(`{"version": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

// TestTryStartIn: a node that starts is returned (and stopped cleanly
// when the test ends); one that exits before it starts fails nothing,
// and its error holds its exit status and log.
func TestTryStartIn(t *testing.T) {
	t.Run("starts", func(t *testing.T) {
		bin, dir := fakeNodeDir(t, "ok")
		r := &recorder{TB: t}
		r.run(func(tb testing.TB) {
			if n, err := TryStartIn(r, bin, dir, Options{}); n == nil || err != nil {
				tb.Errorf("TryStartIn: %v %v", n, err)
			}
		})
		if got := r.errorText(); got != "" {
			t.Errorf("failed: %s", got)
		}
	})
	t.Run("exits", func(t *testing.T) {
		bin, dir := fakeNodeDir(t, "early")
		r := &recorder{TB: t}
		var err error
		r.run(func(tb testing.TB) {
			var n *Node
			n, err = TryStartIn(r, bin, dir, Options{Name: "router"})
			if n != nil {
				tb.Errorf("a node that exited: %v", n)
			}
		})
		if got := r.errorText(); got != "" {
			t.Errorf("failed: %s", got)
		}
		var e *ExitedError
		if !errors.As(err, &e) || e.Name != "router" || e.Status != "exit status 2" || !strings.Contains(e.Log, `"msg":"config invalid"`) {
			t.Errorf("error %#v, want the exit status and the log", err)
		}
	})
}

// TestStartStop checks which nodes pass and which fail the test, and why.
func TestStartStop(t *testing.T) {
	allow := Options{AllowedWarnings: []string{"expected warning"}}
	cases := []struct {
		name     string
		mode     string
		opts     Options
		wantFail string // in the recorded failure; "" for none
	}{
		{name: "clean", mode: "ok"},
		{name: "warning", mode: "warn", wantFail: "junction logged warnings, errors or non-JSON lines"},
		{name: "allowed warning", mode: "warn", opts: allow},
		{name: "other warning allowed", mode: "warn", opts: Options{AllowedWarnings: []string{"other"}}, wantFail: `"msg":"expected warning"`},
		{name: "error", mode: "error", opts: allow, wantFail: `"level":"ERROR"`},
		{name: "non-JSON line", mode: "garbage", opts: Options{Name: "router"}, wantFail: "router logged warnings, errors or non-JSON lines:\npanic: boom"},
		{name: "unfinished line", mode: "partial", wantFail: `{"level":"INFO","msg":"unfinis`},
		{name: "exit status", mode: "exit1", wantFail: "junction exited with exit status 1 after SIGTERM, want status 0"},
		{name: "exit before start", mode: "early", wantFail: "junction did not start: 0 matching log lines of 1: it exited (exit status 2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			r.run(func(testing.TB) { startFake(t, r, tc.mode, tc.opts) })
			got := r.errorText()
			if tc.wantFail == "" && got != "" {
				t.Errorf("failed: %s", got)
			}
			if tc.wantFail != "" && !strings.Contains(got, tc.wantFail) {
				t.Errorf("failure %q, want it to contain %q", got, tc.wantFail)
			}
		})
	}
}

// TestAddr checks the addresses of the "listening" lines.
func TestAddr(t *testing.T) {
	r := &recorder{TB: t}
	r.run(func(testing.TB) {
		n := startFake(t, r, "ok", Options{})
		want := map[string]string{"workers[0].transports[0]": "127.0.0.1:1001", "workers[0].transports[1]": "127.0.0.1:1002"}
		if got := n.Addrs(); !maps.Equal(got, want) {
			t.Errorf("Addrs() = %v, want %v", got, want)
		}
		if got := n.Addr(Transport(0, 1)); got != "127.0.0.1:1002" {
			t.Errorf("Addr(%q) = %q, want 127.0.0.1:1002", Transport(0, 1), got)
		}
		if got := n.Addr(Transport(0, 2)); got != "" {
			t.Errorf("Addr of a transport that did not listen = %q, want \"\"", got)
		}
	})
	if got := r.errorText(); got != "" {
		t.Errorf("failed: %s", got)
	}
}

// TestPID checks that PID is the process that runs the node: the one
// the fake logs as its own.
func TestPID(t *testing.T) {
	r := &recorder{TB: t}
	r.run(func(tb testing.TB) {
		n := startFake(t, r, "ok", Options{})
		n.WaitLog(tb, "the node's own pid", 1, MsgIs("node started", "pid", strconv.Itoa(n.PID())))
	})
	if got := r.errorText(); got != "" {
		t.Errorf("failed: %s", got)
	}
}

// TestFailedTestKills checks that a node of a test that failed is killed,
// not stopped, and that its log is reported.
func TestFailedTestKills(t *testing.T) {
	r := &recorder{TB: t}
	r.run(func(tb testing.TB) {
		startFake(t, r, "exit1", Options{Name: "router"})
		tb.Errorf("the test failed")
	})
	if got := r.errorText(); got != "the test failed" {
		t.Errorf("failures %q, want only the test's own", got)
	}
	want := "router (killed, the test failed): signal: killed\nits log:\n"
	if got := r.logText(); !strings.HasPrefix(got, want) || !strings.Contains(got, `"msg":"node started"`) {
		t.Errorf("report %q, want it to start with %q and hold the log", got, want)
	}
}

// TestWaitLog checks waiting for log lines, before and after an explicit
// Stop (which the cleanup must not repeat).
func TestWaitLog(t *testing.T) {
	r := &recorder{TB: t}
	var log string
	r.run(func(tb testing.TB) {
		n := startFake(t, r, "ok", Options{Name: "container"})
		n.WaitLog(tb, "the component", 1, MsgIs("component ready"))
		n.Stop(tb)
		log = n.Log()
		n.WaitLog(tb, "the component again", 2, MsgIs("component ready"))
		t.Error("WaitLog returned for a line the stopped node never logged")
	})
	want := "container: waiting for the component again: 1 matching log lines of 2: it exited (status 0)"
	if got := r.errorText(); !strings.HasPrefix(got, want) {
		t.Errorf("failure %q, want it to start with %q", got, want)
	}
	if !strings.Contains(log, `"msg":"component ready"`) {
		t.Errorf("Log() = %q, want the component's line", log)
	}
}
