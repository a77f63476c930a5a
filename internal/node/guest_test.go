package node

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
)

// guestDoc is a node with a router listening on a Unix socket in the node
// directory (wamp.sock) and the guest workers given.
func guestDoc(guests ...string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "unix", "path": "wamp.sock"}}]}` +
		"," + strings.Join(guests, ",") + `]}`
}

// shGuest is a guest running script with /bin/sh, with more options.
func shGuest(script, options string) string {
	s, _ := json.Marshal(script)
	return `{"type": "guest", "executable": "/bin/sh", "arguments": ["-c", ` + string(s) + `], "options": {` + options + `}}`
}

// startGuests starts the node of doc in dir, logging into the returned
// history; the node stops at the end of the test.
func startGuests(t *testing.T, doc, dir string) (*Node, *logHistory) {
	t.Helper()
	logs := newLogHistory()
	n := startWith(t, parse(t, doc, nil), Options{Dir: dir, Logger: slog.New(logs)})
	return n, logs
}

// logHistory is a slog.Handler that keeps every record, so that a test
// waits for lines of several guests in any order.
type logHistory struct {
	*logRecorder // its channel only wakes waiters up
	mu           *sync.Mutex
	recs         *[]logRecord
}

func newLogHistory() *logHistory {
	return &logHistory{logRecorder: newLogRecorder(), mu: &sync.Mutex{}, recs: &[]logRecord{}}
}

func (h *logHistory) Handle(ctx context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range h.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool { rec.attrs[a.Key] = a.Value.String(); return true })
	h.mu.Lock()
	*h.recs = append(*h.recs, rec)
	h.mu.Unlock()
	select {
	case h.ch <- rec:
	default:
	}
	return nil
}

func (h *logHistory) WithAttrs(as []slog.Attr) slog.Handler {
	l := h.logRecorder.WithAttrs(as).(*logRecorder)
	return &logHistory{logRecorder: l, mu: h.mu, recs: h.recs}
}

// records returns what was logged so far that ok accepts.
func (h *logHistory) records(ok func(logRecord) bool) []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []logRecord
	for _, r := range *h.recs {
		if ok(r) {
			out = append(out, r)
		}
	}
	return out
}

// nth waits for the n-th record (from 1) that ok accepts.
func (h *logHistory) nth(t *testing.T, n int, what string, ok func(logRecord) bool) logRecord {
	t.Helper()
	for {
		if rs := h.records(ok); len(rs) >= n {
			return rs[n-1]
		}
		receive(t, h.ch, what)
	}
}

// guestLine waits for the line msg logged from the guest at path on
// stream.
func guestLine(t *testing.T, logs *logHistory, path, stream, msg string) logRecord {
	t.Helper()
	return logs.nth(t, 1, stream+" "+msg, func(r logRecord) bool {
		return r.attrs["worker"] == path && r.attrs["stream"] == stream && r.msg == msg
	})
}

// lifeLine waits for the guest at path to log msg.
func lifeLine(t *testing.T, logs *logHistory, path, msg string) logRecord {
	t.Helper()
	return logs.nth(t, 1, msg, func(r logRecord) bool { return r.attrs["worker"] == path && r.msg == msg })
}

func TestGuestShell(t *testing.T) {
	t.Setenv("JUNCTION_GUEST_INHERITED", "inherited")
	t.Setenv("JUNCTION_GUEST_OTHER", "other")
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "work"))
	script := `test -S ../wamp.sock && echo "router listening"
pwd
echo "$JUNCTION_GUEST_INHERITED ${JUNCTION_GUEST_OTHER-unset} $A $PYTHONUNBUFFERED ${HOME-nohome}"
cat; echo
echo "on stderr" >&2
exit 3`
	_, logs := startGuests(t, guestDoc(shGuest(script, `"workdir": "work",
		"env": {"inherit": ["JUNCTION_GUEST_INHERITED"], "vars": {"A": "b"}},
		"stdin": {"type": "json", "value": {"greeting": "héllo <you>", "n": 1}}`)), dir)
	const w = "workers[1]"
	started := lifeLine(t, logs, w, "guest started")
	if started.attrs["workdir"] != filepath.Join(dir, "work") || started.attrs["executable"] != "/bin/sh" {
		t.Errorf("started %+v", started.attrs)
	}
	guestLine(t, logs, w, "stdout", "router listening")
	order := logs.records(func(r logRecord) bool { return r.msg == "listening" || r.msg == "guest started" })
	if len(order) != 2 || order[0].msg != "listening" {
		t.Errorf("logged %+v, want the guest started after the router listens", order)
	}
	guestLine(t, logs, w, "stdout", filepath.Join(dir, "work"))
	guestLine(t, logs, w, "stdout", "inherited unset b 1 nohome")
	guestLine(t, logs, w, "stdout", `{"greeting":"héllo <you>","n":1}`)
	if r := guestLine(t, logs, w, "stderr", "on stderr"); r.level != slog.LevelWarn {
		t.Errorf("stderr at %v", r.level)
	}
	exit := lifeLine(t, logs, w, "guest exited; not restarted")
	if exit.level != slog.LevelWarn || exit.attrs["status"] != "process workers[1]: exit status 3" {
		t.Errorf("exit logged %v %+v", exit.level, exit.attrs)
	}
	// The node keeps running.
	mustRaw(t, "unix", filepath.Join(dir, "wamp.sock"), clientConfig())
}

func TestGuestOutputs(t *testing.T) {
	script := `trap "" PIPE
echo dropped
echo "to stderr" >&2
echo "last" >&2`
	_, logs := startGuests(t, guestDoc(
		shGuest(script, `"stdout": "drop"`),
		shGuest(`trap "" PIPE; if echo x; then echo written >&2; else echo failed >&2; fi`, `"stdout": "close"`),
		shGuest(`echo out; echo err >&2`, `"stdout": "drop", "stderr": "drop"`),
	), t.TempDir())
	guestLine(t, logs, "workers[1]", "stderr", "to stderr")
	guestLine(t, logs, "workers[1]", "stderr", "last")
	guestLine(t, logs, "workers[2]", "stderr", "failed")
	lifeLine(t, logs, "workers[1]", "guest exited; not restarted")
	lifeLine(t, logs, "workers[2]", "guest exited; not restarted")
	lifeLine(t, logs, "workers[3]", "guest exited; not restarted")
	for _, r := range logs.records(func(r logRecord) bool {
		return r.attrs["stream"] == "stdout" || r.attrs["worker"] == "workers[3]" && r.attrs["stream"] != ""
	}) {
		t.Errorf("logged %q from %s %s", r.msg, r.attrs["worker"], r.attrs["stream"])
	}
}

func TestGuestStdinLeftOpen(t *testing.T) {
	// Without "stdin" the guest's stdin stays open: read blocks until the
	// node stops it.
	n, logs := startGuests(t, guestDoc(shGuest(`echo waiting; read x; echo "read returned"`, ``)), t.TempDir())
	guestLine(t, logs, "workers[1]", "stdout", "waiting")
	stopNode(t, n)
	stopped := lifeLine(t, logs, "workers[1]", "guest stopped")
	if !strings.Contains(stopped.attrs["status"], "signal 15") {
		t.Errorf("stopped with %q, want SIGTERM", stopped.attrs["status"])
	}
	if rs := logs.records(func(r logRecord) bool { return r.msg == "read returned" }); len(rs) > 0 {
		t.Error("stdin was closed")
	}
}

func TestGuestNodeJS(t *testing.T) {
	const js = `let input = "";
process.stdin.on("data", (c) => { input += c; });
process.stdin.on("end", () => {
  const v = JSON.parse(input);
  console.log("stdin " + v.name + " " + v.list.join("+"));
  console.log("env " + process.env.GREETING + " " + (process.env.HOME === undefined));
  console.error("cwd " + process.cwd());
});`
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app", "main.js"), js)
	_, logs := startGuests(t, guestDoc(`{"type": "guest", "id": "js", "executable": "node", "arguments": ["main.js"],
		"options": {"workdir": "app", "env": {"inherit": ["PATH"], "vars": {"GREETING": "hi"}},
		"stdin": {"type": "json", "value": {"name": "node", "list": [1, 2]}}}}`), dir)
	r := guestLine(t, logs, "workers[1]", "stdout", "stdin node 1+2")
	if r.attrs["id"] != "js" {
		t.Errorf("line logged with %+v, want id js", r.attrs)
	}
	guestLine(t, logs, "workers[1]", "stdout", "env hi true")
	guestLine(t, logs, "workers[1]", "stderr", "cwd "+filepath.Join(dir, "app"))
	exit := lifeLine(t, logs, "workers[1]", "guest exited; not restarted")
	if exit.attrs["status"] != "exit status 0" {
		t.Errorf("status %q", exit.attrs["status"])
	}
}

func TestGuestExecutableInWorkdir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app", "run"), "#!/bin/sh\necho from run\n")
	if err := os.Chmod(filepath.Join(dir, "app", "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, logs := startGuests(t, guestDoc(`{"type": "guest", "executable": "run", "options": {"workdir": "app"}}`), dir)
	guestLine(t, logs, "workers[1]", "stdout", "from run")
}

func TestGuestStartErrors(t *testing.T) {
	tests := []struct {
		name  string
		guest string
		want  []string
	}{
		{"not found", `{"type": "guest", "executable": "no-such-guest-program"}`,
			[]string{"workers[1].executable", `"no-such-guest-program" not found`, "no-such-guest-program is not an executable file", "not on PATH"}},
		{"absolute", `{"type": "guest", "executable": "/no/such/program"}`,
			[]string{"workers[1].executable", "/no/such/program is not an executable file"}},
		{"not executable", `{"type": "guest", "executable": "plain.txt"}`,
			[]string{"workers[1].executable", "plain.txt is not an executable file"}},
		{"workdir", `{"type": "guest", "executable": "/bin/sh", "options": {"workdir": "missing"}}`,
			[]string{"workers[1]", "missing", "no such file"}},
		{"watch", `{"type": "guest", "executable": "/bin/sh", "options": {"watch": {"directories": ["src"], "action": "restart"}}}`,
			[]string{"workers[1].options.watch.directories[0]", "src", "no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "plain.txt"), "x")
			n, err := New(parse(t, guestDoc(tt.guest), nil), Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			err = n.Start(testCtx(t))
			if err == nil {
				stopNode(t, n)
				t.Fatal("started")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "wamp.sock")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the router's socket is left after the failed start: %v", err)
			}
		})
	}
}

func TestGuestWatchRestart(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "src"))
	n, logs := startGuests(t, guestDoc(
		shGuest(`echo "started $$"; exec sleep 600`, `"watch": {"directories": ["src"], "action": "restart", "timeout": 0}`),
		shGuest(`echo "exiting $$"`, `"watch": {"directories": ["src"], "action": "restart", "timeout": 0}`),
	), dir)
	first := guestPID(t, logs, 1, "workers[1]", "started ")
	guestPID(t, logs, 1, "workers[2]", "exiting ")
	lifeLine(t, logs, "workers[2]", "guest exited; restarted when a watched file changes")
	writeFile(t, filepath.Join(dir, "src", "app.js"), "changed")
	second := guestPID(t, logs, 2, "workers[1]", "started ")
	if second == first {
		t.Errorf("restarted with the same PID %d", first)
	}
	if err := syscall.Kill(first, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the first process %d: kill(0) = %v, want gone", first, err)
	}
	guestPID(t, logs, 2, "workers[2]", "exiting ") // an exited guest restarts too
	stopNode(t, n)
	lifeLine(t, logs, "workers[1]", "guest stopped")
}

func TestGuestWatchWithoutRestart(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "src"))
	n, logs := startGuests(t, guestDoc(shGuest(`echo "started $$"; exec sleep 600`, `"watch": {"directories": ["src"]}`)), dir)
	guestPID(t, logs, 1, "workers[1]", "started ")
	writeFile(t, filepath.Join(dir, "src", "app.js"), "changed")
	stopNode(t, n) // the change did nothing: the guest is the one stopped
	stopped := lifeLine(t, logs, "workers[1]", "guest stopped")
	if !strings.Contains(stopped.attrs["status"], "signal 15") {
		t.Errorf("stopped with %q, want SIGTERM", stopped.attrs["status"])
	}
}

// TestGuestChildrenGoneAfterStop: a guest's child that ignores SIGTERM
// does not outlive the node's stop.
func TestGuestChildrenGoneAfterStop(t *testing.T) {
	becomeSubreaper(t)
	n, logs := startGuests(t, guestDoc(shGuest(`(trap "" TERM; echo ready; exec sleep 600) & echo "child $!"; wait`, ``)), t.TempDir())
	guestLine(t, logs, "workers[1]", "stdout", "ready")
	child := guestPID(t, logs, 1, "workers[1]", "child ")
	stopNode(t, n)
	ws := waitPID(t, child)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("child %d: status %v, want killed", child, ws)
	}
}

// guestPID waits for the n-th line "<prefix><pid>" from the guest at
// path.
func guestPID(t *testing.T, logs *logHistory, n int, path, prefix string) int {
	t.Helper()
	r := logs.nth(t, n, prefix, func(r logRecord) bool {
		return r.attrs["worker"] == path && strings.HasPrefix(r.msg, prefix)
	})
	pid, err := strconv.Atoi(strings.TrimPrefix(r.msg, prefix))
	if err != nil {
		t.Fatalf("line %q: %v", r.msg, err)
	}
	return pid
}

func stopNode(t *testing.T, n *Node) {
	t.Helper()
	if err := n.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
}

// becomeSubreaper makes the test process the parent of orphaned
// descendants, so that a test can wait for a guest's child.
func becomeSubreaper(t *testing.T) {
	t.Helper()
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Fatal(errno)
	}
}

// waitPID waits for pid, a child of the test process once its parent has
// gone, and returns its status.
func waitPID(t *testing.T, pid int) syscall.WaitStatus {
	t.Helper()
	status := make(chan syscall.WaitStatus, 1)
	go func() {
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		status <- ws
	}()
	select {
	case ws := <-status:
		return ws
	case <-testCtx(t).Done():
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d still running", pid)
		return 0
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func clientConfig() client.Config { return client.Config{Realm: "realm1"} }

func TestGuestEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/root", "PYTHONUNBUFFERED=0", "EMPTY=", "X=a=b"}
	tests := []struct {
		name string
		env  config.ProcessEnv
		want []string
	}{
		{"inherit all", config.ProcessEnv{InheritAll: true},
			[]string{"EMPTY=", "HOME=/root", "PATH=/bin", "PYTHONUNBUFFERED=0", "X=a=b"}},
		{"inherit none", config.ProcessEnv{}, []string{"PYTHONUNBUFFERED=1"}},
		{"inherit a list", config.ProcessEnv{Inherit: []string{"PATH", "X", "MISSING"}},
			[]string{"PATH=/bin", "PYTHONUNBUFFERED=1", "X=a=b"}},
		{"vars over inherited", config.ProcessEnv{Inherit: []string{"PATH"}, Vars: map[string]string{"PATH": "/opt", "A": "1"}},
			[]string{"A=1", "PATH=/opt", "PYTHONUNBUFFERED=1"}},
		{"PYTHONUNBUFFERED given", config.ProcessEnv{Vars: map[string]string{"PYTHONUNBUFFERED": ""}},
			[]string{"PYTHONUNBUFFERED="}},
	}
	for _, tt := range tests {
		if got := processEnviron(tt.env, environ); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
