package router

import (
	"slices"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// SessionIDs is what a Fabric implements to draw the IDs of the router's
// sessions, so that no two nodes of a cluster give one ID to two
// sessions. Without it (one node) a session ID is wamp.GlobalID.
type SessionIDs interface {
	// SessionID returns a new session ID, in [1, 2^53], that no other
	// node of the cluster draws. Safe for concurrent use; must not block.
	SessionID() wamp.ID
}

// MetaOp is what a MetaQuery asks: what one of the meta procedures
// needs of every node.
type MetaOp uint8

// The meta procedures' questions a cluster asks of every node.
const (
	SessionCount          MetaOp = 1 + iota // wamp.session.count
	SessionList                             // wamp.session.list
	SessionGet                              // wamp.session.get
	SessionKill                             // wamp.session.kill
	SessionKillByAuthID                     // wamp.session.kill_by_authid
	SessionKillByAuthRole                   // wamp.session.kill_by_authrole
	// SubscriptionGet: the subscription ID's details and subscribers
	// (wamp.subscription.get, list_subscribers, count_subscribers).
	SubscriptionGet
	// SubscriptionList: the subscriptions by match policy
	// (wamp.subscription.list), those a session of role Value may see.
	SubscriptionList
	// SubscriptionLookup: the subscription of exactly (URI, Match)
	// (wamp.subscription.lookup).
	SubscriptionLookup
	// SubscriptionMatch: the subscriptions an event to URI reaches, those
	// a session of role Value may see (wamp.subscription.match).
	SubscriptionMatch
	// SubscriptionEvents: the subscription ID's details and the Limit
	// newest events of its history (wamp.subscription.get_events).
	SubscriptionEvents
)

// LastMetaOp is the last MetaOp: the ops are SessionCount to LastMetaOp.
const LastMetaOp = SubscriptionEvents

// MetaQuery is a meta procedure's question, as every node of the
// cluster answers it for its own sessions of the realm.
type MetaQuery struct {
	Op MetaOp
	// AuthRoles (count, list): only sessions of these roles, when
	// HasAuthRoles; every session otherwise.
	AuthRoles    []string
	HasAuthRoles bool
	ID           wamp.ID // the session of get and kill; the subscription of SubscriptionGet
	// Value: the authid or authrole of kill_by_*; the caller's authrole
	// of SubscriptionList.
	Value string
	// Reason and Message (kill*): the GOODBYE the killed sessions get.
	Reason     wamp.URI
	Message    string
	HasMessage bool
	// URI and Match: the topic of SubscriptionMatch, the pattern of
	// SubscriptionLookup.
	URI   wamp.URI
	Match uriindex.Match
	Limit int // the events of SubscriptionEvents
}

// MetaAnswer is one node's answer to a MetaQuery.
type MetaAnswer struct {
	Count int // count
	// IDs: the sessions of list, those killed by kill*, the subscribers
	// of SubscriptionGet, the subscriptions of SubscriptionLookup (one at
	// most) and SubscriptionMatch.
	IDs []wamp.ID
	// Details: of the session of get, of the subscription of
	// SubscriptionGet and SubscriptionEvents (with, for the latter,
	// "events": its history's newest events, newest first, when it keeps
	// one), nil when it is not there; SubscriptionList's lists by match
	// policy.
	Details wamp.Dict
}

// MetaFabric is what a RealmFabric implements to answer the session
// meta procedures for the whole cluster.
type MetaFabric interface {
	// AskMeta asks q of the realm on every other live member of the
	// cluster and returns their answers. It fails with a
	// *wamp.RequestError (junction.error.cluster_unavailable) when a
	// member did not answer in time: never a partial answer;
	// junction.error.cluster_isolated at once while this node is fenced.
	// It is called with no lock held and may wait.
	AskMeta(q MetaQuery) ([]MetaAnswer, error)
}

// AnswerMeta answers q, from another node, for this node's sessions
// of the realm.
func (l *RealmLink) AnswerMeta(q MetaQuery) MetaAnswer {
	return l.rm.answerMeta(q, nil)
}

// answerMeta answers q for the realm's sessions on this node; caller
// (nil for another node's query) is never killed.
func (rm *realm) answerMeta(q MetaQuery, caller *session) MetaAnswer {
	switch q.Op {
	case SessionCount:
		return MetaAnswer{Count: len(rm.joined(q.roles))}
	case SessionList:
		return MetaAnswer{IDs: sessionIDs(rm.joined(q.roles))}
	case SessionGet:
		if s := rm.session(q.ID); s != nil {
			return MetaAnswer{Details: sessionDetails(s.info())}
		}
	case SessionKill:
		return MetaAnswer{IDs: q.kill(rm.joined(func(s *session) bool { return s.id == q.ID && s != caller }))}
	case SessionKillByAuthID:
		return MetaAnswer{IDs: q.kill(rm.joined(func(s *session) bool { return s != caller && s.ident.AuthID == q.Value }))}
	case SessionKillByAuthRole:
		return MetaAnswer{IDs: q.kill(rm.joined(func(s *session) bool { return s != caller && s.ident.AuthRole == q.Value }))}
	case SubscriptionGet:
		if info, subscribers, ok := rm.broker.snapshot(q.ID); ok {
			return MetaAnswer{IDs: subscribers, Details: subscriptionDetails(info)}
		}
	case SubscriptionList:
		return MetaAnswer{Details: rm.broker.list(q.Value).dict()}
	case SubscriptionLookup:
		if id, ok := rm.broker.lookup(q.URI, q.Match); ok {
			return MetaAnswer{IDs: []wamp.ID{id}}
		}
	case SubscriptionMatch:
		return MetaAnswer{IDs: rm.broker.matching(q.URI, q.Value)}
	case SubscriptionEvents:
		if info, events, ok := rm.broker.historyOf(q.ID, q.Limit); ok {
			d := subscriptionDetails(info)
			if events != nil {
				d[historyEvents] = events
			}
			return MetaAnswer{Details: d}
		}
	}
	return MetaAnswer{}
}

// roles selects the sessions of q's AuthRoles. It reads only immutable
// session fields (rm.joined calls it under realm.mu).
func (q MetaQuery) roles(s *session) bool {
	return !q.HasAuthRoles || slices.Contains(q.AuthRoles, s.ident.AuthRole)
}

// kill ends the victims with q's GOODBYE, in the background
// (session.end), and returns their IDs.
func (q MetaQuery) kill(victims []*session) []wamp.ID {
	for _, s := range victims {
		d := wamp.Dict{}
		if q.HasMessage {
			d[wamp.KeyMessage] = q.Message
		}
		s.end(&wamp.Goodbye{Details: d, Reason: q.Reason})
	}
	return sessionIDs(victims)
}

func sessionIDs(all []*session) []wamp.ID {
	ids := make([]wamp.ID, len(all))
	for i, s := range all {
		ids[i] = s.id
	}
	return ids
}

// askMeta answers q for the whole realm: this node's answer first,
// then the other nodes' when the realm is in a cluster.
func (rm *realm) askMeta(q MetaQuery, caller *session) ([]MetaAnswer, error) {
	all := []MetaAnswer{rm.answerMeta(q, caller)}
	sf, ok := rm.fabric.(MetaFabric)
	if !ok || (q.Op == SessionGet && all[0].Details != nil) || (q.Op == SessionKill && len(all[0].IDs) > 0) ||
		(q.Op == SubscriptionLookup && len(all[0].IDs) > 0) {
		return all, nil
	}
	remote, err := sf.AskMeta(q)
	if err != nil {
		return nil, err
	}
	return append(all, remote...), nil
}

// newSessionID returns the ID of a new session: the fabric's when it
// draws them (SessionIDs), wamp.GlobalID otherwise.
func (r *Router) newSessionID() wamp.ID {
	if ids, ok := r.fabric.(SessionIDs); ok {
		return ids.SessionID()
	}
	return wamp.GlobalID()
}

// Testament is an event a session asked the router to publish when it
// goes (wamp.session.add_testament), as the cluster keeps it.
type Testament struct {
	Topic   wamp.URI
	Options wamp.Dict    // the publish options, checked when added
	Payload wamp.Payload // a raw payload passes through
}

// TestamentFabric is what a RealmFabric implements to keep the
// testaments of this node's sessions in the cluster's table, so that
// another node publishes them when this one dies.
type TestamentFabric interface {
	// Testaments tells the cluster the testaments session holds now, in
	// the order they are to be published; none once the session left and
	// this node published them. It is called on the session's goroutine,
	// with no lock held, and may wait for the table; it returns an error
	// when the table could not be written.
	Testaments(session wamp.ID, ts []Testament) error
}

// PublishTestaments publishes the testaments of a session of a node that
// died, as that node would have when the session left (by the router,
// to this node's and the other nodes' subscribers).
func (l *RealmLink) PublishTestaments(ts []Testament) {
	for _, t := range ts {
		l.rm.publishPayload(t.Topic, t.Options, t.Payload)
	}
}

// shareTestaments tells the cluster, when the realm is in one, the
// testaments session id holds now. A table that cannot be written is
// logged: the session's own node still publishes them when it leaves.
func (m *metaAPI) shareTestaments(id wamp.ID) {
	tf, ok := m.rm.fabric.(TestamentFabric)
	if !ok {
		return
	}
	var all []Testament
	m.mu.Lock()
	if ts := m.testaments[id]; ts != nil {
		for _, t := range append(slices.Clone(ts.detached), ts.destroyed...) {
			all = append(all, Testament{Topic: t.topic, Options: t.opts, Payload: wamp.Payload{Args: t.args, Kwargs: t.kwargs}})
		}
	}
	m.mu.Unlock()
	if err := tf.Testaments(id, all); err != nil {
		m.rm.router.log.Error("cluster: testaments not kept in the cluster's table: they are lost if this node dies",
			"realm", string(m.rm.name), "session", uint64(id), "err", err)
	}
}

// SubscriptionsElsewhere is what an EventFabric implements so that a
// subscription's on_create and on_delete are published once in the
// cluster (a subscription has one ID on every node, and each node creates
// it with its first local subscriber): by the node that creates it while
// no other node has it, and the node that deletes it when no other node
// has it any more.
type SubscriptionsElsewhere interface {
	// Elsewhere reports whether another live node has subscribers of sub,
	// as far as this node knows. It must not block.
	Elsewhere(sub Subscription) bool
}

// elsewhere reports whether another node of the cluster has subscribers
// of the subscription (topic, match).
func (rm *realm) elsewhere(topic wamp.URI, match string) bool {
	se, ok := rm.fabric.(SubscriptionsElsewhere)
	if !ok {
		return false
	}
	m, ok := uriindex.ParseMatch(match)
	return ok && se.Elsewhere(Subscription{Topic: topic, Match: m})
}
