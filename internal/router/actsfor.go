package router

import (
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// errActsFor refuses a message that carries an identity from a session
// that may not act for others (see GateOptions.ActsFor).
func errActsFor() error {
	return wamp.Errorf(wamp.ErrNotAuthorized, "session may not act for another identity")
}

// handleActing handles a CALL, PUBLISH or SUBSCRIBE that acts for an
// identity, which only a session that may act for others may send.
func (s *session) handleActing(m *wamp.Acting) error {
	if !s.actsFor() || m.Identity == nil {
		return errActsFor()
	}
	switch inner := m.Message.(type) {
	case *wamp.Call:
		return s.handleCallAs(inner, m.Identity)
	case *wamp.Publish:
		return s.handlePublishAs(inner, m.Identity)
	case *wamp.Subscribe:
		return s.handleSubscribeAs(inner, m.Identity)
	case nil:
		return violation("no message")
	}
	return violation("%s cannot act for an identity", m.Message.Type())
}

// actsFor reports whether s's gate lets its messages carry identities.
func (s *session) actsFor() bool { return s.gate.opts.ActsFor }

// actor is who a message of s acts for: as when set, else s itself.
func (s *session) actor(as *wamp.Identity) (authid, authrole string) {
	if as != nil {
		return as.AuthID, as.AuthRole
	}
	return s.ident.AuthID, s.ident.AuthRole
}

// authorizeAs is authorize for a message that may act for an identity:
// with as nil it is s.authorize; otherwise the realm's authorizer decides
// for s's identity with as's authid and authrole (a dynamic authorizer
// sees them as the session's), and the answer is never kept, since the
// next message may act for someone else. A session whose gate does not
// let it act for others is refused.
//
// Only for s's goroutine, holding no lock (see authorize).
func (s *session) authorizeAs(as *wamp.Identity, action auth.Action, uri wamp.URI, opts wamp.Dict) (auth.Permission, error) {
	if as == nil {
		return s.authorize(action, uri, opts)
	}
	if !s.actsFor() {
		return auth.Permission{}, errActsFor()
	}
	id := s.ident
	id.AuthID, id.AuthRole = as.AuthID, as.AuthRole
	p, err := s.realm.access.Load().authz.Authorize(&id, action, uri, opts)
	return s.decide(&id, authzKey{action, uri}, p, err)
}
