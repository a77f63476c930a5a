package wamp

import "slices"

// Identity is who a CALL, PUBLISH or SUBSCRIBE of one of the node's own
// in-process sessions acts for: an HTTP client of the bridge that
// authenticated itself (a JWT, an API key, HTTP Basic). The router then
// authorizes the message with AuthRole and discloses AuthID and AuthRole
// instead of the session's own. Never modified once sent.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Identity struct {
	AuthID   string
	AuthRole string
}

// Acting is a CALL, PUBLISH or SUBSCRIBE (Message) that acts for
// Identity. It exists only in the process, between a session and the
// router over an in-memory peer: no codec reads or writes it, so a client
// on the network cannot assert an identity, and the router refuses it
// from a session that is not the node's own (an ActsFor gate's). The
// messages themselves keep no field for it, so that a message without
// an identity costs nothing more.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Acting struct {
	Message  Message
	Identity *Identity
}

// Type returns the type of the message inside.
func (a *Acting) Type() MessageType { return a.Message.Type() }

// Addressed is an EVENT with the Audience of its publication, as the
// router sends it to a session that acts for others, which applies it to
// each identity it serves (its own included). Like Acting, it exists
// only in the process.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Addressed struct {
	Event    *Event
	Audience *Audience
}

// Type returns TypeEvent.
func (*Addressed) Type() MessageType { return TypeEvent }

// Audience is who a publication is for by authid and authrole: its
// exclude_authid, eligible_authid, exclude_authrole and eligible_authrole
// options.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
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
