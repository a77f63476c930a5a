package web

import (
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// What the loop engine (EngineLoop) needs of the handlers: which reverse
// proxy serves a path, seen through the trees and the wrappers that only
// watch the requests pass.

// ProxyRouter is a handler that can tell which reverse proxy serves an
// escaped URL path: a *Tree, or a handler that serves one (the node's,
// which a reload swaps). The loop engine serves those requests itself.
type ProxyRouter interface {
	http.Handler
	// RouteProxy returns the proxy that serves the escaped path, and the
	// escaped path below its mount point; ok is false when the service
	// there is no reverse proxy the loop engine can serve.
	RouteProxy(escapedPath string) (route ProxyRoute, rest string, ok bool)
}

// ProxyRoute is a reverse proxy as the loop engine serves it: the proxy,
// and what counts its requests (see MeteredProxy).
type ProxyRoute struct {
	proxy   *ReverseProxy
	observe func(code int, d time.Duration) // nil: nothing counts
}

var _ ProxyRouter = (*Tree)(nil)

// RouteProxy finds the service of escaped as ServeHTTP does, through the
// nested trees; see ProxyRouter.
func (t *Tree) RouteProxy(escaped string) (route ProxyRoute, rest string, ok bool) {
	h, _, rest := t.route(escaped)
	switch h := h.(type) {
	case *Tree:
		if _, err := url.PathUnescape(rest); err != nil {
			return ProxyRoute{}, "", false // serveChild answers 400
		}
		return h.RouteProxy(rest)
	case *ReverseProxy:
		route = ProxyRoute{proxy: h}
	case *meteredProxy:
		route = h.route
	default:
		return ProxyRoute{}, "", false
	}
	return route, rest, route.proxy.loopable()
}

// meteredProxy is a reverse proxy whose requests are counted: Handler
// serves them (and counts them) on the other engines, route counts those
// the loop engine serves with observe.
type meteredProxy struct {
	http.Handler
	route ProxyRoute
}

// MeteredProxy returns h, a handler that serves p's requests and counts
// them (a meter around p), marked so that the loop engine can serve p's
// requests itself and count them with observe: code is the answer's
// status (0 for none: the client went away first), d how long the
// request took, from its head to the answer's end.
func MeteredProxy(p *ReverseProxy, observe func(code int, d time.Duration), h http.Handler) http.Handler {
	return &meteredProxy{Handler: h, route: ProxyRoute{proxy: p, observe: observe}}
}

// Detacher is a listener whose connections can leave it still counted
// (connlimit.Listener's Detach): the connection it wrapped, and the
// function that counts it out once its descriptor is closed for good.
// The loop engine takes the descriptors of the connections of such a
// listener (or plain TCP connections) into its loops.
type Detacher interface {
	Detach(c net.Conn) (inner net.Conn, release func(), err error)
}

// loopPools are the loops of the loop engine that keep idle connections
// to a proxy's upstream, each with the function that has it close them:
// the proxy's Shutdown calls them all. Safe for concurrent use.
type loopPools struct {
	mu     sync.Mutex
	closes map[any]func() // by loop; mu guards
}

// add registers the close function of loop's pool, once per loop.
func (l *loopPools) add(loop any, closeIdle func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closes == nil {
		l.closes = make(map[any]func())
	}
	l.closes[loop] = closeIdle
}

// remove forgets loop's pool (the loop ended).
func (l *loopPools) remove(loop any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.closes, loop)
}

// closeIdle has every loop close its idle connections (asynchronously:
// each loop does it on its own thread).
func (l *loopPools) closeIdle() {
	l.mu.Lock()
	fs := make([]func(), 0, len(l.closes))
	for _, f := range l.closes {
		fs = append(fs, f)
	}
	l.mu.Unlock()
	for _, f := range fs {
		f()
	}
}
