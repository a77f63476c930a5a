package node

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/web"
)

// swapHandler is a web transport's path tree as its server sees it: the
// tree it holds now, which a reload replaces at once for the requests
// that come next (those under way finish on the old one).
type swapHandler struct{ h atomic.Pointer[http.Handler] }

func newSwapHandler(h http.Handler) *swapHandler {
	s := &swapHandler{}
	s.h.Store(&h)
	return s
}

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

func (s *swapHandler) swap(h http.Handler) { s.h.Store(&h) }

// RouteProxy routes with the tree it holds now, for the loop engine.
func (s *swapHandler) RouteProxy(escaped string) (web.ProxyRoute, string, bool) {
	if r, ok := (*s.h.Load()).(web.ProxyRouter); ok {
		return r.RouteProxy(escaped)
	}
	return web.ProxyRoute{}, "", false
}

var _ web.ProxyRouter = (*swapHandler)(nil)

// webPaths compares two versions of the web transport at path whose only
// difference is in their paths, or in a key file they read (why says
// which): the new path tree is built for the
// running listener, its services started (the bridge services' sessions
// join), then swapped in, then the old tree's services stopped. A tree
// with dynamic or function authentication, before or after, needs a
// restart, as does one whose services fail to build or start.
func (r *reloader) webPaths(ctx context.Context, path string, ru *routerUnit, t *config.WebTransport, why string) {
	l := r.node.listenerAt(path)
	paths := path + ".paths"
	if l == nil || l.tree == nil || ru.asksUnder(paths) || r.next.routerAt(ru.path).asksUnder(paths) {
		r.restart(paths, "%s: with dynamic or function authentication, web paths need a restart", why)
		return
	}
	staged := &Node{log: r.node.log, dir: r.node.dir}
	b := &builder{node: staged, owner: r.node, dir: r.node.dir, log: r.node.log}
	scratch := &listenerUnit{path: path, kind: "web"}
	gates, cookies := len(ru.gates), len(ru.cookies)
	o, err := b.webServerOptions(path, ru, scratch, t)
	if err == nil {
		err = staged.startServices(ctx)
	}
	if err != nil {
		ru.failedPaths(gates, cookies)
		staged.stopServices(ctx)
		r.restart(paths, "%s: web paths not replaced: %v", why, err)
		return
	}
	l.tree.swap(o.Handler)
	l.keyFiles = scratch.keyFiles
	if srv, ok := l.srv.(webServer); ok {
		for _, f := range scratch.onShutdown {
			srv.OnShutdown(f)
		}
	}
	// The old tree's long requests end now, not when their clients leave:
	// dashboard streams (the page reconnects, to the new tree) and held
	// long-poll receives, but for the long-poll services the new tree took
	// over. Its functions stay registered with the server, which calls
	// them again at its shutdown, harmlessly.
	r.node.handOverLongPolls(paths, staged)
	oldShutdown := l.onShutdown
	l.onShutdown = scratch.onShutdown
	for _, f := range oldShutdown {
		f()
	}
	old := r.node.replaceServices(paths, staged)
	old.stopServices(ctx)
	ru.replacedPaths(paths, gates, cookies, b.cookies)
	scratch.logServices(r.node.log)
	r.applied(paths, "web paths replaced: %s", why)
}

// listenerAt returns the listener of the transport at path, or nil.
func (n *Node) listenerAt(path string) *listenerUnit {
	i := slices.IndexFunc(n.listeners, func(l *listenerUnit) bool { return l.path == path })
	if i < 0 {
		return nil
	}
	return n.listeners[i]
}

// asksUnder reports whether a gate of r at a path under prefix has
// dynamic or function authentication.
func (r *routerUnit) asksUnder(prefix string) bool {
	for _, g := range r.gates {
		if strings.HasPrefix(g.path, prefix) && askingAuth(g.auth) {
			return true
		}
	}
	return false
}

// startServices starts the path services' units of a staged node: the
// bridge services' sessions, the archives and the Python web paths'
// processes.
func (n *Node) startServices(ctx context.Context) error {
	for _, s := range n.sessions {
		if err := s.start(ctx); err != nil {
			return err
		}
	}
	for _, a := range n.archives {
		if err := a.start(ctx); err != nil {
			return err
		}
	}
	for _, u := range n.pyWebs {
		if err := u.start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// stopServices stops what startServices started, and the proxies.
func (n *Node) stopServices(ctx context.Context) error {
	var errs []error
	for _, s := range n.sessions {
		errs = append(errs, s.stop(ctx))
	}
	for _, p := range n.proxies {
		errs = append(errs, p.shutdown(ctx))
	}
	for _, a := range n.archives {
		errs = append(errs, a.stop())
	}
	for _, u := range n.pyWebs {
		errs = append(errs, u.stop(ctx))
	}
	return errors.Join(errs...)
}

// replaceServices takes the path services' units under the JSON path
// paths (a transport's "paths") out of n, adds those of staged in their
// place, and returns the units taken out, in a node of their own. Reload
// only (Stop waits for it).
func (n *Node) replaceServices(paths string, staged *Node) *Node {
	old := &Node{}
	under := func(path string) bool { return underPaths(paths, path) }
	sessions, oldSessions := split(n.sessions, func(s *bridgeSession) bool { return under(s.path) })
	services, _ := split(n.services, func(s serviceUnit) bool { return under(s.path) })
	n.proxies, old.proxies = split(n.proxies, func(p proxyUnit) bool { return under(p.path) })
	n.archives, old.archives = split(n.archives, func(a *archiveUnit) bool { return under(a.path) })
	pyWebs, oldPyWebs := split(n.pyWebs, func(u *pyWebUnit) bool { return under(u.path) })
	n.longPolls, _ = split(n.longPolls, func(u *longPollUnit) bool { return under(u.path) })
	n.proxies = append(n.proxies, staged.proxies...)
	n.archives = append(n.archives, staged.archives...)
	n.longPolls = append(n.longPolls, staged.longPolls...)
	old.sessions, old.pyWebs = oldSessions, oldPyWebs
	n.mu.Lock() // Readiness and Stats read these at any time (live)
	n.sessions = append(sessions, staged.sessions...)
	n.services = append(services, staged.services...)
	n.pyWebs = append(pyWebs, staged.pyWebs...)
	n.mu.Unlock()
	return old
}

// underPaths reports whether the JSON path is that of a service in paths
// (a transport's "paths"): paths.key, or paths["/"] and other quoted keys.
func underPaths(paths, path string) bool {
	rest, ok := strings.CutPrefix(path, paths)
	return ok && rest != "" && (rest[0] == '.' || rest[0] == '[')
}

// split returns the elements of s that out rejects, then those it takes.
func split[T any](s []T, out func(T) bool) (keep, taken []T) {
	for _, v := range s {
		if out(v) {
			taken = append(taken, v)
		} else {
			keep = append(keep, v)
		}
	}
	return keep, taken
}
