package client

import (
	"context"

	"github.com/junction-wamp/junction/wamp"
)

// identityKey is the context key of WithIdentity.
type identityKey struct{}

// WithIdentity returns a context whose calls, publications and
// subscriptions act for id: the CALL, PUBLISH or SUBSCRIBE is sent
// wrapped in a wamp.Acting, and the router authorizes and discloses it
// instead of the session's own identity. Only the node's own in-process
// sessions may do so (the router refuses others), and only over an
// in-memory peer: no codec carries an identity. A nil id changes nothing.
func WithIdentity(ctx context.Context, id *wamp.Identity) context.Context {
	if id == nil {
		return ctx
	}
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity ctx acts for (WithIdentity), nil for
// none.
func IdentityFrom(ctx context.Context) *wamp.Identity {
	id, _ := ctx.Value(identityKey{}).(*wamp.Identity)
	return id
}

// acting is m, wrapped to act for the identity of ctx if it has one.
func acting(ctx context.Context, m wamp.Message) wamp.Message {
	if as := IdentityFrom(ctx); as != nil {
		return &wamp.Acting{Message: m, Identity: as}
	}
	return m
}

// receives reports whether the handler sub receives ev: an event with an
// Audience (see wamp.Audience) goes to a subscription made for an
// identity only if it allows that identity, and to one made for the
// session itself only if it allows the session's own.
func (s *Session) receives(sub *Subscription, ev *Event) bool {
	if ev.Audience == nil {
		return true
	}
	if sub.identity != nil {
		return ev.Audience.Allows(sub.identity.AuthID, sub.identity.AuthRole)
	}
	authid, _ := s.details[wamp.KeyAuthID].(string)
	authrole, _ := s.details[wamp.KeyAuthRole].(string)
	return ev.Audience.Allows(authid, authrole)
}
