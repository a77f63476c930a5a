package node

import (
	"fmt"
	"slices"

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
	}
	if r.guest(path, old, w) || same(old, w) {
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

// guestAt returns the guest unit of the worker at path, or nil.
func (n *Node) guestAt(path string) *guestUnit {
	i := slices.IndexFunc(n.guests, func(g *guestUnit) bool { return g.path == path })
	if i < 0 {
		return nil
	}
	return n.guests[i]
}

// containerWorker compares two container workers: its bridge components
// restart one by one; its options, and Python components, need a restart
// of the node.
func (r *reloader) containerWorker(path string, old, w *config.ContainerWorker) {
	a, b := *old, *w
	a.Components, b.Components = nil, nil
	if !same(a, b) {
		r.restart(path, "container options changed")
	}
	r.components(path, nil, old.Components, w.Components)
}

// components compares a worker's components by index: a bridge component
// (RESTCallee, MessageForwarder) that changed is stopped and its new
// version started, one added started, one removed stopped. ru is the
// router of a router worker's components, nil for a container's. A
// Python component before or after needs a restart (its runner starts
// them all).
func (r *reloader) components(path string, ru *routerUnit, old, cs []*config.Component) {
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
		case was != nil && was.Python() || now != nil && now.Python():
			r.restart(cp, "Python component changed")
		default:
			r.component(cp, ru, now)
		}
	}
}

// component stops the component at path, if it runs, and starts c (nil:
// none) in its place: built for the running router ru (a router
// component), or taken from the next config's build (a container
// component, which dials its own transport).
func (r *reloader) component(path string, ru *routerUnit, c *config.Component) {
	if u := r.node.componentAt(path); u != nil {
		if err := u.stop(r.ctx); err != nil {
			r.fail(path, "component stopped with an error: %v", err)
		}
		r.node.setComponents(slices.DeleteFunc(slices.Clone(r.node.components), func(x *componentUnit) bool { return x == u }))
	}
	if c == nil {
		r.applied(path, "component stopped")
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

// routerComponent builds the bridge component c of router ru, joining it
// through an internal gate of the running router.
func (r *reloader) routerComponent(path string, ru *routerUnit, c *config.Component) *componentUnit {
	staged := &Node{log: r.node.log}
	b := &builder{node: staged, owner: r.node, dir: r.node.dir, log: r.node.log}
	env := componentEnv{Path: path, Config: c, Router: true, Dial: localDialer(internalGate(ru.router, c.Role))}
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
