package process

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Output says what happens to a child's stdout or stderr.
type Output int

const (
	// Log sends each line to the Logger: stdout at Info, stderr at Warn,
	// with the attributes "worker" (Spec.Name: give a Logger without it)
	// and "stream" ("stdout" or "stderr").
	Log Output = iota
	// Drop reads the output and discards it.
	Drop
	// Close closes the node's end of the pipe at once, as Crossbar does
	// (not /dev/null): the child's writes fail with EPIPE, or SIGPIPE
	// kills it if it does not ignore that signal. The descriptor stays
	// open in the child, so no file it opens later takes its number.
	Close
)

// DefaultGrace is Crossbar's time between SIGTERM and SIGKILL.
const DefaultGrace = 20 * time.Second

// Spec is what to start. Its zero value is not startable (Path is
// required); every other field has a safe zero value.
type Spec struct {
	// Name names the process in logs and errors (a worker's id or JSON
	// path).
	Name string
	// Path is the executable. Without a slash it is looked up on the
	// node's PATH; a relative path with a slash is taken relative to the
	// node's working directory (not Dir).
	Path string
	// Args are the arguments after Path.
	Args []string
	// Dir is the working directory; "" is the node's.
	Dir string
	// Env is the complete environment ("K=V"); nil is an empty one (the
	// node's environment is never passed implicitly).
	Env []string
	// Stdin is written to the child's stdin, which is then closed; nil
	// closes it at once (the child reads end of file).
	Stdin []byte
	// KeepStdin leaves stdin open once Stdin is written, until the child
	// exits: the child never reads end of file (what Crossbar does for a
	// guest without "stdin").
	KeepStdin bool
	// Stdout and Stderr say what happens to the child's output.
	Stdout, Stderr Output
	// ExtraFiles become fd 3, 4, ... in the child. Start does not close
	// them: the caller may once Start has returned.
	ExtraFiles []*os.File
	// Logger receives the output lines; nil is slog.Default().
	Logger *slog.Logger
	// Grace is how long Stop waits between SIGTERM and SIGKILL; zero is
	// DefaultGrace.
	Grace time.Duration
}

// Process is a started child. Its methods are safe for concurrent use.
type Process struct {
	name  string
	pid   int
	proc  *os.Process
	grace time.Duration

	exited chan struct{} // closed once the leader has exited (a zombie or reaped)
	done   chan struct{} // closed once reaped and its output drained
	err    error         // written before done is closed

	mu     sync.Mutex // guards reaped, and signals against the reap
	reaped bool       // the leader's PID may be reused: signal nothing
}

// Start starts the process described by spec in its own process group,
// with SIGKILL as its parent-death signal on Linux. That signal is tied
// to the thread that forked: call Start from a goroutine that is not
// locked to an OS thread that may exit (runtime.LockOSThread without
// unlock), or the child is killed when that thread ends. The error names
// Spec.Name and Spec.Path.
func Start(spec Spec) (*Process, error) {
	path, err := resolve(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("process %s: %w", spec.Name, err)
	}
	std, err := newStdio(spec)
	if err != nil {
		return nil, fmt.Errorf("process %s: %s: %w", spec.Name, path, err)
	}
	proc, err := os.StartProcess(path, append([]string{path}, spec.Args...), &os.ProcAttr{
		Dir:   spec.Dir,
		Env:   append([]string{}, spec.Env...),
		Files: append(std.childFiles(), spec.ExtraFiles...),
		Sys:   sysProcAttr(),
	})
	std.closeChildEnds()
	if err != nil {
		std.closeParentEnds()
		return nil, fmt.Errorf("process %s: start %s: %w", spec.Name, path, err)
	}
	p := &Process{name: spec.Name, pid: proc.Pid, proc: proc, grace: spec.Grace,
		exited: make(chan struct{}), done: make(chan struct{})}
	if p.grace <= 0 {
		p.grace = DefaultGrace
	}
	go p.supervise(std.run(spec))
	return p, nil
}

// resolve returns the path to execute: looked up on PATH without a slash,
// made absolute with one.
func resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("no executable")
	}
	if !strings.Contains(path, "/") {
		return exec.LookPath(path)
	}
	return filepath.Abs(path)
}

// PID is the child's process ID, which is also its process group ID.
func (p *Process) PID() int { return p.pid }

// Done is closed when the process has exited and its output is drained.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err, once Done is closed, is nil for exit status 0, else an *ExitError
// saying the status or the signal. Before Done it is nil.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// supervise waits for the process to exit and its output to drain, and
// records how it ended.
func (p *Process) supervise(out *running) {
	state, err := p.wait()
	out.finish()
	switch {
	case err != nil:
		p.err = fmt.Errorf("process %s: wait: %w", p.name, err)
	case !state.Success():
		p.err = newExitError(p.name, state)
	}
	close(p.done)
}

// Stop ends the process: SIGTERM to its group, then, after Grace or when
// ctx ends, SIGKILL to the group. Once the leader has exited any process
// left in its group is killed too, so no child outlives it. Stop returns
// when Done is closed. It is safe to call more than once, concurrently,
// and after the process has exited.
func (p *Process) Stop(ctx context.Context) error {
	err := p.signal(syscall.SIGTERM)
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
	case <-ctx.Done():
	}
	err = errors.Join(err, p.signal(syscall.SIGKILL))
	<-p.done
	return err
}
