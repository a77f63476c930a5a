package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/process"
)

// guestUnit runs a guest worker: a program started once the routers
// listen, its output in the node log, never restarted when it exits
// (the node keeps running), restarted when a watched file changes, and
// stopped with its children at node stop (SIGTERM to its process group,
// SIGKILL after the grace).
//
// Its run loop owns the running process; start, stop and the watcher
// talk to it over channels.
type guestUnit struct {
	path  string       // its JSON path, "workers[2]"
	spec  guestSpec    // what to start, each time
	log   *slog.Logger // the guest's own lines: worker (and id)
	watch *guestWatch  // nil: nothing watched

	quit    chan context.Context // the node stops: stop within this context
	changed chan struct{}        // a watched file changed (buffered, 1)
	done    chan struct{}        // closed when run has returned; nil until started
}

// guestWatch is a guest's "watch", its directories absolute.
type guestWatch struct {
	dirs    []string
	restart bool
	timeout time.Duration
	path    string // "workers[2].options.watch"
}

// guestWorker builds the unit of a guest worker; nothing touches the
// system before Start.
func (b *builder) guestWorker(path string, w *config.GuestWorker) {
	spec, err := b.guestSpec(path, w)
	if err != nil {
		b.fail(err)
		return
	}
	log := b.log
	if w.ID != "" {
		log = log.With("id", w.ID)
	}
	g := &guestUnit{path: path, spec: spec, log: log,
		quit: make(chan context.Context), changed: make(chan struct{}, 1)}
	if ww := w.Options.Watch; ww != nil && len(ww.Directories) > 0 {
		g.watch = &guestWatch{restart: ww.Action == "restart", timeout: ww.Timeout, path: path + ".options.watch"}
		for _, d := range ww.Directories {
			g.watch.dirs = append(g.watch.dirs, b.resolve(d))
		}
	}
	b.node.guests = append(b.node.guests, g)
}

// lifeLog is the logger of the unit's own lines (started, exited).
func (g *guestUnit) lifeLog() *slog.Logger { return g.log.With("worker", g.path) }

// start checks the watched directories, starts the guest and its run
// loop. The error names the JSON path of what is wrong.
func (g *guestUnit) start() error {
	if err := g.watch.check(); err != nil {
		return err
	}
	var watcher *process.Watcher
	if g.watch != nil {
		watcher = process.NewWatcher(g.watch.dirs) // a change from now on counts
	}
	p, err := g.spawn()
	if err != nil {
		return err
	}
	g.done = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	if watcher != nil {
		wg.Go(func() { watcher.Run(ctx, 0, g.notify) })
	}
	go func() {
		g.run(p)
		cancel()
		wg.Wait()
		close(g.done)
	}()
	return nil
}

// check reports a watched directory that is not one.
func (w *guestWatch) check() error {
	if w == nil {
		return nil
	}
	for i, d := range w.dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s.directories[%d]: %s: %w", w.path, i, d, notDir(err))
		}
	}
	return nil
}

// notDir is the error of a stat that found no directory: err, or "not a
// directory" when the stat succeeded on a file.
func notDir(err error) error {
	if err == nil {
		return errors.New("not a directory")
	}
	if u := errors.Unwrap(err); u != nil {
		return u // the *PathError's path is said already
	}
	return err
}

// notify tells the run loop that a watched file changed.
func (g *guestUnit) notify() {
	select {
	case g.changed <- struct{}{}:
	default: // one is pending already
	}
}

// spawn starts the guest process once.
func (g *guestUnit) spawn() (*process.Process, error) {
	s := g.spec
	if fi, err := os.Stat(s.workdir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s.options.workdir: %s: %w", g.path, s.workdir, notDir(err))
	}
	exe, err := findExecutable(s.executable, s.workdir)
	if err != nil {
		return nil, fmt.Errorf("%s.executable: %w", g.path, err)
	}
	p, err := process.Start(process.Spec{Name: g.path, Path: exe, Args: s.args, Dir: s.workdir,
		Env: processEnviron(s.env, os.Environ()), Stdin: s.stdin, KeepStdin: s.keepStdin,
		Stdout: s.stdout, Stderr: s.stderr, Logger: g.log}) // Crossbar's grace: process.DefaultGrace
	if err != nil {
		return nil, err
	}
	g.lifeLog().Info("guest started", "pid", p.PID(), "executable", exe, "arguments", s.args, "workdir", s.workdir)
	return p, nil
}

// run supervises the guest until the node stops: an exit is logged and
// not restarted; a watched change restarts it (the old process stopped,
// then the new one started "timeout" later); the node's stop ends it.
func (g *guestUnit) run(p *process.Process) {
	r := &guestRun{g: g, p: p}
	for {
		select {
		case ctx := <-g.quit:
			r.stop(ctx)
			return
		case <-r.exited():
			r.onExit()
		case <-g.changed:
			r.onChange()
		case <-r.due:
			r.onDue()
		}
	}
}

// guestRun is the state of a guest's run loop, used by it alone.
type guestRun struct {
	g          *guestUnit
	p          *process.Process // nil while no process runs
	restarting bool             // p is being stopped to restart
	due        <-chan time.Time // the restart is due; nil when none is
}

// exited is p's Done, or nil (never ready) when no process runs.
func (r *guestRun) exited() <-chan struct{} {
	if r.p == nil {
		return nil
	}
	return r.p.Done()
}

// onExit: a guest's own exit is logged, never restarted, and the node
// goes on; a restart's goes on to the start, "timeout" later.
func (r *guestRun) onExit() {
	if r.restarting {
		r.due = time.After(r.g.watch.timeout)
	} else {
		msg := "guest exited; not restarted"
		if r.g.watch != nil && r.g.watch.restart {
			msg = "guest exited; restarted when a watched file changes"
		}
		r.g.lifeLog().Warn(msg, "pid", r.p.PID(), "status", status(r.p))
	}
	r.p, r.restarting = nil, false
}

// onChange restarts the guest (one that has exited too), unless a
// restart is under way.
func (r *guestRun) onChange() {
	w := r.g.watch // not nil: only its watcher sends a change
	if !w.restart || r.restarting || r.due != nil {
		return
	}
	r.g.lifeLog().Info("watched files changed: restarting the guest", "directories", w.dirs)
	if r.p == nil {
		r.due = time.After(w.timeout)
		return
	}
	r.restarting = true
	go r.p.Stop(context.Background()) // its end comes as exited
}

// onDue starts the guest again; a failure waits for the next change.
func (r *guestRun) onDue() {
	r.due = nil
	var err error
	if r.p, err = r.g.spawn(); err != nil {
		r.g.lifeLog().Error("guest restart failed", "err", err)
	}
}

// stop stops the process, if one runs, at node stop.
func (r *guestRun) stop(ctx context.Context) {
	if r.p == nil {
		return
	}
	if err := r.p.Stop(ctx); err != nil {
		r.g.lifeLog().Error("guest stop", "err", err)
	}
	r.g.lifeLog().Info("guest stopped", "pid", r.p.PID(), "status", status(r.p))
}

// status says how p ended.
func status(p *process.Process) string {
	if err := p.Err(); err != nil {
		return err.Error()
	}
	return "exit status 0"
}

// stop ends the guest and its children: SIGTERM, then SIGKILL after the
// grace or when ctx ends. It returns once they are gone. A guest never
// started has nothing to stop.
func (g *guestUnit) stop(ctx context.Context) {
	if g.done == nil {
		return
	}
	g.quit <- ctx
	<-g.done
}

// guestSpec is a guest's process, translated from its config once.
type guestSpec struct {
	executable     string // as configured: found at each start
	args           []string
	workdir        string // absolute
	env            config.ProcessEnv
	stdin          []byte
	keepStdin      bool
	stdout, stderr process.Output
}

func (b *builder) guestSpec(path string, w *config.GuestWorker) (guestSpec, error) {
	o := w.Options
	s := guestSpec{executable: w.Executable, args: w.Arguments, workdir: b.resolve(o.Workdir), env: o.Env,
		stdout: guestOutput(o.Stdout), stderr: guestOutput(o.Stderr), keepStdin: o.Stdin == nil}
	if o.Stdin != nil && o.Stdin.Type == "json" {
		data, err := stdinJSON(o.Stdin.Value)
		if err != nil {
			return s, fieldError(path+".options.stdin.value", err)
		}
		s.stdin, s.keepStdin = data, !o.Stdin.Close
	}
	return s, nil
}

// stdinJSON encodes a guest's stdin value as Crossbar does: JSON, UTF-8
// unescaped, no newline after it.
func stdinJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// guestOutput translates "log", "drop" or "close".
func guestOutput(s string) process.Output {
	switch s {
	case "drop":
		return process.Drop
	case "close":
		return process.Close
	}
	return process.Log
}
