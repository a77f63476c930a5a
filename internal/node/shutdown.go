package node

import (
	"slices"
	"sync"

	"github.com/junction-wamp/junction/internal/config"
)

// workerExit is a worker's end while the node runs: its Python runner
// exited, or its container shut down.
type workerExit struct {
	path string // "workers[1]"
	err  error  // nil for a clean exit (status 0, or a container's shutdown)
	why  string // for the log
}

// shutdownPolicy decides, as Crossbar's controller does, whether a
// worker's exit stops the node: by the controller's "shutdown" triggers.
// Its methods are safe for concurrent use.
type shutdownPolicy struct {
	triggers []string // config.Controller.Shutdown

	mu        sync.Mutex      // guards the fields below
	workers   int             // the workers started (not disabled)
	exited    map[string]bool // the workers that have exited, by path
	requested chan struct{}   // closed when the node decides to stop
	err       error           // the exit that decided it, when with an error
	decided   bool            // requested is closed
}

func newShutdownPolicy(triggers []string, workers int) *shutdownPolicy {
	return &shutdownPolicy{triggers: triggers, workers: workers, exited: map[string]bool{}, requested: make(chan struct{})}
}

// added counts a worker a reload started.
func (p *shutdownPolicy) added() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.workers++
}

// removed forgets the worker at path, which a reload stopped.
func (p *shutdownPolicy) removed(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.workers--
	delete(p.exited, path)
}

// exit counts e and returns the trigger that stops the node for it, or
// "" (Crossbar's check_for_shutdown: any exit, an exit with an error, the
// last worker, in that order). After a decision it returns "": the node
// is stopping already.
func (p *shutdownPolicy) exit(e workerExit) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exited[e.path] = true
	if p.decided {
		return ""
	}
	trigger := ""
	switch {
	case slices.Contains(p.triggers, config.ShutdownOnWorkerExit):
		trigger = config.ShutdownOnWorkerExit
	case e.err != nil && slices.Contains(p.triggers, config.ShutdownOnWorkerExitWithError):
		trigger = config.ShutdownOnWorkerExitWithError
	case len(p.exited) >= p.workers && slices.Contains(p.triggers, config.ShutdownOnLastWorkerExit):
		trigger = config.ShutdownOnLastWorkerExit
	default:
		return ""
	}
	p.decided, p.err = true, e.err
	close(p.requested)
	return trigger
}

// workerExited weighs a worker's exit: the node stops by itself when a
// trigger says so (ShutdownRequested is closed; the caller stops it).
func (n *Node) workerExited(e workerExit) {
	n.mu.Lock()
	running := n.state == stateRunning || n.state == stateStarting
	n.mu.Unlock()
	if !running {
		return
	}
	log := n.log.With("worker", e.path, "why", e.why)
	if e.err != nil {
		log = log.With("err", e.err)
	}
	trigger := n.shutdown.exit(e)
	if trigger == "" {
		log.Warn("worker exited; the node keeps running (no shutdown trigger applies)", "triggers", n.shutdown.triggers)
		return
	}
	log.Warn("worker exited; the node shuts down", "trigger", trigger)
}

// ShutdownRequested is closed when the node has decided to stop by
// itself: a worker exited (its Python runner ended, or its container shut
// down) and a shutdown trigger of the controller applies, as in Crossbar
// (shutdown_on_worker_exit by default). The node keeps running until its
// owner calls Stop.
func (n *Node) ShutdownRequested() <-chan struct{} { return n.shutdown.requested }

// ShutdownErr, once ShutdownRequested is closed, is the error of the
// worker exit that decided it: nil when the worker exited cleanly (exit
// status 0, or a container shut down by its mode), so that the owner can
// exit with an error status only for a failure.
func (n *Node) ShutdownErr() error {
	n.shutdown.mu.Lock()
	defer n.shutdown.mu.Unlock()
	return n.shutdown.err
}
