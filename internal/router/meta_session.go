package router

import (
	"slices"

	"github.com/junction-wamp/junction/internal/wamp"
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

// byAuthRoles selects sessions by wamp.session.count/list's optional
// filter_authroles argument.
func byAuthRoles(c *wamp.Call) (func(*session) bool, error) {
	a, err := parseArgs(c, "filter_authroles")
	if err != nil {
		return nil, err
	}
	roles, has, err := a.strings(0)
	if err != nil {
		return nil, err
	}
	return func(s *session) bool { return !has || slices.Contains(roles, s.ident.AuthRole) }, nil
}

// sessionCount serves wamp.session.count(filter_authroles=None) -> count.
func (m *metaAPI) sessionCount(_ *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	keep, err := byAuthRoles(c)
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{len(m.rm.joined(keep))}, nil, nil
}

// sessionList serves wamp.session.list(filter_authroles=None) -> [ids].
func (m *metaAPI) sessionList(_ *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	keep, err := byAuthRoles(c)
	if err != nil {
		return nil, nil, err
	}
	all := m.rm.joined(keep)
	ids := make(wamp.List, len(all))
	for i, s := range all {
		ids[i] = uint64(s.id)
	}
	return wamp.List{ids}, nil, nil
}

// sessionGet serves wamp.session.get(session) -> details.
func (m *metaAPI) sessionGet(_ *session, c *wamp.Call) (wamp.List, wamp.Dict, error) {
	a, err := parseArgs(c, "session")
	if err != nil {
		return nil, nil, err
	}
	id, err := a.id(0)
	if err != nil {
		return nil, nil, err
	}
	s := m.rm.session(id)
	if s == nil {
		return nil, nil, noSuchSession(id)
	}
	return wamp.List{sessionDetails(s.info())}, nil, nil
}

func noSuchSession(id wamp.ID) error {
	return wamp.Errorf(wamp.ErrNoSuchSession, "no session with ID %d exists on this realm", id)
}
