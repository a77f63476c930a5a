package router

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// RealmOptions configures one realm. The zero value (but for Name) accepts
// any role and allows every action.
type RealmOptions struct {
	Name wamp.URI
	// Roles that exist on this realm; nil accepts any role. A session whose
	// authrole is not here is refused at join with ABORT
	// wamp.error.no_such_role.
	Roles      []string
	Authorizer auth.Authorizer // nil: auth.AllowAll{}
	StrictURIs bool            // strict URI rules for topics and procedures
	// DisableMetaAPI turns the WAMP meta API off on this realm: no
	// wamp.session.*, wamp.registration.* or wamp.subscription.*
	// procedures (calls get no_such_procedure), no meta events, no
	// testaments. The zero value enables it, like Crossbar's
	// enable_meta_api, which defaults to true.
	DisableMetaAPI bool
	// Limits bound what clients can make the realm hold; the zero value
	// gives every limit its default.
	Limits Limits
	// EventHistory are the realm's event histories (Crossbar's realm
	// store): see EventHistory. Read with the meta API only.
	EventHistory []EventHistory
	// Stats are the session statistics (wamp.session.on_stats); they need
	// the meta API.
	Stats StatsOptions
	// Local keeps the realm on this node when the router is part of a
	// cluster (the realm's "cluster": false); without a cluster it does
	// nothing.
	Local bool
}

// realm is a routing namespace: its sessions, broker and dealer.
type realm struct {
	name wamp.URI
	// access are the realm's roles and authorizer, replaced as a whole by
	// Router.UpdateRealm (under mu, so that a join sees the roles that
	// the sessions it is added to were checked against).
	access atomic.Pointer[access]
	strict bool
	router *Router
	broker *broker
	dealer *dealer
	hooks  hooks
	meta   bool // the meta API is on (set in newRealm, read-only after)
	procs  internalProcs
	limits *realmLimits
	// authzLog rate-limits the log of the authorizer's failures
	// (authorize.go).
	authzLog lograte.Limit
	// statsOpts are the session statistics' (session_stats.go).
	statsOpts StatsOptions
	// joins and authFailures count the sessions that joined and the joins
	// refused after HELLO, by authmethod (metrics.go).
	joins, authFailures authCounts
	// fabric is the realm's link to the other nodes of a cluster; nil on
	// one node (set in newRealm, read-only after). unlinked closes it
	// once.
	fabric   RealmFabric
	unlinked sync.Once
	// fenced: the node is cut off from its cluster (fabric_fence.go);
	// set under mu, read by joins under mu and by CALL and PUBLISH
	// without it.
	fenced atomic.Bool

	mu       sync.RWMutex // guards the fields below; after Router.mu
	sessions map[wamp.ID]*session
	closed   bool
}

func newRealm(r *Router, o RealmOptions) *realm {
	rm := &realm{
		name:      o.Name,
		strict:    o.StrictURIs,
		statsOpts: o.Stats,
		router:    r,
		hooks:     noHooks{},
		limits:    newRealmLimits(o.Limits, r.log.With("realm", string(o.Name))),
		authzLog:  newAuthzLog(),
		sessions:  make(map[wamp.ID]*session),
	}
	rm.access.Store(newAccess(o.Roles, o.Authorizer))
	rm.broker = newBroker(rm)
	rm.dealer = newDealer(rm)
	if r.fabric != nil && !o.Local {
		// The link may store retained events and mirror registrations
		// at once: the broker and the dealer exist.
		rm.link()
	}
	if rm.fabric != nil {
		rm.broker.events = rm.fabric // before the histories: their IDs
	}
	rm.broker.addHistories(o.EventHistory, rm.limits.now().historyBytes)
	if !o.DisableMetaAPI {
		rm.enableMetaAPI()
	}
	return rm
}

// access is what a realm's sessions may be and do: the roles a session
// may have (nil: any) and the authorizer of their actions. Never changed
// once made: UpdateRealm stores a new one.
type access struct {
	roles []string
	authz auth.Authorizer
}

func newAccess(roles []string, authz auth.Authorizer) *access {
	if authz == nil {
		authz = auth.AllowAll{}
	}
	return &access{roles: slices.Clone(roles), authz: authz}
}

// hasRole reports whether a session with this authrole may join.
func (a *access) hasRole(role string) bool {
	return a.roles == nil || slices.Contains(a.roles, role)
}

// hasRole reports whether a session with this authrole may join now.
func (rm *realm) hasRole(role string) bool { return rm.access.Load().hasRole(role) }

// join adds s to the realm. It fails with wamp.error.no_such_realm if the
// realm was removed meanwhile, and wamp.error.no_such_role if s's role
// was removed meanwhile (UpdateRealm). The caller sends WELCOME and then
// calls hooks.SessionJoined.
func (rm *realm) join(s *session) error {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.closed {
		return wamp.Errorf(wamp.ErrNoSuchRealm, "realm %q was removed", rm.name)
	}
	if !rm.hasRole(s.ident.AuthRole) {
		return wamp.Errorf(wamp.ErrNoSuchRole, "role %q was removed from realm %q", s.ident.AuthRole, rm.name)
	}
	if rm.fenced.Load() && !s.gate.opts.Internal {
		return rm.errFenced()
	}
	rm.sessions[s.id] = s
	return nil
}

// leave removes s and everything it owns on the realm: subscriptions,
// registrations, calls in flight both ways. Runs on s's goroutine.
func (rm *realm) leave(s *session) {
	rm.mu.Lock()
	delete(rm.sessions, s.id)
	rm.mu.Unlock()
	rm.broker.removeSession(s)
	rm.dealer.removeSession(s)
	s.publishStats(true)
	rm.hooks.SessionLeft(s.info())
}

// session returns the joined session with this ID, or nil.
func (rm *realm) session(id wamp.ID) *session {
	rm.mu.RLock()
	defer rm.mu.RUnlock()
	return rm.sessions[id]
}

// close marks the realm closed and ends its sessions with GOODBYE reason;
// their peers close in the background (session.end).
func (rm *realm) close(reason wamp.URI) {
	rm.mu.Lock()
	rm.closed = true
	all := make([]*session, 0, len(rm.sessions))
	for _, s := range rm.sessions {
		all = append(all, s)
	}
	rm.mu.Unlock()
	for _, s := range all {
		s.shutdown(reason)
	}
	rm.unlink()
}

func (rm *realm) stats() RealmStats {
	rm.mu.RLock()
	n := len(rm.sessions)
	rm.mu.RUnlock()
	st := RealmStats{Sessions: n, LimitRefusals: rm.limits.refused.Load(),
		Joins: rm.joins.load(), AuthFailures: rm.authFailures.load()}
	st.CallDurations = rm.dealer.durations.Snapshot()
	st.Subscriptions, st.Subscribers, st.SubscriptionWeight = rm.broker.count()
	st.Registrations, st.Callees, st.RegistrationWeight, st.CallsInFlight = rm.dealer.count()
	return st
}

// validURI checks a topic or procedure (or pattern) under the realm's rules.
func (rm *realm) validURI(u wamp.URI, match string) bool {
	return wamp.ValidURI(u, rm.strict, match)
}
