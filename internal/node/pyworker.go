package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/process"
	"github.com/junction-wamp/junction/internal/pyrunner"
)

// pyWorker is a worker's Python runner: one process (package pyrunner's
// program) that runs the worker's Python class components, and their
// lifecycles. A router worker's components join its router from inside;
// a container's join over their own transports, and its restart and
// shutdown modes act on their sessions. The runner ending, or the
// container shutting down, is the worker's exit, which the node weighs
// against the controller's shutdown triggers.
//
// start and stop are called by the Node, one at a time, start first. Once
// started, one goroutine (supervise) owns the components' state: the
// sessions' ends come to it on ends.
type pyWorker struct {
	path      string             // "workers[1]"
	router    bool               // a router worker's (its components join from inside)
	python    string             // the interpreter, resolved
	spec      process.Spec       // the runner's process, but its control channel
	comps     []*pyComponent     // in config order, replaced by a reload under cmu
	cmu       sync.Mutex         // guards comps
	auths     *functionAuths     // a router's function authenticators, made first; nil for none
	restart   string             // a container's config.Restart* ("" for a router)
	shutdown  string             // a container's config.Shutdown* ("" for a router)
	log       *slog.Logger       // with "worker"
	exited    func(workerExit)   // tells the node the worker has exited
	ctx       context.Context    // ends at stop or when the worker exits
	cancel    context.CancelFunc // ends ctx
	stopped   atomic.Bool        // stop was called: an exit is not reported
	ends      chan runEnd        // the sessions' ends, to supervise
	removals  chan *pyComponent  // the components a reload stops, to supervise
	additions chan *pyRun        // the runs of components a reload added, to supervise
	wg        sync.WaitGroup     // supervise, the runs' goroutines, restarts
	proc      *process.Process   // set by start
	ch        *pyrunner.Channel  // set by start
	startedOK bool               // start succeeded; read by stop
}

// pyComponent is one Python class component of a worker.
type pyComponent struct {
	path string            // "workers[1].components[0]"
	cfg  *config.Component // Classname, Realm, Extra
	// serve runs the node's end of a session's socket pair until the
	// session ends, and reports whether the connection to the router was
	// lost (container components), or why it could not be served.
	serve func(ctx context.Context, r *pyrunner.Run) (lost bool, err error)
	// quickEnds counts the runs in a row that ended within
	// restartResetAfter of their start (or did not start); supervise owns
	// it.
	quickEnds int
	// joined is true from the moment a run is ready (joined, onJoin
	// returned) until its session ends: the node's readiness reads it at
	// any time.
	joined atomic.Bool
	// removed ends when a reload stops the component: its run's
	// connection closes, a restart waiting is dropped. remove ends it.
	removed context.Context
	remove  context.CancelFunc
	// gone is closed by supervise once a removed component's last run is
	// over.
	gone chan struct{}
	// active (counted among the running) and dropped (a reload stopped
	// it) are supervise's.
	active, dropped bool
}

// newPyComponent makes the component at path of config c, served by
// serve.
func newPyComponent(path string, c *config.Component, serve func(context.Context, *pyrunner.Run) (bool, error)) *pyComponent {
	removed, remove := context.WithCancel(context.Background())
	return &pyComponent{path: path, cfg: c, serve: serve, removed: removed, remove: remove, gone: make(chan struct{})}
}

// pyRun is one run of a component: its session and the node's end of it.
type pyRun struct {
	comp     *pyComponent
	run      *pyrunner.Run
	started  time.Time
	cancel   context.CancelFunc // ends the serving (a dial in progress)
	release  func() bool        // drops the closing of the run at its component's removal
	served   chan struct{}      // closed when serve has returned
	lost     bool               // serve's result; read after served
	serveErr error              // serve's error; read after served
}

// runEnd is a session's end, as supervise weighs it.
type runEnd struct {
	comp   *pyComponent
	failed bool   // an exception escaped its code, or its connection was lost
	reason string // for the log
	quick  bool   // it ended within restartResetAfter of its start, or did not start
}

// restartResetAfter: a run that lasts this long resets its component's
// restart delay.
const restartResetAfter = 10 * time.Second

// restartDelay is how long a container waits before it restarts a
// component whose runs ended quickly n times in a row: at once the first
// time, as Crossbar does, then doubling from half a second to 30 s, so
// that a component that fails at once does not restart in a tight loop.
// Tests replace it.
var restartDelay = func(n int) time.Duration {
	const first, most = 500 * time.Millisecond, 30 * time.Second
	switch {
	case n <= 1:
		return 0
	case n > 8: // 500 ms << 6 is past most already; a bigger shift overflows
		return most
	}
	return min(first<<(n-2), most)
}

// start starts the runner and then each component in order, waiting until
// each is ready (its onJoin has returned), as Crossbar starts them. A
// component that fails to start fails the start (Crossbar's node exits).
// ctx bounds the start.
func (w *pyWorker) start(ctx context.Context) error {
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.ends = make(chan runEnd)
	w.removals, w.additions = make(chan *pyComponent), make(chan *pyRun)
	if err := w.startRunner(ctx); err != nil {
		w.cancel()
		return err
	}
	if err := w.makeAuthenticators(ctx); err != nil {
		w.cancel()
		w.stopRunner(ctx)
		return err
	}
	var runs []*pyRun
	for _, c := range w.components() {
		pr, err := w.startRun(ctx, c)
		if err != nil {
			w.cancel()
			w.stopRunner(ctx)
			w.wg.Wait() // the runs' goroutines end with the runner
			return err
		}
		runs = append(runs, pr)
		c.active = true
	}
	for _, pr := range runs {
		w.wg.Go(func() { w.watch(pr) })
	}
	w.startedOK = true
	w.wg.Go(w.supervise)
	return nil
}

// startRunner spawns the runner and waits until it is ready for calls.
func (w *pyWorker) startRunner(ctx context.Context) error {
	ch, fd, err := pyrunner.NewChannel(w.log)
	if err != nil {
		return pathError(w.path, err)
	}
	spec := w.spec
	spec.ExtraFiles = []*os.File{fd}
	proc, err := process.Start(spec)
	fd.Close()
	if err != nil {
		ch.Close()
		return pathError(w.path, fmt.Errorf("node: Python runner: %w", err))
	}
	w.proc, w.ch = proc, ch
	hello, err := ch.Hello(ctx)
	if err != nil {
		w.stopRunner(ctx)
		return pathError(w.path, w.runnerError(err))
	}
	w.log.Info("Python runner started", "pid", proc.PID(), "python", hello.Executable, "version", hello.Python,
		"twisted", hello.Twisted, "autobahn", hello.Autobahn, "components", len(w.components()))
	return nil
}

// makeAuthenticators makes the worker's function authenticators in its
// runner, before its components start (and the router's listeners open).
func (w *pyWorker) makeAuthenticators(ctx context.Context) error {
	if w.auths.empty() {
		return nil
	}
	if err := w.auths.make(ctx, w.ch, w.python); err != nil {
		if errors.Is(err, pyrunner.ErrEnded) {
			return pathError(w.path, w.runnerError(err))
		}
		return err
	}
	return nil
}

// runnerError words why a runner is not ready: it cannot run, or it ended.
func (w *pyWorker) runnerError(err error) error {
	var fatal *pyrunner.FatalError
	switch {
	case errors.As(err, &fatal):
		return fmt.Errorf("node: %s cannot run Python components: %s (install Autobahn and Twisted for that interpreter, e.g. apt install python3-autobahn python3-twisted, or set options.python)", w.python, fatal.Message)
	case errors.Is(err, pyrunner.ErrEnded):
		return fmt.Errorf("node: the Python runner (%s) ended before it was ready: %v", w.python, exitStatus(w.proc))
	}
	return fmt.Errorf("node: Python runner (%s): %w", w.python, err)
}

// exitStatus waits for p's exit and says it.
func exitStatus(p *process.Process) string {
	<-p.Done()
	if err := p.Err(); err != nil {
		return err.Error()
	}
	return "exit status 0"
}

// startRun starts one run of c and waits until it is ready.
func (w *pyWorker) startRun(ctx context.Context, c *pyComponent) (*pyRun, error) {
	run, err := w.ch.Start(pyrunner.Component{ID: c.path, Classname: c.cfg.Classname, Realm: c.cfg.Realm,
		Extra: c.cfg.Extra, Router: w.router})
	if err != nil {
		return nil, pathError(c.path, fmt.Errorf("node: Python class %q: %w", c.cfg.Classname, err))
	}
	serveCtx, cancel := context.WithCancel(w.ctx)
	pr := &pyRun{comp: c, run: run, started: time.Now(), cancel: cancel, served: make(chan struct{}),
		release: context.AfterFunc(c.removed, func() { run.Conn.Close() })}
	w.wg.Go(func() {
		defer close(pr.served)
		pr.lost, pr.serveErr = c.serve(serveCtx, run)
	})
	joined, err := run.Ready(ctx)
	if err != nil {
		cancel()
		pr.release()
		run.Conn.Close()
		<-pr.served
		return nil, w.startError(c, err, pr.serveErr)
	}
	c.joined.Store(true)
	w.log.Info("component ready", "component", c.path, "class", c.cfg.Classname, "realm", c.cfg.Realm,
		"session", joined.Session, "authrole", joined.AuthRole)
	return pr, nil
}

// startError words why c did not start, at the path of what is wrong:
// the class, its extra (check_config), its transport (the node could not
// connect), or the component.
func (w *pyWorker) startError(c *pyComponent, err, serveErr error) error {
	if serveErr != nil {
		return fieldError(c.path+".transport", serveErr)
	}
	path := c.path
	var se *pyrunner.StartError
	if errors.As(err, &se) {
		if se.Traceback != "" {
			w.log.Error("component failed to start", "component", c.path, "class", c.cfg.Classname, "err", se.Message, "traceback", se.Traceback)
		}
		switch se.Stage {
		case "import":
			path += ".classname"
		case "check_config":
			path += ".extra"
		}
	}
	if errors.Is(err, pyrunner.ErrEnded) {
		err = fmt.Errorf("the Python runner ended: %s", exitStatus(w.proc))
	}
	return fieldError(path, fmt.Errorf("node: Python class %q (%s): %w", c.cfg.Classname, w.python, err))
}

// watch waits until pr's session is over and hands its end to supervise;
// not when the runner itself has ended (the worker's exit says it all).
func (w *pyWorker) watch(pr *pyRun) {
	<-pr.run.Done()
	pr.comp.joined.Store(false)
	pr.release()
	pr.cancel()
	<-pr.served
	o := pr.run.Outcome()
	if o.RunnerEnded {
		return
	}
	e := runEnd{comp: pr.comp, quick: time.Since(pr.started) < restartResetAfter}
	switch {
	case o.Fatal != "":
		e.failed, e.reason = true, "fatal error in the component: "+o.Fatal
	case pr.lost:
		e.failed, e.reason = true, "the connection to the router was lost"
	case o.Left != "":
		e.reason = "its session left (" + o.Left + ")"
	default:
		e.reason = "its connection closed"
	}
	w.report(e)
}

// report hands e to supervise, unless the worker is over.
func (w *pyWorker) report(e runEnd) {
	select {
	case w.ends <- e:
	case <-w.ctx.Done():
	}
}

// supervise handles the sessions' ends and the runner's exit until the
// worker stops or exits.
func (w *pyWorker) supervise() {
	running := len(w.components())
	for {
		select {
		case e := <-w.ends:
			running--
			e.comp.active = false
			if e.comp.dropped {
				w.dropped(e)
				continue
			}
			switch w.next(e, running) {
			case nextShutdown:
				return
			case nextRestart:
				running++
				e.comp.active = true
			}
		case c := <-w.removals:
			c.dropped = true
			c.remove()
			if !c.active {
				close(c.gone)
			}
		case pr := <-w.additions:
			running++
			pr.comp.active = true
			w.wg.Go(func() { w.watch(pr) })
		case <-w.proc.Done():
			w.runnerExited()
			return
		case <-w.ctx.Done():
			return
		}
	}
}

// What a worker does after a session's end.
const (
	nextNothing  = "nothing"
	nextRestart  = "restart"
	nextShutdown = "container shuts down"
)

// next logs a session's end and acts on it as the container's modes say:
// the shutdown mode first (Crossbar's order: any failed, any stopped, the
// last one), then the restart mode. running counts the components still
// running. It returns what it did.
func (w *pyWorker) next(e runEnd, running int) string {
	if e.quick {
		e.comp.quickEnds++
	} else {
		e.comp.quickEnds = 0
	}
	why := w.shutdownWhy(e, running)
	next := nextNothing
	switch {
	case why != "":
		next = nextShutdown
	case w.restart == config.RestartAlways, w.restart == config.RestartOnFailed && e.failed:
		next = nextRestart
	}
	level := slog.LevelInfo
	if e.failed {
		level = slog.LevelError
	}
	w.log.Log(context.Background(), level, "component stopped", "component", e.comp.path, "reason", e.reason,
		"failed", e.failed, "next", next)
	switch next {
	case nextShutdown:
		w.shutDown(why)
	case nextRestart:
		w.restartLater(e.comp)
	}
	return next
}

// shutdownWhy says why the container's shutdown mode shuts it down after
// e, or "".
func (w *pyWorker) shutdownWhy(e runEnd, running int) string {
	switch {
	case w.router:
	case e.failed && w.shutdown == config.ShutdownOnAnyComponentFailed:
		return "a component failed"
	case w.shutdown == config.ShutdownOnAnyComponentStopped:
		return "a component stopped"
	case running == 0 && w.shutdown == config.ShutdownOnLastComponentStopped:
		return "no component is left"
	}
	return ""
}

// restartLater starts c again after its restart delay. A restart that
// fails is the component failing again.
func (w *pyWorker) restartLater(c *pyComponent) {
	delay := restartDelay(c.quickEnds)
	w.log.Info("restarting component", "component", c.path, "mode", w.restart, "in", delay)
	w.wg.Go(func() {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.removed.Done():
			w.report(runEnd{comp: c, reason: "a reload stopped it before its restart"})
			return
		case <-w.ctx.Done():
			return
		}
		pr, err := w.startRun(w.ctx, c)
		if err != nil {
			if w.ctx.Err() == nil {
				// a removal during the start is the end supervise waits for
				w.report(runEnd{comp: c, failed: true, quick: true, reason: "its restart failed: " + err.Error()})
			}
			return
		}
		w.watch(pr)
	})
}

// shutDown shuts the container down (its mode says so): the runner stops,
// and the worker has exited, cleanly.
func (w *pyWorker) shutDown(why string) {
	w.log.Info("container shutting down", "mode", w.shutdown, "reason", why)
	w.cancel()
	w.stopRunner(context.Background())
	w.exit(workerExit{path: w.path, why: "the container shut down (" + w.shutdown + "): " + why})
}

// runnerExited handles the runner ending by itself: the worker has exited,
// with an error unless its status is 0.
func (w *pyWorker) runnerExited() {
	w.cancel()
	w.ch.Close()
	err := w.proc.Err()
	why := "its Python runner exited"
	if err == nil {
		why += " with status 0"
		w.log.Warn("Python runner exited", "status", 0)
	} else {
		w.log.Error("Python runner exited", "err", err)
	}
	w.exit(workerExit{path: w.path, err: err, why: why})
}

func (w *pyWorker) exit(e workerExit) {
	if !w.stopped.Load() {
		w.exited(e)
	}
}

// stopRunner stops the runner (SIGTERM, then SIGKILL after its grace or
// when ctx ends) and closes its channel: every run ends.
func (w *pyWorker) stopRunner(ctx context.Context) error {
	err := w.proc.Stop(ctx)
	w.ch.Close()
	return err
}

// stop stops the worker: no restart and no exit report any more, then
// the runner (its sessions end with it). It waits for the worker's
// goroutines, or ctx.
func (w *pyWorker) stop(ctx context.Context) error {
	if !w.startedOK {
		return nil
	}
	w.stopped.Store(true)
	w.cancel()
	err := w.stopRunner(ctx)
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		err = errors.Join(err, fmt.Errorf("node: waiting for its sessions: %w", ctx.Err()))
	}
	if err != nil {
		return pathError(w.path, err)
	}
	return nil
}

// resolvePython finds the interpreter: an absolute path that must be an
// executable file, or a command name looked up on the node's PATH.
func resolvePython(name string) (string, error) {
	if !filepath.IsAbs(name) {
		return exec.LookPath(name)
	}
	if !isExecutable(name) {
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	return name, nil
}
