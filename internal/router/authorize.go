package router

import (
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// authzCacheSize bounds the answers one session keeps (Permission.Cache):
// once it has that many, further answers are not kept, so that a session
// acting on ever new URIs cannot grow its cache without bound.
const authzCacheSize = 1024

// authzLogEvery is the shortest interval between two "authorization
// failed" lines of a realm.
const authzLogEvery = 10 * time.Second

// authzKey is what a kept answer is for.
type authzKey struct {
	action auth.Action
	uri    wamp.URI
}

// authzVerbs phrase each action for the refusals.
var authzVerbs = map[auth.Action]string{
	auth.ActionCall:      "call",
	auth.ActionRegister:  "register",
	auth.ActionPublish:   "publish to",
	auth.ActionSubscribe: "subscribe to",
}

// authorize asks the realm's authorizer whether s may perform action on
// uri (with the request's options), or takes the answer s kept for them.
// It returns the permission when the action is allowed, else the error to
// answer: wamp.error.not_authorized when refused, and
// wamp.error.authorization_failed when the authorizer could not decide
// (an error, a malformed answer, no answer in time), which is logged,
// rate-limited, as Crossbar answers and logs it.
//
// Only for s's goroutine, which alone reads and writes s.authzCache. No
// lock is held: a dynamic authorizer blocks s (and only s) while it asks.
func (s *session) authorize(action auth.Action, uri wamp.URI, opts wamp.Dict) (auth.Permission, error) {
	a := s.realm.access.Load()
	if a != s.authzFrom {
		s.authzCache, s.authzFrom = nil, a // the realm's permissions changed
	}
	k := authzKey{action, uri}
	p, ok := s.authzCache[k]
	if ok {
		return s.decide(&s.ident, k, p, nil)
	}
	p, err := a.authz.Authorize(&s.ident, action, uri, opts)
	if err == nil {
		s.keep(k, p)
	}
	return s.decide(&s.ident, k, p, err)
}

// decide turns the authorizer's answer p (or its failure err) for id into
// authorize's result, logging a failure.
func (s *session) decide(id *auth.Identity, k authzKey, p auth.Permission, err error) (auth.Permission, error) {
	if err != nil {
		s.realm.authzFailed(s, id, k, err)
		return auth.Permission{}, wamp.Errorf(wamp.ErrAuthorizationFailed, "failed to authorize session to %s %q", authzVerbs[k.action], k.uri)
	}
	if !p.Allow {
		return p, wamp.Errorf(wamp.ErrNotAuthorized, "session is not authorized to %s %q", authzVerbs[k.action], k.uri)
	}
	return p, nil
}

// keep stores p in s's cache if the authorizer allows it and there is
// room. Only for s's goroutine.
func (s *session) keep(k authzKey, p auth.Permission) {
	if !p.Cache || len(s.authzCache) >= authzCacheSize {
		return
	}
	if s.authzCache == nil {
		s.authzCache = make(map[authzKey]auth.Permission)
	}
	s.authzCache[k] = p
}

// authzFailed logs an authorizer's failure, at most once per
// authzLogEvery for the realm, with how many were held back.
func (rm *realm) authzFailed(s *session, id *auth.Identity, k authzKey, err error) {
	ok, suppressed := rm.authzLog.Allow()
	if !ok {
		return
	}
	rm.router.log.Warn("authorization failed: action refused", "realm", string(rm.name), "session", uint64(s.id),
		"authid", id.AuthID, "authrole", id.AuthRole, "action", string(k.action), "uri", string(k.uri),
		"err", err, "held_back", suppressed)
}

// newAuthzLog is a realm's rate limit of authzFailed.
func newAuthzLog() lograte.Limit { return lograte.Limit{Interval: authzLogEvery} }
