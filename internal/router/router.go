package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// Options configures a Router. The zero value is a router with no realms
// that logs nothing.
type Options struct {
	Realms []RealmOptions
	Logger *slog.Logger // nil: discard
	// Fabric links the realms to the other nodes of a cluster; nil is
	// one node, and no cluster code runs.
	Fabric Fabric
}

// Errors returned by New and AddRealm.
var (
	ErrRealmExists = errors.New("router: realm already exists")
	ErrInvalidName = errors.New("router: invalid realm name")
	ErrClosed      = errors.New("router: closed")
)

// Router routes WAMP messages between the sessions of its realms. It is safe
// for concurrent use.
type Router struct {
	log      *slog.Logger
	fabric   Fabric // nil: one node
	slow     slowLog
	unsent   *unsent.Log // messages their receivers' peers refused (refused.go)
	peerLogs *peerLogs   // rate limits of the lines a client causes
	subIDs   wamp.IDGen  // router scope: subscription IDs
	regIDs   wamp.IDGen  // router scope: registration IDs
	anon     *Gate
	msgs     messageCounts // messages by type, of every session (metrics.go)
	// callErrors count the ERRORs answering CALLs; otherAuthFailures the
	// joins refused that named no realm of the router (metrics.go).
	callErrors        callErrors
	otherAuthFailures authCounts
	logins            loginguard.Throttle // failed logins, by address and authid

	mu       sync.Mutex // guards the fields below; first in the lock order
	realms   map[wamp.URI]*realm
	sessions map[*session]struct{} // every attached session, joined or not
	closed   bool
	// wg counts the attached sessions and the peer closes running in the
	// background (closeLater). Added to under mu only.
	wg sync.WaitGroup
}

// New returns a router with the realms of opts.
func New(opts Options) (*Router, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Router{
		log:      log,
		fabric:   opts.Fabric,
		slow:     newSlowLog(log),
		unsent:   unsent.NewLog(log),
		peerLogs: newPeerLogs(log),
		realms:   make(map[wamp.URI]*realm),
		sessions: make(map[*session]struct{}),
	}
	r.msgs.init()
	r.anon = r.Gate()
	for _, o := range opts.Realms {
		if err := r.AddRealm(o); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// AddRealm adds a realm. Its name must be a valid URI not already in use.
func (r *Router) AddRealm(o RealmOptions) error {
	if !wamp.ValidURI(o.Name, false, wamp.MatchExact) {
		return fmt.Errorf("%w: %q", ErrInvalidName, o.Name)
	}
	if err := checkHistories(o); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if _, ok := r.realms[o.Name]; ok {
		return fmt.Errorf("%w: %q", ErrRealmExists, o.Name)
	}
	r.realms[o.Name] = newRealm(r, o)
	return nil
}

// RemoveRealm removes a realm and closes its sessions with GOODBYE
// wamp.close.close_realm. It returns at once: the sessions close
// concurrently in the background, and Close/Shutdown wait for them.
// Removing an unknown realm does nothing.
func (r *Router) RemoveRealm(name wamp.URI) {
	r.mu.Lock()
	rm := r.realms[name]
	delete(r.realms, name)
	r.mu.Unlock()
	if rm != nil {
		rm.close(wamp.ErrCloseRealm)
	}
}

// realm returns the realm called name, or nil.
func (r *Router) realm(name wamp.URI) *realm {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.realms[name]
}

// Attach runs a session with anonymous authentication only; see Gate.Attach.
func (r *Router) Attach(p wamp.Peer) { r.anon.Attach(p) }

// Close is Shutdown with no deadline: it returns once every session has
// ended, which a client that does not read delays by at most its peer's
// close timeout (all sessions close at once, not one after another).
func (r *Router) Close() { r.Shutdown(context.Background()) }

// Shutdown sends GOODBYE wamp.close.system_shutdown to every session (ABORT
// to those still in the handshake), closes them all concurrently and waits
// until their Attach calls have returned, or until ctx ends: it then
// returns ctx's error and the sessions finish closing in the background (a
// later Close waits for them). Later Attach calls are refused with ABORT.
// Safe to call more than once and concurrently.
func (r *Router) Shutdown(ctx context.Context) error {
	defer r.peerLogs.flush()
	r.mu.Lock()
	r.closed = true
	all := make([]*session, 0, len(r.sessions))
	for s := range r.sessions {
		all = append(all, s)
	}
	r.mu.Unlock()
	for _, s := range all {
		s.shutdown(wamp.ErrSystemShutdown)
	}
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("router: shutdown: %w", ctx.Err())
	}
	r.unlinkRealms()
	return err
}

// unlinkRealms closes every realm's link to the cluster, once its
// sessions are gone (or Shutdown gave up waiting for them).
func (r *Router) unlinkRealms() {
	r.mu.Lock()
	all := make([]*realm, 0, len(r.realms))
	for _, rm := range r.realms {
		all = append(all, rm)
	}
	r.mu.Unlock()
	for _, rm := range all {
		rm.unlink()
	}
}

// closeLater closes s's peer on a goroutine of its own that Shutdown waits
// for, so that closes run concurrently and never hold up the caller. A
// session that is no longer tracked has had its peer closed by its Attach
// already: Close returns at once then.
func (r *Router) closeLater(s *session) {
	r.mu.Lock()
	_, tracked := r.sessions[s]
	if tracked {
		r.wg.Add(1) // s counts in wg: never an Add from zero during a Wait
	}
	r.mu.Unlock()
	if !tracked {
		s.peer.Close()
		return
	}
	go func() {
		defer r.wg.Done()
		s.peer.Close()
	}()
}

// track adds s to the attached sessions; false once the router is closed.
func (r *Router) track(s *session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.sessions[s] = struct{}{}
	r.wg.Add(1)
	return true
}

// untrack removes s. Its messages stay counted in r.msgs.
func (r *Router) untrack(s *session) {
	r.mu.Lock()
	delete(r.sessions, s)
	r.mu.Unlock()
	r.wg.Done()
}
