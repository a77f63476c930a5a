package router

import (
	"strings"
	"sync"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// metaAPI is a realm's WAMP meta API: the session, registration and
// subscription meta procedures (router-internal procedures, authorized like
// any call), the meta events (it is the realm's hooks, so they are
// published with no lock held, on the goroutine of the session that caused
// them), and testaments. Shapes follow Crossbar's RouterServiceAgent.
//
// As in Crossbar, meta events are published by the router to every
// subscriber, the session they are about included (on_join and on_leave
// cannot reach it: it is not subscribed yet, or any more); subscriptions to
// wamp.* topics make no subscription meta events.
type metaAPI struct {
	rm *realm

	mu         sync.Mutex // guards testaments and total; a leaf lock
	testaments map[wamp.ID]*testaments
	total      usage // of every session's testaments, against the realm's limits
}

var _ hooks = (*metaAPI)(nil)

// enableMetaAPI makes the meta API the realm's hooks and registers its
// procedures. Called by newRealm, before any session can join.
func (rm *realm) enableMetaAPI() {
	m := &metaAPI{rm: rm, testaments: make(map[wamp.ID]*testaments)}
	rm.meta = true
	rm.hooks = rm.withRoster(m)
	for uri, fn := range m.procedures() {
		rm.registerInternal(uri, fn)
	}
}

// procedures are the meta procedures by URI.
func (m *metaAPI) procedures() map[wamp.URI]internalProc {
	return map[wamp.URI]internalProc{
		"wamp.session.count":                  m.sessionCount,
		"wamp.session.list":                   m.sessionList,
		"wamp.session.get":                    m.sessionGet,
		"wamp.session.kill":                   m.sessionKill,
		"wamp.session.kill_by_authid":         m.sessionKillByAuthID,
		"wamp.session.kill_by_authrole":       m.sessionKillByAuthRole,
		"wamp.session.add_testament":          m.addTestament,
		"wamp.session.flush_testaments":       m.flushTestaments,
		"wamp.registration.list":              m.registrationList,
		"wamp.registration.lookup":            m.registrationLookup,
		"wamp.registration.match":             m.registrationMatch,
		"wamp.registration.get":               m.registrationGet,
		"wamp.registration.list_callees":      m.registrationListCallees,
		"wamp.registration.count_callees":     m.registrationCountCallees,
		"wamp.subscription.list":              m.subscriptionList,
		"wamp.subscription.lookup":            m.subscriptionLookup,
		"wamp.subscription.match":             m.subscriptionMatch,
		"wamp.subscription.get":               m.subscriptionGet,
		"wamp.subscription.list_subscribers":  m.subscriptionListSubscribers,
		"wamp.subscription.count_subscribers": m.subscriptionCountSubscribers,
		"wamp.subscription.get_events":        m.subscriptionGetEvents,
	}
}

// trustedRole may see the protected namespaces, as in Crossbar.
const trustedRole = "trusted"

// hidden reports whether the registration or subscription uri is in a
// protected namespace (wamp.*, crossbar.*) that caller may not look at:
// Crossbar leaves these out of list, lookup and match, and refuses get and
// the subscriber/callee procedures with not_authorized.
func hidden(caller *session, uri wamp.URI) bool {
	return hiddenFrom(caller.ident.AuthRole, uri)
}

// hiddenFrom is hidden for a caller of role.
func hiddenFrom(role string, uri wamp.URI) bool {
	if role == trustedRole {
		return false
	}
	return strings.HasPrefix(string(uri), "wamp.") || strings.HasPrefix(string(uri), "crossbar.")
}

// isoTime is how the meta API writes times (Crossbar's "created"): ISO
// 8601 in UTC with milliseconds.
const isoTime = "2006-01-02T15:04:05.000Z"

// idOrNil is a meta procedure's single result: an ID, or null when ok is
// false.
func idOrNil(id wamp.ID, ok bool) wamp.List {
	if !ok {
		return wamp.List{nil}
	}
	return wamp.List{uint64(id)}
}

// idList turns IDs into a list as sent on the wire.
func idList(ids []wamp.ID) wamp.List {
	l := make(wamp.List, len(ids))
	for i, id := range ids {
		l[i] = uint64(id)
	}
	return l
}

// lookupArgs reads the (uri, options={match}) arguments of
// wamp.registration.lookup and wamp.subscription.lookup.
func lookupArgs(rm *realm, c *wamp.Call, param string) (wamp.URI, uriindex.Match, error) {
	a, err := parseArgs(c, param, "options")
	if err != nil {
		return "", 0, err
	}
	opts, err := a.dict(1)
	if err != nil {
		return "", 0, err
	}
	match, err := optMatch(opts)
	if err != nil {
		return "", 0, err
	}
	uri, err := a.uri(rm, 0, match)
	if err != nil {
		return "", 0, err
	}
	um, _ := uriindex.ParseMatch(match)
	return uri, um, nil
}

// matchLists are the IDs of registrations or subscriptions by match policy,
// as wamp.registration.list and wamp.subscription.list return them.
type matchLists [3]wamp.List // by uriindex.Match

func newMatchLists() *matchLists {
	return &matchLists{{}, {}, {}}
}

func (l *matchLists) add(m uriindex.Match, id wamp.ID) {
	l[m] = append(l[m], uint64(id))
}

func (l *matchLists) dict() wamp.Dict {
	return wamp.Dict{
		wamp.MatchExact:    l[uriindex.Exact],
		wamp.MatchPrefix:   l[uriindex.Prefix],
		wamp.MatchWildcard: l[uriindex.Wildcard],
	}
}
