// Package proxy is a proxy worker's relay (Crossbar's worker/proxy.py):
// it authenticates each client session itself, with the authenticators of
// the client's transport, then opens a session of its own on a backend
// router chosen by the client's realm and authrole, logging in there as
// the client (anonymous-proxy or cryptosign-proxy, the identity in
// HELLO.Details.authextra), and relays every message both ways until
// either side ends. One backend session per client session, as in
// Crossbar.
//
// It knows no transport and no router: the node hands it the backends'
// dialers and attaches client peers to an Entry.
package proxy

import (
	"context"
	"crypto/ed25519"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// Options configures a Relay.
type Options struct {
	// Routes say where the sessions of each realm and authrole go.
	Routes []Route
	// LoginTimeout bounds the dial and login to a backend (default
	// DefaultLoginTimeout).
	LoginTimeout time.Duration
	// Logger receives the relay's logs (default slog.Default()).
	Logger *slog.Logger
}

// DefaultLoginTimeout bounds a backend dial and login when
// Options.LoginTimeout is 0.
const DefaultLoginTimeout = 10 * time.Second

// Route sends the sessions of Realm with authrole Role to one of
// Backends, each in turn.
type Route struct {
	Realm    wamp.URI
	Role     string
	Backends []*Backend
}

// Backend is a connection to a backend router.
type Backend struct {
	// Name is the connection's name, in logs and refusals.
	Name string
	// Dial connects to the backend router.
	Dial func(ctx context.Context) (wamp.Peer, error)
	// Methods are the login methods offered, MethodAnonymousProxy and
	// MethodCryptosignProxy (auth package names), in that order.
	Methods []string
	// Key returns the node key that cryptosign-proxy signs with.
	Key func() (ed25519.PrivateKey, error)
}

// Relay relays client sessions to backend routers. Safe for concurrent
// use.
type Relay struct {
	o   Options // its Routes are the current ones, guarded by mu
	log *slog.Logger

	// logins is the login throttle of the clients of its entries (but
	// the node's own), as a router's of its gates'.
	logins loginguard.Throttle
	// refusedLog limits the "join refused" lines per client address.
	refusedLog *lograte.Keyed
	counts     counts
	// byClient counts and logs the backends' messages that clients' peers
	// refused (toClient), byBackend the clients' messages that backend
	// connections refused (toBackend).
	byClient, byBackend *unsent.Log

	mu     sync.Mutex
	closed bool
	routes map[routeKey]*route
	realms map[wamp.URI]bool  // the realms of routes
	live   map[*link]struct{} // the sessions being relayed
	wg     sync.WaitGroup     // their goroutines
}

type routeKey struct {
	realm wamp.URI
	role  string
}

// route is a Route with its turn; next is guarded by Relay.mu.
type route struct {
	backends []*Backend
	next     int
}

// New returns a relay over o's routes.
func New(o Options) *Relay {
	if o.LoginTimeout <= 0 {
		o.LoginTimeout = DefaultLoginTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := &Relay{o: o, log: o.Logger, live: map[*link]struct{}{},
		refusedLog: loginguard.PeerLimit(o.Logger, slog.LevelWarn, "join refused"),
		byClient:   unsent.NewLog(o.Logger.With("direction", ToClient)),
		byBackend:  unsent.NewLog(o.Logger.With("direction", ToBackend))}
	r.setRoutes(o.Routes)
	return r
}

// setRoutes makes routes the relay's. Mu is held (or r is new).
func (r *Relay) setRoutes(routes []Route) {
	r.o.Routes = routes
	r.routes, r.realms = map[routeKey]*route{}, map[wamp.URI]bool{}
	for _, rt := range routes {
		r.realms[rt.Realm] = true
		k := routeKey{rt.Realm, rt.Role}
		if r.routes[k] == nil {
			r.routes[k] = &route{}
		}
		r.routes[k].backends = append(r.routes[k].backends, rt.Backends...)
	}
}

// Routes returns the relay's routes, in Options.Routes (or SetRoutes)
// order (a copy of the list; the backends are its own).
func (r *Relay) Routes() []Route {
	r.mu.Lock()
	defer r.mu.Unlock()
	routes := slices.Clone(r.o.Routes)
	for i := range routes {
		routes[i].Backends = slices.Clone(routes[i].Backends)
	}
	return routes
}

// SetRoutes replaces the relay's routes at once (a reload): the sessions
// that join from now on take the new ones. A relayed session whose route
// (realm and role, or for the node's own sessions the route it took) is
// gone, or no longer has the backend the session went to (the same
// *Backend), ends as at Shutdown but with GOODBYE
// junction.close.config_changed; the others keep running. It returns how
// many sessions it ends; they close in the background.
func (r *Relay) SetRoutes(routes []Route) int {
	r.mu.Lock()
	r.setRoutes(slices.Clone(routes))
	stale := r.liveWhere(func(l *link) bool { return !r.serves(l.key, l.backend) && l.claim() })
	r.mu.Unlock()
	for _, l := range stale {
		go l.close(wamp.ErrConfigChanged, "the proxy's routes changed")
	}
	return len(stale)
}

// liveWhere returns the joined sessions (their backend login done, not
// being closed) that f reports true for. Mu is held.
func (r *Relay) liveWhere(f func(*link) bool) []*link {
	var ls []*link
	for l := range r.live {
		if l.joined() && f(l) {
			ls = append(ls, l)
		}
	}
	return ls
}

// serves reports whether the route k still sends sessions to b. Mu is
// held.
func (r *Relay) serves(k routeKey, b *Backend) bool {
	rt := r.routes[k]
	return rt != nil && slices.Contains(rt.backends, b)
}

// pick returns the backend for realm and role, in turn, with the key of
// the route it took, or the refusal of a realm or role that no route
// has. The node's own sessions (internal) without a route for their role
// take the realm's first route (in Options.Routes order).
func (r *Relay) pick(realm wamp.URI, role string, internal bool) (*Backend, routeKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := routeKey{realm, role}
	rt := r.routes[k]
	if rt == nil && internal {
		k, rt = r.firstRoute(realm)
	}
	if rt == nil || len(rt.backends) == 0 {
		return nil, k, r.noRoute(realm, role)
	}
	b := rt.backends[rt.next%len(rt.backends)]
	rt.next++
	return b, k, nil
}

// firstRoute is the first route of realm in Options.Routes, with its
// key; nil when none. Mu is held.
func (r *Relay) firstRoute(realm wamp.URI) (routeKey, *route) {
	for _, rt := range r.o.Routes {
		if rt.Realm == realm {
			k := routeKey{rt.Realm, rt.Role}
			return k, r.routes[k]
		}
	}
	return routeKey{}, nil
}

// noRoute is the refusal of a session no route takes: no_such_realm when
// no route names the realm, else no_such_role. Mu is held.
func (r *Relay) noRoute(realm wamp.URI, role string) error {
	for k := range r.routes {
		if k.realm == realm {
			return wamp.Errorf(wamp.ErrNoSuchRole, "the proxy has no route for role %q on realm %q", role, realm)
		}
	}
	return wamp.Errorf(wamp.ErrNoSuchRealm, "the proxy has no route for realm %q", realm)
}

// ErrClosed is what a session attached after Shutdown is refused with.
var ErrClosed = errors.New("proxy: relay shut down")

// track adds l to the live sessions; false after Shutdown.
func (r *Relay) track(l *link) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.live[l] = struct{}{}
	r.wg.Add(1)
	return true
}

func (r *Relay) untrack(l *link) {
	r.mu.Lock()
	delete(r.live, l)
	r.mu.Unlock()
	r.wg.Done()
}

// Shutdown ends every relayed session: its client gets GOODBYE
// wamp.close.system_shutdown and its backend session GOODBYE too, then
// both connections close. It waits for them, or for ctx to end (they then
// finish closing in the background), and refuses new sessions. The
// "join refused" lines held back are logged.
func (r *Relay) Shutdown(ctx context.Context) error {
	defer r.refusedLog.Flush()
	r.mu.Lock()
	r.closed = true
	live := make([]*link, 0, len(r.live))
	for l := range r.live {
		live = append(live, l)
	}
	r.mu.Unlock()
	for _, l := range live {
		go l.close(wamp.ErrSystemShutdown, "the proxy is shutting down")
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
