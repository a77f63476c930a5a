package node

import (
	"fmt"
	"slices"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
)

// worker compares the workers at path (either may be nil: added or
// removed). A router worker that runs in both is compared in detail, a
// container's bridge components one by one, a guest worker restarted when
// it changed, added or removed; any other change needs a restart.
func (r *reloader) worker(path string, old, w config.Worker) {
	switch ow := old.(type) {
	case *config.RouterWorker:
		if nw, ok := w.(*config.RouterWorker); ok && runs(ow) && runs(nw) {
			r.routerWorker(path, ow, nw)
			return
		}
	case *config.ContainerWorker:
		if nw, ok := w.(*config.ContainerWorker); ok && !ow.Options.Disabled && !nw.Options.Disabled {
			r.containerWorker(path, ow, nw)
			return
		}
	case *config.ProxyWorker:
		if nw, ok := w.(*config.ProxyWorker); ok && runsProxy(ow) && runsProxy(nw) {
			r.proxyWorker(path, ow, nw)
			return
		}
	}
	if r.guest(path, old, w) || r.container(path, old, w) || same(old, w) {
		return
	}
	switch {
	case old == nil:
		r.restart(path, "worker added")
	case w == nil:
		r.restart(path, "worker removed")
	default:
		r.restart(path, "worker changed")
	}
}

// guest restarts, starts or stops the guest worker at path when old or w
// is one and they differ; false when neither is a guest or one is another
// kind of worker.
func (r *reloader) guest(path string, old, w config.Worker) bool {
	_, wasGuest := old.(*config.GuestWorker)
	_, isGuest := w.(*config.GuestWorker)
	// a guest by a guest, a guest by nothing, or nothing by a guest
	if !(wasGuest && (isGuest || w == nil) || isGuest && old == nil) {
		return false
	}
	if same(old, w) {
		return true
	}
	if g := r.node.guestAt(path); g != nil {
		g.stop(r.ctx)
		r.node.guests = slices.DeleteFunc(r.node.guests, func(u *guestUnit) bool { return u == g })
	}
	next := r.next.guestAt(path)
	if next == nil {
		r.applied(path, "guest worker stopped")
		return true
	}
	if err := next.start(); err != nil {
		r.fail(path, "guest worker not started: %v", err)
		return true
	}
	r.node.guests = append(r.node.guests, next)
	r.applied(path, "guest worker started with its new configuration")
	return true
}

// container starts the container worker at path when it runs in w
// alone, or stops it when it runs in old alone, the other being none or a
// disabled container; false otherwise.
func (r *reloader) container(path string, old, w config.Worker) bool {
	was, now := runningContainer(old), runningContainer(w)
	other := old
	if was {
		other = w
	}
	if _, isContainer := other.(*config.ContainerWorker); was == now || other != nil && !isContainer {
		return false
	}
	if was {
		r.stopContainer(path)
		return true
	}
	r.startContainer(path)
	return true
}

// runningContainer reports whether w is a container worker not disabled.
func runningContainer(w config.Worker) bool {
	c, ok := w.(*config.ContainerWorker)
	return ok && !c.Options.Disabled
}

// startContainer starts the container worker at path of the next
// config's build: its bridge components, then its Python runner and
// components, as at node start.
func (r *reloader) startContainer(path string) {
	failed := false
	for _, u := range r.next.snapshotComponents() {
		if !strings.HasPrefix(u.path, path+".") {
			continue
		}
		if err := u.start(r.ctx); err != nil {
			r.fail(u.path, "component not started: %v", err)
			failed = true
			continue
		}
		u.logStart(r.node.log)
		r.node.setComponents(append(slices.Clone(r.node.components), u))
	}
	if w := r.next.runnerAt(path); w != nil {
		w.exited = r.node.workerExited
		if err := w.start(r.ctx); err != nil {
			r.fail(path, "Python runner not started: %v", err)
			failed = true
		} else {
			r.node.setRunners(append(slices.Clone(r.node.runners), w))
		}
	}
	r.node.shutdown.added()
	if !failed {
		r.applied(path, "container worker started")
	}
}

// stopContainer stops the container worker at path: its Python runner
// (as at node stop), then its bridge components.
func (r *reloader) stopContainer(path string) {
	if w := r.node.runnerAt(path); w != nil {
		if err := w.stop(r.ctx); err != nil {
			r.fail(path, "Python runner stopped with an error: %v", err)
		}
		r.node.setRunners(slices.DeleteFunc(slices.Clone(r.node.runners), func(x *pyWorker) bool { return x == w }))
	}
	for _, u := range r.node.snapshotComponents() {
		if strings.HasPrefix(u.path, path+".") {
			r.stopComponent(u.path, nil)
		}
	}
	r.node.shutdown.removed(path)
	r.applied(path, "container worker stopped")
}

// guestAt returns the guest unit of the worker at path, or nil.
func (n *Node) guestAt(path string) *guestUnit {
	i := slices.IndexFunc(n.guests, func(g *guestUnit) bool { return g.path == path })
	if i < 0 {
		return nil
	}
	return n.guests[i]
}

// containerWorker compares two container workers: its components
// restart one by one; its options need a restart of the node.
func (r *reloader) containerWorker(path string, old, w *config.ContainerWorker) {
	a, b := *old, *w
	a.Components, b.Components = nil, nil
	if !same(a, b) {
		r.restart(path, "container options changed")
	}
	r.components(path, nil, r.runner(path, same(old.Options, w.Options)), old.Components, w.Components)
}

// runner returns the running Python runner of the worker at path, to
// stop and start its components in, or nil: it has none, or the
// worker's options changed (sameOptions false), which a new runner
// process would take.
func (r *reloader) runner(path string, sameOptions bool) *pyWorker {
	if !sameOptions {
		return nil
	}
	return r.node.runnerAt(path)
}

// components compares a worker's components by index: one that changed
// is stopped and its new version started, one added started, one removed
// stopped. ru is the router of a router worker's components, nil for a
// container's; py is the worker's running Python runner, in which its
// Python class components stop and start, or nil: then a Python
// component changed needs a restart.
func (r *reloader) components(path string, ru *routerUnit, py *pyWorker, old, cs []*config.Component) {
	for i := range max(len(old), len(cs)) {
		cp := fmt.Sprintf("%s.components[%d]", path, i)
		var was, now *config.Component
		if i < len(old) {
			was = old[i]
		}
		if i < len(cs) {
			now = cs[i]
		}
		switch {
		case same(was, now):
		case py == nil && (was != nil && was.Python() || now != nil && now.Python()):
			r.restart(cp, "Python component changed (its worker's options changed, or it runs no Python runner)")
		default:
			r.component(cp, ru, py, now)
		}
	}
}

// component stops the component at path, if it runs, and starts c (nil:
// none) in its place: a Python component in the runner py; a bridge
// component built for the running router ru (a router component), or
// taken from the next config's build (a container component, which
// dials its own transport).
func (r *reloader) component(path string, ru *routerUnit, py *pyWorker, c *config.Component) {
	r.stopComponent(path, py)
	if c == nil {
		r.applied(path, "component stopped")
		return
	}
	if c.Python() {
		r.startPyComponent(path, ru, py, c)
		return
	}
	u := r.next.componentAt(path)
	if ru != nil {
		u = r.routerComponent(path, ru, c)
	}
	if u == nil {
		r.fail(path, "component not built")
		return
	}
	if err := u.start(r.ctx); err != nil {
		r.fail(path, "component not started: %v", err)
		return
	}
	u.logStart(r.node.log)
	r.node.setComponents(append(slices.Clone(r.node.components), u))
	r.applied(path, "component started with its new configuration")
}

// stopComponent stops the component at path, a bridge component or a
// Python one of py, if it runs.
func (r *reloader) stopComponent(path string, py *pyWorker) {
	if u := r.node.componentAt(path); u != nil {
		if err := u.stop(r.ctx); err != nil {
			r.fail(path, "component stopped with an error: %v", err)
		}
		r.node.setComponents(slices.DeleteFunc(slices.Clone(r.node.components), func(x *componentUnit) bool { return x == u }))
	}
	if c := py.componentAt(path); c != nil {
		if err := py.stopComponent(r.ctx, c); err != nil {
			r.fail(path, "Python component stopped with an error: %v", err)
		}
	}
}

// startPyComponent starts the Python component c at path in the runner
// py: a router's joins the running router ru from inside, a container's
// is the next config's build (it dials its own transport).
func (r *reloader) startPyComponent(path string, ru *routerUnit, py *pyWorker, c *config.Component) {
	var pc *pyComponent
	if ru != nil {
		pc = routerPyComponent(path, c, internalGate(ru.router, c.Role), r.node.log)
	} else if next := r.next.runnerAt(py.path); next != nil {
		pc = next.componentAt(path)
	}
	if pc == nil {
		r.fail(path, "component not built")
		return
	}
	if err := py.startComponent(r.ctx, pc); err != nil {
		r.fail(path, "component not started: %v", err)
		return
	}
	r.applied(path, "Python component started with its new configuration")
}

// runnerAt returns the Python runner of the worker at path, or nil.
func (n *Node) runnerAt(path string) *pyWorker {
	i := slices.IndexFunc(n.runners, func(w *pyWorker) bool { return w.path == path })
	if i < 0 {
		return nil
	}
	return n.runners[i]
}

// routerComponent builds the bridge component c of router ru, joining it
// through an internal gate of the running router.
func (r *reloader) routerComponent(path string, ru *routerUnit, c *config.Component) *componentUnit {
	staged := &Node{log: r.node.log}
	b := &builder{node: staged, owner: r.node, dir: r.node.dir, log: r.node.log}
	env := componentEnv{Path: path, Config: c, Router: true, Dial: localDialer(internalGate(ru.router, c.Role))}
	if w, ok := r.next.workerAt(ru.path).(*config.RouterWorker); ok {
		env.LocalRealm = localRealm(w.Realms, c.Realm)
	}
	if err := b.component(env); err != nil || len(staged.components) != 1 {
		return nil
	}
	return staged.components[0]
}

// componentAt returns the unit of the component at path, or nil.
func (n *Node) componentAt(path string) *componentUnit {
	for _, c := range n.snapshotComponents() {
		if c.path == path {
			return c
		}
	}
	return nil
}

// snapshotRunners returns the Python runners; see setRunners.
func (n *Node) snapshotRunners() []*pyWorker {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.runners
}

// setRunners replaces the Python runners (a reload), under n.mu for
// Readiness. The slice is never changed in place once published.
func (n *Node) setRunners(ws []*pyWorker) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.runners = ws
}

// snapshotComponents returns the components; see setComponents.
func (n *Node) snapshotComponents() []*componentUnit {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.components
}

// setComponents replaces the components (a reload), under n.mu for
// WaitComponents. The slice is never changed in place once published.
func (n *Node) setComponents(cs []*componentUnit) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.components = cs
}
