package router

import "github.com/junction-wamp/junction/wamp"

// RosterFabric is what a RealmFabric implements to keep a roster of this
// node's sessions in the cluster, so that when this node is lost another
// node publishes the meta events of their leaving (RealmLink.PublishLost).
// A realm without the meta API keeps no roster (it has no meta events).
type RosterFabric interface {
	// Roster tells the cluster of a change of one of the realm's
	// sessions: it joined, left, or gained or lost a subscription or
	// registration (not those of wamp.* URIs, which make no meta events).
	// Called on the session's goroutine, in the order of its changes,
	// with no lock held; it must not block.
	Roster(c RosterChange)
}

// RosterOp is what a RosterChange tells.
type RosterOp uint8

// The changes of a session that a roster follows.
const (
	RosterJoined RosterOp = 1 + iota
	RosterLeft
	RosterSubscribed
	RosterUnsubscribed
	RosterRegistered
	RosterUnregistered
)

// RosterChange is one change of a session, for RosterFabric.
type RosterChange struct {
	Op      RosterOp
	Session wamp.ID
	// AuthID and AuthRole: the session's, with RosterJoined.
	AuthID, AuthRole string
	// Item: the subscription or registration gained or lost.
	Item RosterItem
}

// RosterItem is a subscription or a registration a session holds.
type RosterItem struct {
	ID    wamp.ID
	URI   wamp.URI // the topic or procedure
	Match string
	// Last (PublishLost): no other session of the lost node holds it.
	Last bool
}

// LostSession is a session of a node that was lost, as the cluster's
// roster kept it.
type LostSession struct {
	ID               wamp.ID
	AuthID, AuthRole string
	// Subscriptions and Registrations the session held, in the order
	// they were made.
	Subscriptions, Registrations []RosterItem
	// Testaments to publish, in order.
	Testaments []Testament
}

// PublishLost publishes, for a session of a node that was lost, what its
// own node would have published had it left: on_unsubscribe for each of
// its subscriptions (on_delete after the last of the lost node's
// subscribers when no node has one left), on_unregister for each of its
// registrations (on_delete when no callee is left in the cluster), its
// testaments, then on_leave. The events go to this node's and the other
// nodes' subscribers. Called by the cluster with no lock held.
func (l *RealmLink) PublishLost(s LostSession) {
	rm := l.rm
	m := rm.metaHooks()
	if m == nil {
		l.PublishTestaments(s.Testaments)
		return
	}
	for _, it := range s.Subscriptions {
		info := subInfo{ID: it.ID, Topic: it.URI, Match: it.Match}
		m.Unsubscribed(s.ID, info)
		if _, _, here := rm.broker.snapshot(it.ID); it.Last && !here {
			m.SubscriptionDeleted(s.ID, info) // unless another node has it
		}
	}
	for _, it := range s.Registrations {
		info := regInfo{ID: it.ID, Procedure: it.URI, Match: it.Match}
		m.Unregistered(s.ID, info)
		if _, callees, _ := rm.dealer.snapshot(it.ID); it.Last && len(callees) == 0 {
			m.RegistrationDeleted(s.ID, info)
		}
	}
	l.PublishTestaments(s.Testaments)
	rm.publishInternal(topicSessionOnLeave, nil, wamp.List{uint64(s.ID), s.AuthID, s.AuthRole}, nil)
}

// metaHooks returns the realm's meta API, nil when it has none.
func (rm *realm) metaHooks() *metaAPI {
	switch h := rm.hooks.(type) {
	case *metaAPI:
		return h
	case rosterHooks:
		return h.metaAPI
	}
	return nil
}

// rosterHooks are the meta API of a realm whose fabric keeps a roster:
// they tell the roster of every change of a session before its meta
// event. Single nodes never have them.
type rosterHooks struct {
	*metaAPI
	roster RosterFabric
}

var _ hooks = rosterHooks{}

// withRoster returns the hooks of the meta API m: m itself, or m with the
// fabric's roster when the realm is in a cluster that keeps one.
func (rm *realm) withRoster(m *metaAPI) hooks {
	if rf, ok := rm.fabric.(RosterFabric); ok {
		return rosterHooks{metaAPI: m, roster: rf}
	}
	return m
}

func (h rosterHooks) SessionJoined(s sessionInfo) {
	h.roster.Roster(RosterChange{Op: RosterJoined, Session: s.ID, AuthID: s.AuthID, AuthRole: s.AuthRole})
	h.metaAPI.SessionJoined(s)
}

func (h rosterHooks) SessionLeft(s sessionInfo) {
	h.metaAPI.SessionLeft(s)
	h.roster.Roster(RosterChange{Op: RosterLeft, Session: s.ID})
}

func (h rosterHooks) Subscribed(session wamp.ID, sub subInfo) {
	h.note(RosterSubscribed, session, RosterItem{ID: sub.ID, URI: sub.Topic, Match: sub.Match})
	h.metaAPI.Subscribed(session, sub)
}

func (h rosterHooks) Unsubscribed(session wamp.ID, sub subInfo) {
	h.note(RosterUnsubscribed, session, RosterItem{ID: sub.ID, URI: sub.Topic, Match: sub.Match})
	h.metaAPI.Unsubscribed(session, sub)
}

func (h rosterHooks) Registered(session wamp.ID, reg regInfo) {
	h.note(RosterRegistered, session, RosterItem{ID: reg.ID, URI: reg.Procedure, Match: reg.Match})
	h.metaAPI.Registered(session, reg)
}

func (h rosterHooks) Unregistered(session wamp.ID, reg regInfo) {
	h.note(RosterUnregistered, session, RosterItem{ID: reg.ID, URI: reg.Procedure, Match: reg.Match})
	h.metaAPI.Unregistered(session, reg)
}

// note tells the roster of a subscription or registration gained or
// lost, but not one of a wamp.* URI (no meta event), nor one a leaving
// session drops (the session's RosterLeft follows: the roster is not
// written once per item it held).
func (h rosterHooks) note(op RosterOp, session wamp.ID, it RosterItem) {
	if restricted(it.URI) || h.rm.session(session) == nil {
		return
	}
	h.roster.Roster(RosterChange{Op: op, Session: session, Item: it})
}
