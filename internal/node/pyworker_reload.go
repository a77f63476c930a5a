package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// errWorkerOver: a reload cannot start a component in a worker that has
// stopped or exited.
var errWorkerOver = errors.New("node: its worker's Python runner is no longer running")

// components returns the worker's components; a reload replaces the
// slice, never changes it in place.
func (w *pyWorker) components() []*pyComponent {
	w.cmu.Lock()
	defer w.cmu.Unlock()
	return w.comps
}

// componentAt returns the component at path, or nil (w nil too).
func (w *pyWorker) componentAt(path string) *pyComponent {
	if w == nil {
		return nil
	}
	cs := w.components()
	i := slices.IndexFunc(cs, func(c *pyComponent) bool { return c.path == path })
	if i < 0 {
		return nil
	}
	return cs[i]
}

// stopComponent stops c for a reload: its session's connection closes
// (as Crossbar's stop_component closes its transport), a restart waiting
// is dropped, and neither the restart nor the shutdown mode acts on its
// end. It returns once c's run is over, or when ctx ends.
func (w *pyWorker) stopComponent(ctx context.Context, c *pyComponent) error {
	w.cmu.Lock()
	w.comps = slices.DeleteFunc(slices.Clone(w.comps), func(x *pyComponent) bool { return x == c })
	w.cmu.Unlock()
	select {
	case w.removals <- c:
	case <-w.ctx.Done(): // the worker is over, and so are its runs
		c.remove()
		return nil
	}
	select {
	case <-c.gone:
	case <-w.ctx.Done():
	case <-ctx.Done():
		return fmt.Errorf("node: waiting for its session to end: %w", ctx.Err())
	}
	return nil
}

// startComponent starts c, a component a reload added, in the running
// runner and waits until it is ready; from then on the worker's modes
// act on it as on the others.
func (w *pyWorker) startComponent(ctx context.Context, c *pyComponent) error {
	if w.ctx.Err() != nil {
		return errWorkerOver
	}
	pr, err := w.startRun(ctx, c)
	if err != nil {
		return err
	}
	select {
	case w.additions <- pr:
	case <-w.ctx.Done():
		pr.run.Conn.Close()
		return errWorkerOver
	}
	w.cmu.Lock()
	w.comps = append(slices.Clone(w.comps), c)
	w.cmu.Unlock()
	return nil
}

// dropped logs the end of a component a reload stopped, and tells the
// reload.
func (w *pyWorker) dropped(e runEnd) {
	w.log.Info("component stopped", "component", e.comp.path, "reason", "the configuration changed", "next", nextNothing)
	close(e.comp.gone)
}
