package auth

import (
	"crypto/sha256"
	"crypto/subtle"

	"github.com/junction-wamp/junction/wamp"
)

// TicketPrincipal is a principal of the ticket authenticator.
type TicketPrincipal struct {
	Ticket string // the shared secret the client sends; "" never matches
	Role   string // the authrole given on success
}

// ticketAuth checks tickets against static principals. Immutable after
// construction, so safe for concurrent use.
type ticketAuth struct {
	principals map[string]TicketPrincipal
}

var _ Authenticator = (*ticketAuth)(nil)

// Ticket returns the "ticket" authenticator over principals keyed by authid.
// It sends a CHALLENGE with method "ticket" and empty extra, and expects the
// principal's ticket as AUTHENTICATE.Signature (compared in constant time).
// principals is copied.
func Ticket(principals map[string]TicketPrincipal) Authenticator {
	m := make(map[string]TicketPrincipal, len(principals))
	for id, p := range principals {
		m[id] = p
	}
	return &ticketAuth{principals: m}
}

func (*ticketAuth) Method() string { return MethodTicket }

// Start challenges the client for its ticket. An authid that names no
// principal is challenged too (a decoy: its ticket never matches), so that
// it is refused exactly as a wrong ticket is.
func (t *ticketAuth) Start(req *Request) (*Identity, Challenge, error) {
	if req.AuthID == "" {
		return nil, nil, noAuthID(MethodTicket)
	}
	return nil, &ticketChallenge{authid: req.AuthID, principal: t.principals[req.AuthID]}, nil
}

// ticketChallenge waits for one principal's ticket; a zero principal is
// a decoy.
type ticketChallenge struct {
	once
	authid    string
	principal TicketPrincipal
}

var _ Challenge = (*ticketChallenge)(nil)

func (c *ticketChallenge) Message() *wamp.Challenge {
	return &wamp.Challenge{AuthMethod: MethodTicket, Extra: wamp.Dict{}}
}

// Verify compares the ticket in a with the principal's. The comparison
// runs for a decoy too, so that it takes as long.
func (c *ticketChallenge) Verify(a *wamp.Authenticate) (*Identity, error) {
	if !c.take() {
		return nil, denied(MethodTicket, "challenge already answered")
	}
	match := equalSecret(a.Signature, c.principal.Ticket)
	if !match || c.principal.Ticket == "" {
		return nil, denied(MethodTicket, "invalid ticket")
	}
	return &Identity{
		AuthID:       c.authid,
		AuthRole:     c.principal.Role,
		AuthMethod:   MethodTicket,
		AuthProvider: ProviderStatic,
	}, nil
}

// equalSecret compares two secrets in constant time, hashing them first so
// that not even their lengths leak.
func equalSecret(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
