package router

import (
	"slices"

	"github.com/junction-wamp/junction/internal/wamp"
)

// SessionIDs is what a Fabric implements to draw the IDs of the router's
// sessions, so that no two nodes of a cluster give one ID to two
// sessions. Without it (one node) a session ID is wamp.GlobalID.
type SessionIDs interface {
	// SessionID returns a new session ID, in [1, 2^53], that no other
	// node of the cluster draws. Safe for concurrent use; must not block.
	SessionID() wamp.ID
}

// SessionOp is what a SessionQuery asks: one of the wamp.session meta
// procedures.
type SessionOp uint8

// The session meta procedures a cluster asks of every node.
const (
	SessionCount          SessionOp = 1 + iota // wamp.session.count
	SessionList                                // wamp.session.list
	SessionGet                                 // wamp.session.get
	SessionKill                                // wamp.session.kill
	SessionKillByAuthID                        // wamp.session.kill_by_authid
	SessionKillByAuthRole                      // wamp.session.kill_by_authrole
)

// SessionQuery is a session meta procedure's call, as every node of the
// cluster answers it for its own sessions of the realm.
type SessionQuery struct {
	Op SessionOp
	// AuthRoles (count, list): only sessions of these roles, when
	// HasAuthRoles; every session otherwise.
	AuthRoles    []string
	HasAuthRoles bool
	Session      wamp.ID // get, kill
	Value        string  // the authid or authrole of kill_by_*
	// Reason and Message (kill*): the GOODBYE the killed sessions get.
	Reason     wamp.URI
	Message    string
	HasMessage bool
}

// SessionAnswer is one node's answer to a SessionQuery.
type SessionAnswer struct {
	Count   int       // count
	IDs     []wamp.ID // list: the sessions; kill*: the sessions killed
	Details wamp.Dict // get: the session's details; nil when it is not there
}

// SessionFabric is what a RealmFabric implements to answer the session
// meta procedures for the whole cluster.
type SessionFabric interface {
	// AskSessions asks q of the realm on every other live member of the
	// cluster and returns their answers. It fails with a
	// *wamp.RequestError (junction.error.cluster_unavailable) when a
	// member did not answer in time: never a partial answer. It is called
	// with no lock held and may wait.
	AskSessions(q SessionQuery) ([]SessionAnswer, error)
}

// AnswerSessions answers q, from another node, for this node's sessions
// of the realm.
func (l *RealmLink) AnswerSessions(q SessionQuery) SessionAnswer {
	return l.rm.answerSessions(q, nil)
}

// answerSessions answers q for the realm's sessions on this node; caller
// (nil for another node's query) is never killed.
func (rm *realm) answerSessions(q SessionQuery, caller *session) SessionAnswer {
	switch q.Op {
	case SessionCount:
		return SessionAnswer{Count: len(rm.joined(q.roles))}
	case SessionList:
		return SessionAnswer{IDs: sessionIDs(rm.joined(q.roles))}
	case SessionGet:
		if s := rm.session(q.Session); s != nil {
			return SessionAnswer{Details: sessionDetails(s.info())}
		}
	case SessionKill:
		return SessionAnswer{IDs: q.kill(rm.joined(func(s *session) bool { return s.id == q.Session && s != caller }))}
	case SessionKillByAuthID:
		return SessionAnswer{IDs: q.kill(rm.joined(func(s *session) bool { return s != caller && s.ident.AuthID == q.Value }))}
	case SessionKillByAuthRole:
		return SessionAnswer{IDs: q.kill(rm.joined(func(s *session) bool { return s != caller && s.ident.AuthRole == q.Value }))}
	}
	return SessionAnswer{}
}

// roles selects the sessions of q's AuthRoles. It reads only immutable
// session fields (rm.joined calls it under realm.mu).
func (q SessionQuery) roles(s *session) bool {
	return !q.HasAuthRoles || slices.Contains(q.AuthRoles, s.ident.AuthRole)
}

// kill ends the victims with q's GOODBYE, in the background
// (session.end), and returns their IDs.
func (q SessionQuery) kill(victims []*session) []wamp.ID {
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

// askSessions answers q for the whole realm: this node's answer first,
// then the other nodes' when the realm is in a cluster.
func (rm *realm) askSessions(q SessionQuery, caller *session) ([]SessionAnswer, error) {
	all := []SessionAnswer{rm.answerSessions(q, caller)}
	sf, ok := rm.fabric.(SessionFabric)
	if !ok || (q.Op == SessionGet && all[0].Details != nil) || (q.Op == SessionKill && len(all[0].IDs) > 0) {
		return all, nil
	}
	remote, err := sf.AskSessions(q)
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
