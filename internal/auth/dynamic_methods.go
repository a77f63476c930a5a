package auth

import (
	"crypto/ed25519"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// The dynamic authenticators of each method ask when Crossbar asks:
// ticket after AUTHENTICATE (it has nothing to ask about before), the
// others at HELLO. Each gives the authenticator the details Crossbar
// gives (pendingDetails), and its errors are those of dynamic.refusal
// and dynamic.principal; the router then checks that the realm and the
// role exist.

var (
	_ Authenticator = (*dynamicTicket)(nil)
	_ Authenticator = (*dynamicCRA)(nil)
	_ Authenticator = (*dynamicCryptosign)(nil)
	_ Authenticator = (*dynamicAnonymous)(nil)
)

// DynamicTicket returns the "ticket" authenticator that asks o's
// authenticator. It sends the CHALLENGE at once, whatever the authid (none
// at all is allowed: the authenticator must then assign one), and asks
// when the ticket comes, with details {transport, session, authmethod,
// authextra, ticket}. The router's work is thus the same for an authid
// the authenticator knows and for one it does not.
func DynamicTicket(o DynamicOptions) Authenticator {
	return &dynamicTicket{dynamic{method: MethodTicket, o: o}}
}

type dynamicTicket struct{ dynamic }

func (t *dynamicTicket) Start(req *Request) (*Identity, Challenge, error) {
	return nil, &dynamicTicketChallenge{t: t, req: req}, nil
}

// dynamicTicketChallenge waits for the ticket to ask about.
type dynamicTicketChallenge struct {
	once
	t   *dynamicTicket
	req *Request
}

func (c *dynamicTicketChallenge) Message() *wamp.Challenge {
	return &wamp.Challenge{AuthMethod: MethodTicket, Extra: wamp.Dict{}}
}

// Verify asks the authenticator about the ticket in a.
func (c *dynamicTicketChallenge) Verify(a *wamp.Authenticate) (*Identity, error) {
	if !c.take() {
		return nil, denied(MethodTicket, "challenge already answered")
	}
	details := pendingDetails(c.req, MethodTicket, false)
	details["ticket"] = a.Signature
	p, err := c.t.ask(c.req, c.req.AuthID, details)
	if err != nil {
		return nil, err
	}
	return &p.id, nil
}

// Bounds of what a dynamic authenticator may ask the router to derive a
// WAMP-CRA key with, for each login: PBKDF2's cost grows with the
// iterations and its memory with the key length.
const (
	MaxDynamicCRAIterations = 1_000_000
	MaxCRAKeyLen            = 1024
)

// DynamicWampCRA returns the "wampcra" authenticator that asks o's
// authenticator at HELLO, with details {transport, session, authmethod,
// authextra, authid, authrole}. Besides the identity, the answer must
// give the "secret" the client signs with, and may give "salt",
// "iterations" (at most MaxDynamicCRAIterations) and "keylen" (at most
// MaxCRAKeyLen), sent in the CHALLENGE as for static users; the secret is
// accepted as the password or as the derived key, as for them (see
// WampCRA).
func DynamicWampCRA(o DynamicOptions) Authenticator {
	return &dynamicCRA{dynamic: dynamic{method: MethodWampCRA, o: o}, now: time.Now}
}

type dynamicCRA struct {
	dynamic
	now func() time.Time
}

func (w *dynamicCRA) Start(req *Request) (*Identity, Challenge, error) {
	p, err := w.ask(req, req.AuthID, pendingDetails(req, MethodWampCRA, true))
	if err != nil {
		return nil, nil, err
	}
	u, err := p.craUser()
	if err != nil {
		return nil, nil, err
	}
	ch, err := newCRAChallenge(p.id, u, req.Session, w.now())
	return nil, ch, err
}

// craUser is the WAMP-CRA user the answer describes.
func (p *principal) craUser() (*craUser, error) {
	var u CRAUser
	var err error
	if u.Secret, err = p.text("secret"); err != nil {
		return nil, err
	}
	if u.Secret == "" {
		return nil, wamp.Errorf(wamp.ErrAuthenticationFailed, "dynamic authenticator gave no \"secret\" for wampcra")
	}
	if u.Salt, err = p.text("salt"); err != nil {
		return nil, err
	}
	if u.Iterations, err = p.integer("iterations", MaxDynamicCRAIterations); err != nil {
		return nil, err
	}
	if u.KeyLen, err = p.integer("keylen", MaxCRAKeyLen); err != nil {
		return nil, err
	}
	u.Role = p.id.AuthRole
	return newCRAUser(u), nil
}

// DynamicCryptosign returns the "cryptosign" authenticator that asks o's
// authenticator at HELLO, with details {transport, session, authmethod,
// authextra, authid, authrole}. Besides the identity, the answer must give
// the client's Ed25519 public key as "pubkey" (64 hex digits); the
// client must sign the CHALLENGE with its private key (the HELLO's
// authextra.pubkey, if any, is the authenticator's to check). Channel
// binding is refused as by the static authenticator.
func DynamicCryptosign(o DynamicOptions) Authenticator {
	return &dynamicCryptosign{dynamic{method: MethodCryptosign, o: o}}
}

type dynamicCryptosign struct{ dynamic }

func (c *dynamicCryptosign) Start(req *Request) (*Identity, Challenge, error) {
	extra, _ := req.Details[wamp.KeyAuthExtra].(wamp.Dict)
	if err := checkChannelBinding(extra, req.Peer.TLS); err != nil {
		return nil, nil, err
	}
	p, err := c.ask(req, req.AuthID, pendingDetails(req, MethodCryptosign, true))
	if err != nil {
		return nil, nil, err
	}
	s, err := p.text("pubkey")
	if err != nil {
		return nil, nil, err
	}
	k, err := ParsePublicKey(s)
	if err != nil {
		return nil, nil, wamp.Errorf(wamp.ErrAuthenticationFailed, "dynamic authenticator gave no valid \"pubkey\" for cryptosign: %v", err)
	}
	return nil, &csChallenge{id: p.id, keys: []ed25519.PublicKey{k}, challenge: randomBytes(32)}, nil
}

// DynamicAnonymous returns the "anonymous" authenticator that asks o's
// authenticator at HELLO about o.AuthID (or a random authid, never the
// client's), with details {transport, session, authmethod, authextra}.
func DynamicAnonymous(o DynamicOptions) Authenticator {
	return &dynamicAnonymous{dynamic{method: MethodAnonymous, o: o}}
}

type dynamicAnonymous struct{ dynamic }

func (a *dynamicAnonymous) Start(req *Request) (*Identity, Challenge, error) {
	authid := a.o.AuthID
	if authid == "" {
		authid = serialNumber()
	}
	p, err := a.ask(req, authid, pendingDetails(req, MethodAnonymous, false))
	if err != nil {
		return nil, nil, err
	}
	return &p.id, nil, nil
}
