package wamp

import "slices"

// Identity is who a CALL, PUBLISH or SUBSCRIBE of one of the node's own
// in-process sessions acts for: an HTTP client of the bridge that
// authenticated itself (a JWT, an API key, HTTP Basic). The router then
// authorizes the message with AuthRole and discloses AuthID and AuthRole
// instead of the session's own.
//
// It travels only as a Go field of the message (Call.Identity, ...), which
// no codec reads or writes: a client on the network cannot assert one, and
// the router refuses a message carrying one from a session that is not the
// node's own (an internal gate's). Never modified once sent.
type Identity struct {
	AuthID   string
	AuthRole string
}

// Audience is who a publication is for by authid and authrole: its
// exclude_authid, eligible_authid, exclude_authrole and eligible_authrole
// options, read by the router. The router puts it on an EVENT
// (Event.Audience) sent to a session that subscribed for identities of
// its own (Subscribe.Identity), having applied to that session only the
// session-ID lists: the session applies Allows to each identity it
// serves. nil when the publication has none of these lists.
type Audience struct {
	ExcludeAuthID, EligibleAuthID     []string
	ExcludeAuthRole, EligibleAuthRole []string
	// HasEligibleAuthID and HasEligibleAuthRole: the eligible list was
	// given (an empty one then admits nobody).
	HasEligibleAuthID, HasEligibleAuthRole bool
}

// Allows reports whether the publication is for authid with authrole.
// A nil Audience allows everyone.
func (a *Audience) Allows(authid, authrole string) bool {
	switch {
	case a == nil:
		return true
	case slices.Contains(a.ExcludeAuthID, authid), slices.Contains(a.ExcludeAuthRole, authrole):
		return false
	case a.HasEligibleAuthID && !slices.Contains(a.EligibleAuthID, authid),
		a.HasEligibleAuthRole && !slices.Contains(a.EligibleAuthRole, authrole):
		return false
	}
	return true
}
