package auth

// anonymous admits every session under one role.
type anonymous struct {
	o AnonymousOptions
}

var _ Authenticator = (*anonymous)(nil)

// AnonymousOptions configures the anonymous authenticator. The zero value
// gives role "anonymous" and a random authid per session.
type AnonymousOptions struct {
	// Role is the authrole given ("": "anonymous").
	Role string
	// AuthID is the authid every session gets ("": a random one per
	// session, such as "K3QZ-7MFA-2XWB-P4LD-NA6E-YT2R").
	AuthID string
	// CookieAuthID gives a session with a tracking cookie
	// (wamp.PeerInfo.CBTID) the cookie's value as authid, as Crossbar does
	// on a transport without "auth"; AuthID or a random one otherwise.
	CookieAuthID bool
}

// Anonymous returns the "anonymous" authenticator with role; see
// NewAnonymous.
func Anonymous(role string) Authenticator {
	return NewAnonymous(AnonymousOptions{Role: role})
}

// NewAnonymous returns the "anonymous" authenticator: every session is
// admitted under o.Role, with authprovider "static". As in Crossbar, the
// authid is o.AuthID or a random one, never the one the client asked for
// in HELLO: an anonymous client cannot pass for a principal of another
// method (receive its eligible_authid events, be shown as its caller).
// Unlike Crossbar, the authrole a client asks for is ignored too, so that
// it cannot choose a privileged role.
func NewAnonymous(o AnonymousOptions) Authenticator {
	if o.Role == "" {
		o.Role = "anonymous"
	}
	return &anonymous{o: o}
}

func (*anonymous) Method() string { return MethodAnonymous }

// Start admits req at once.
func (a *anonymous) Start(req *Request) (*Identity, Challenge, error) {
	authid := a.o.AuthID
	if a.o.CookieAuthID && req.Peer.CBTID != "" {
		authid = req.Peer.CBTID
	}
	if authid == "" {
		authid = serialNumber()
	}
	return &Identity{
		AuthID:       authid,
		AuthRole:     a.o.Role,
		AuthMethod:   MethodAnonymous,
		AuthProvider: ProviderStatic,
	}, nil, nil
}
