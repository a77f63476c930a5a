package router

import (
	"sync"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// hooks is the seam for the meta API (wamp.session.on_join,
// wamp.subscription.on_create, ...). A realm calls its hooks after every lock
// is released, on the goroutine of the session that caused the event, in the
// order the events happened for that session. Implementations must not
// block; they may publish (realm.publishInternal) or look at the realm.
type hooks interface {
	SessionJoined(s sessionInfo)
	SessionLeft(s sessionInfo)
	// SubscriptionCreated is followed by Subscribed for the same session;
	// SubscriptionDeleted follows the Unsubscribed of its last subscriber.
	SubscriptionCreated(session wamp.ID, sub subInfo)
	Subscribed(session wamp.ID, sub subInfo)
	Unsubscribed(session wamp.ID, sub subInfo)
	SubscriptionDeleted(session wamp.ID, sub subInfo)
	// The same for registrations.
	RegistrationCreated(session wamp.ID, reg regInfo)
	Registered(session wamp.ID, reg regInfo)
	Unregistered(session wamp.ID, reg regInfo)
	RegistrationDeleted(session wamp.ID, reg regInfo)
}

// sessionInfo describes a session for hooks and the meta API.
type sessionInfo struct {
	ID           wamp.ID
	AuthID       string
	AuthRole     string
	AuthMethod   string
	AuthProvider string
	AuthExtra    wamp.Dict // nil when the authenticator gave none; read-only
	Peer         wamp.PeerInfo
}

// subInfo describes a subscription.
type subInfo struct {
	ID      wamp.ID
	Topic   wamp.URI
	Match   string
	Created time.Time
}

// regInfo describes a registration.
type regInfo struct {
	ID        wamp.ID
	Procedure wamp.URI
	Match     string
	Invoke    string
	Created   time.Time
}

// noHooks is the default: no meta API.
type noHooks struct{}

func (noHooks) SessionJoined(sessionInfo)            {}
func (noHooks) SessionLeft(sessionInfo)              {}
func (noHooks) SubscriptionCreated(wamp.ID, subInfo) {}
func (noHooks) Subscribed(wamp.ID, subInfo)          {}
func (noHooks) Unsubscribed(wamp.ID, subInfo)        {}
func (noHooks) SubscriptionDeleted(wamp.ID, subInfo) {}
func (noHooks) RegistrationCreated(wamp.ID, regInfo) {}
func (noHooks) Registered(wamp.ID, regInfo)          {}
func (noHooks) Unregistered(wamp.ID, regInfo)        {}
func (noHooks) RegistrationDeleted(wamp.ID, regInfo) {}

// internalProc serves a router-internal procedure (wamp.session.count, ...)
// on the caller's goroutine, with no lock held. It returns the RESULT's
// arguments or a *wamp.RequestError. It must not block.
type internalProc func(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error)

// internalProcs are a realm's router-internal procedures; they take
// precedence over registrations. Safe for concurrent use.
type internalProcs struct {
	mu sync.RWMutex // guards m; a leaf lock
	m  map[wamp.URI]internalProc
}

// registerInternal makes fn serve calls to the exact procedure uri.
func (rm *realm) registerInternal(uri wamp.URI, fn internalProc) {
	rm.procs.mu.Lock()
	defer rm.procs.mu.Unlock()
	if rm.procs.m == nil {
		rm.procs.m = make(map[wamp.URI]internalProc)
	}
	rm.procs.m[uri] = fn
}

// internal returns the internal procedure for uri, or nil.
func (rm *realm) internal(uri wamp.URI) internalProc {
	rm.procs.mu.RLock()
	defer rm.procs.mu.RUnlock()
	return rm.procs.m[uri]
}
