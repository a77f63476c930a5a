package auth

import (
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// Actions says which actions a Rule allows.
type Actions struct {
	Call, Register, Publish, Subscribe bool
}

// Rule is one permission of a role, as in a Crossbar role's "permissions"
// list: the actions allowed on the URIs that URI matches under Match.
type Rule struct {
	URI   string
	Match uriindex.Match
	Allow Actions
	// DiscloseCaller and DisclosePublisher make the router disclose the
	// caller of a call, or the publisher of a publication, to receivers.
	DiscloseCaller    bool
	DisclosePublisher bool
	// Cache is Crossbar's hint that a decision may be cached. It is kept
	// for configuration compatibility only: Authorize is already a lookup.
	Cache bool
}

// grant is the compiled answer of one rule, indexed by actionIndex.
type grant [numActions]Permission

const numActions = 4

// actionIndex returns the position of a in a grant, or -1.
func actionIndex(a Action) int {
	switch a {
	case ActionCall:
		return 0
	case ActionRegister:
		return 1
	case ActionPublish:
		return 2
	case ActionSubscribe:
		return 3
	}
	return -1
}

func compile(r Rule) grant {
	return grant{
		{Allow: r.Allow.Call, Disclose: r.DiscloseCaller},
		{Allow: r.Allow.Register},
		{Allow: r.Allow.Publish, Disclose: r.DisclosePublisher},
		{Allow: r.Allow.Subscribe},
	}
}

// StaticAuthorizer authorizes by static role permissions. For a URI, the
// most specific matching rule of the session's role applies, in Crossbar's
// order (RouterRoleStaticAuth): the exact rule; else the most specific
// matching wildcard rule (see uriindex.Index.Best); else the longest
// matching prefix rule, where the prefix "" matches every URI. No matching
// rule, an unknown role or an unknown action means deny.
//
// A StaticAuthorizer is immutable once built, so it is safe for concurrent
// use (its indexes are only read); Authorize does not allocate.
type StaticAuthorizer struct {
	roles map[string]*roleRules
}

// roleRules are one role's compiled rules: exact and wildcard rules in one
// index, whose Best ranks exact first, and prefix rules in another, asked
// only when the first has no match, since Crossbar lets a matching wildcard
// rule win over a matching prefix rule.
type roleRules struct {
	specific uriindex.Index[grant]
	prefix   uriindex.Index[grant]
}

// best returns the grant of the rule that applies to uri.
func (r *roleRules) best(uri string) (grant, bool) {
	if _, _, g, ok := r.specific.Best(uri); ok {
		return g, true
	}
	_, _, g, ok := r.prefix.Best(uri)
	return g, ok
}

var _ Authorizer = (*StaticAuthorizer)(nil)

// NewStaticAuthorizer compiles roles (role name -> rules) into one index per
// role. Of two rules with the same URI and Match, the later one wins. A
// rule whose Match is not Exact, Prefix or Wildcard is ignored, so it grants
// nothing (configuration validation rejects such rules).
func NewStaticAuthorizer(roles map[string][]Rule) *StaticAuthorizer {
	a := &StaticAuthorizer{roles: make(map[string]*roleRules, len(roles))}
	for role, rules := range roles {
		rr := new(roleRules)
		for _, r := range rules {
			switch r.Match {
			case uriindex.Exact, uriindex.Wildcard:
				rr.specific.Set(r.URI, r.Match, compile(r))
			case uriindex.Prefix:
				rr.prefix.Set(r.URI, r.Match, compile(r))
			}
		}
		a.roles[role] = rr
	}
	return a
}

// HasRole reports whether role has permissions defined (even none).
func (a *StaticAuthorizer) HasRole(role string) bool {
	_, ok := a.roles[role]
	return ok
}

// Authorize answers whether id may perform action on uri; it never fails,
// and never asks the router to cache its answer (computing it is as fast).
func (a *StaticAuthorizer) Authorize(id *Identity, action Action, uri wamp.URI, _ wamp.Dict) (Permission, error) {
	i := actionIndex(action)
	if id == nil || i < 0 {
		return Permission{}, nil
	}
	rr := a.roles[id.AuthRole]
	if rr == nil {
		return Permission{}, nil
	}
	g, ok := rr.best(string(uri))
	if !ok {
		return Permission{}, nil
	}
	return g[i], nil
}
