//go:build linux

package process

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOutputIsLoggedByStream(t *testing.T) {
	p, c := start(t, Spec{Name: "worker1", Path: "/bin/sh",
		Args: []string{"-c", "echo out1; echo err1 >&2; printf 'crlf\\r\\nno newline'"}})
	wait(t, p)
	got := c.records()
	want := []record{
		{level: 0, msg: "out1", name: "worker1", stream: "stdout"},
		{level: 4, msg: "err1", name: "worker1", stream: "stderr"},
		{level: 0, msg: "crlf", name: "worker1", stream: "stdout"},
		{level: 0, msg: "no newline", name: "worker1", stream: "stdout"},
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%+v not logged; got %+v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("logged %+v, want %+v", got, want)
	}
}

func TestLongLineIsSplit(t *testing.T) {
	p, c := start(t, sh("head -c 70000 /dev/zero | tr '\\0' x"))
	wait(t, p)
	var n int
	for _, r := range c.records() {
		if len(r.msg) > maxLine {
			t.Errorf("a line of %d bytes logged", len(r.msg))
		}
		n += len(r.msg)
	}
	if n != 70000 {
		t.Errorf("logged %d bytes, want 70000", n)
	}
}

func TestStdinReachesTheChild(t *testing.T) {
	p, c := start(t, Spec{Path: "/bin/sh", Args: []string{"-c", "cat"}, Stdin: []byte(`{"a": 1}` + "\n")})
	wait(t, p)
	if got := c.records(); len(got) != 1 || got[0].msg != `{"a": 1}` {
		t.Errorf("logged %+v, want the stdin line", got)
	}
	if err := p.Err(); err != nil {
		t.Errorf("Err = %v", err)
	}
}

func TestNilStdinIsClosed(t *testing.T) {
	p, _ := start(t, sh("cat"))
	wait(t, p) // cat reads end of file at once
	if err := p.Err(); err != nil {
		t.Errorf("Err = %v", err)
	}
}

func TestKeepStdin(t *testing.T) {
	spec := sh(`read line; echo "$line"; if read more; then echo more; else echo eof; fi`)
	spec.Stdin = []byte("first\n")
	spec.KeepStdin = true
	p, c := start(t, spec)
	if got := c.next(t).msg; got != "first" {
		t.Fatalf("logged %q, want first", got)
	}
	// The child waits in read: stdin is still open. Stop ends it.
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertSignal(t, p, syscall.SIGTERM)
	if got := c.records(); len(got) != 1 {
		t.Errorf("logged %+v, want only the first line", got)
	}
}

// TestOutputs runs a child that prints a line on stdout, ignoring
// SIGPIPE, and says on stderr whether the write failed.
func TestOutputs(t *testing.T) {
	const script = `trap "" PIPE; if echo line; then echo written >&2; else echo failed >&2; fi`
	tests := []struct {
		out  Output
		want []string
	}{
		{Log, []string{"line", "written"}},
		{Drop, []string{"written"}},
		{Close, []string{"/bin/sh: 1: echo: echo: I/O error", "failed"}},
	}
	for _, tt := range tests {
		spec := sh(script)
		spec.Stdout = tt.out
		p, c := start(t, spec)
		wait(t, p)
		var got []string
		for _, r := range c.records() {
			got = append(got, r.msg)
		}
		slices.Sort(got)
		slices.Sort(tt.want)
		if !slices.Equal(got, tt.want) {
			t.Errorf("output %d: logged %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestStderrClosed(t *testing.T) {
	spec := sh(`trap "" PIPE; if echo line >&2; then echo written; else echo failed; fi`)
	spec.Stderr = Close
	p, c := start(t, spec)
	wait(t, p)
	if got := c.records(); len(got) != 1 || got[0].msg != "failed" {
		t.Errorf("logged %+v, want failed", got)
	}
}

func TestCloseKillsWithSIGPIPE(t *testing.T) {
	spec := sh(`echo line; echo after >&2`)
	spec.Stdout = Close
	p, c := start(t, spec)
	wait(t, p)
	assertSignal(t, p, syscall.SIGPIPE)
	if got := c.records(); len(got) != 0 {
		t.Errorf("logged %+v after SIGPIPE", got)
	}
}

func TestExtraFilesAreFD3(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	spec := sh("echo through fd 3 >&3")
	spec.ExtraFiles = []*os.File{w}
	p, _ := start(t, spec)
	w.Close()
	wait(t, p)
	b := make([]byte, 64)
	n, _ := r.Read(b)
	if got := string(b[:n]); got != "through fd 3\n" {
		t.Errorf("read %q from fd 3", got)
	}
}

func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	spec := sh(`echo "$FOO ${HOME-unset} $(pwd)"`)
	spec.Env = []string{"FOO=bar"}
	spec.Dir = dir
	p, c := start(t, spec)
	wait(t, p)
	if got := c.records(); len(got) != 1 || got[0].msg != "bar unset "+dir {
		t.Errorf("logged %+v, want the environment and directory", got)
	}
}

func TestErr(t *testing.T) {
	tests := []struct {
		script string
		want   *ExitError // nil: success
	}{
		{"exit 0", nil},
		{"exit 3", &ExitError{Name: "test", Code: 3}},
		{"kill -USR1 $$", &ExitError{Name: "test", Code: -1, Signal: syscall.SIGUSR1}},
	}
	for _, tt := range tests {
		p, _ := start(t, sh(tt.script))
		wait(t, p)
		err := p.Err()
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: Err = %v, want nil", tt.script, err)
			}
			continue
		}
		var e *ExitError
		if !errors.As(err, &e) || *e != *tt.want {
			t.Errorf("%s: Err = %#v, want %#v", tt.script, err, tt.want)
		}
	}
}

func TestErrMessages(t *testing.T) {
	tests := []struct {
		err  *ExitError
		want string
	}{
		{&ExitError{Name: "w", Code: 3}, "process w: exit status 3"},
		{&ExitError{Name: "w", Code: -1, Signal: syscall.SIGKILL}, "process w: killed by signal 9 (killed)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestErrIsNilBeforeDone(t *testing.T) {
	p, _ := start(t, sh("exec sleep 600"))
	if err := p.Err(); err != nil {
		t.Errorf("Err before Done = %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		spec Spec
		want []string
	}{
		{Spec{Name: "w1", Path: "no-such-program-junction"}, []string{"w1", "no-such-program-junction"}},
		{Spec{Name: "w2", Path: "/no/such/program"}, []string{"w2", "/no/such/program"}},
		{Spec{Name: "w3", Path: "/bin/sh", Dir: "/no/such/dir"}, []string{"w3", "/bin/sh", "no such file"}},
		{Spec{Name: "w4"}, []string{"w4", "no executable"}},
	}
	for _, tt := range tests {
		p, err := Start(tt.spec)
		if err == nil {
			p.Stop(context.Background())
			t.Errorf("%+v: started", tt.spec)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q does not say %q", tt.spec, err, w)
			}
		}
	}
}

// ignoreTerm is a child that ignores SIGTERM (and so does the sleep it
// becomes), once it has said "ready".
const ignoreTerm = `trap "" TERM; echo ready; exec sleep 600`

func TestStopEscalatesToSIGKILL(t *testing.T) {
	spec := sh(ignoreTerm)
	spec.Grace = 50 * time.Millisecond
	p, c := start(t, spec)
	c.next(t) // ready: SIGTERM is ignored from now on
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertSignal(t, p, syscall.SIGKILL)
}

func TestStopKillsWhenContextEnds(t *testing.T) {
	spec := sh(ignoreTerm)
	spec.Grace = time.Hour
	p, c := start(t, spec)
	c.next(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	assertSignal(t, p, syscall.SIGKILL)
}

func TestStopTerminates(t *testing.T) {
	p, _ := start(t, sh("exec sleep 600"))
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertSignal(t, p, syscall.SIGTERM)
}

func TestStopTwiceAndAfterExit(t *testing.T) {
	p, _ := start(t, sh("exit 0"))
	wait(t, p)
	for range 2 {
		if err := p.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Err(); err != nil {
		t.Errorf("Err = %v", err)
	}
	q, _ := start(t, sh("exec sleep 600"))
	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- q.Stop(context.Background()) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	assertSignal(t, q, syscall.SIGTERM)
}

func assertSignal(t *testing.T, p *Process, sig syscall.Signal) {
	t.Helper()
	var e *ExitError
	if err := p.Err(); !errors.As(err, &e) || e.Signal != sig {
		t.Errorf("Err = %v, want killed by %v", err, sig)
	}
}

// TestStopKillsGrandchildren: a shell whose child ignores SIGTERM; Stop
// terminates the shell, and the child, left in the group, is killed.
func TestStopKillsGrandchildren(t *testing.T) {
	becomeSubreaper(t)
	p, c := start(t, sh(`(trap "" TERM; echo ready; exec sleep 600) & echo $!; wait`))
	first, second := c.next(t).msg, c.next(t).msg // the PID and ready, in any order
	child := pidOf(t, strings.TrimPrefix(first+second, "ready"))
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertSignal(t, p, syscall.SIGTERM)
	assertKilled(t, child)
}

// TestExitKillsGrandchildren: a shell that exits leaving a child behind,
// which holds its stdout: Done still comes, and the child is killed.
func TestExitKillsGrandchildren(t *testing.T) {
	becomeSubreaper(t)
	p, c := start(t, sh(`sleep 600 & echo $!`))
	child := pidOf(t, c.next(t).msg)
	wait(t, p)
	if err := p.Err(); err != nil {
		t.Errorf("Err = %v", err)
	}
	assertKilled(t, child)
}

// becomeSubreaper makes the test process the parent of orphaned
// descendants, so that it can wait for a grandchild rather than guess.
func becomeSubreaper(t *testing.T) {
	t.Helper()
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Fatal(errno)
	}
}

func pidOf(t *testing.T, s string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSuffix(s, "ready"))
	if err != nil {
		t.Fatalf("not a PID: %q", s)
	}
	return pid
}

// assertKilled waits for pid, a child of the test process by now (its
// parent is gone and the test is the subreaper), and checks that SIGKILL
// ended it.
func assertKilled(t *testing.T, pid int) {
	t.Helper()
	status := make(chan syscall.WaitStatus, 1)
	go func() {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		status <- ws
	}()
	select {
	case ws := <-status:
		if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("grandchild %d: status %v, want killed", pid, ws)
		}
	case <-time.After(30 * time.Second):
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d still running", pid)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) = %v, want no such process", pid, err)
	}
}
