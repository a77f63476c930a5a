package router

import (
	"github.com/junction-wamp/junction/wamp"
)

// Session meta events.
const (
	topicSessionOnJoin  wamp.URI = "wamp.session.on_join"
	topicSessionOnLeave wamp.URI = "wamp.session.on_leave"
)

// SessionJoined publishes wamp.session.on_join with the session's details.
func (m *metaAPI) SessionJoined(s sessionInfo) {
	m.rm.publishInternal(topicSessionOnJoin, nil, wamp.List{sessionDetails(s)}, nil)
}

// SessionLeft publishes the session's testaments, then
// wamp.session.on_leave(session, authid, authrole) as Crossbar does.
func (m *metaAPI) SessionLeft(s sessionInfo) {
	m.publishTestaments(s.ID)
	m.rm.publishInternal(topicSessionOnLeave, nil, wamp.List{uint64(s.ID), s.AuthID, s.AuthRole}, nil)
}

// sessionDetails are the details of wamp.session.get and on_join.
func sessionDetails(s sessionInfo) wamp.Dict {
	d := wamp.Dict{
		"session":            uint64(s.ID),
		wamp.KeyAuthID:       s.AuthID,
		wamp.KeyAuthRole:     s.AuthRole,
		wamp.KeyAuthMethod:   s.AuthMethod,
		wamp.KeyAuthProvider: s.AuthProvider,
		"transport":          transportDetails(s.Peer),
	}
	if s.AuthExtra != nil {
		d[wamp.KeyAuthExtra] = s.AuthExtra
	}
	return d
}

// transportDetails describe a session's connection.
func transportDetails(p wamp.PeerInfo) wamp.Dict {
	return wamp.Dict{"type": p.Transport, "serializer": p.Serializer, "peer": p.RemoteAddr, "is_secure": p.TLS}
}

// joined returns the realm's sessions that keep returns true for. It takes
// realm.mu (read) and calls keep under it: keep must only read immutable
// session fields.
func (rm *realm) joined(keep func(*session) bool) []*session {
	rm.mu.RLock()
	defer rm.mu.RUnlock()
	var all []*session
	for _, s := range rm.sessions {
		if keep(s) {
			all = append(all, s)
		}
	}
	return all
}

// byAuthRoles reads wamp.session.count/list's optional filter_authroles
// argument into a query.
func byAuthRoles(c *wamp.Call, op MetaOp) (MetaQuery, error) {
	a, err := parseArgs(c, "filter_authroles")
	if err != nil {
		return MetaQuery{}, err
	}
	roles, has, err := a.strings(0)
	return MetaQuery{Op: op, AuthRoles: roles, HasAuthRoles: has}, err
}

// sessionCount serves wamp.session.count(filter_authroles=None) -> count,
// for the whole cluster.
func (m *metaAPI) sessionCount(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	q, err := byAuthRoles(c, SessionCount)
	if err != nil {
		return nil, nil, err
	}
	all, err := m.rm.askMeta(q, caller)
	if err != nil {
		return nil, nil, err
	}
	n := 0
	for _, a := range all {
		n += a.Count
	}
	return wamp.List{n}, nil, nil
}

// sessionList serves wamp.session.list(filter_authroles=None) -> [ids],
// for the whole cluster.
func (m *metaAPI) sessionList(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	q, err := byAuthRoles(c, SessionList)
	if err != nil {
		return nil, nil, err
	}
	all, err := m.rm.askMeta(q, caller)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{answeredIDs(all)}, nil, nil
}

// answeredIDs are the IDs of every answer, as sent on the wire.
func answeredIDs(all []MetaAnswer) wamp.List {
	ids := wamp.List{}
	for _, a := range all {
		for _, id := range a.IDs {
			ids = append(ids, uint64(id))
		}
	}
	return ids
}

// sessionGet serves wamp.session.get(session) -> details, wherever the
// session is in the cluster.
func (m *metaAPI) sessionGet(caller *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "session")
	if err != nil {
		return nil, nil, err
	}
	id, err := a.id(0)
	if err != nil {
		return nil, nil, err
	}
	all, err := m.rm.askMeta(MetaQuery{Op: SessionGet, ID: id}, caller)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range all {
		if a.Details != nil {
			return wamp.List{a.Details}, nil, nil
		}
	}
	return nil, nil, noSuchSession(id)
}

func noSuchSession(id wamp.ID) error {
	return wamp.Errorf(wamp.ErrNoSuchSession, "no session with ID %d exists on this realm", id)
}
