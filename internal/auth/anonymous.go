package auth

// anonymous admits every session under one role.
type anonymous struct {
	role string
}

var _ Authenticator = (*anonymous)(nil)

// Anonymous returns the "anonymous" authenticator: every session is
// admitted under role ("anonymous" when role is ""), with authprovider
// "static". As in Crossbar, the session keeps the authid it asked for in
// HELLO, or gets a random one ("XXXX-XXXX-XXXX-XXXX-XXXX-XXXX"); unlike
// Crossbar, the authrole a client asks for is ignored, so that an
// anonymous client cannot choose a privileged role.
func Anonymous(role string) Authenticator {
	if role == "" {
		role = "anonymous"
	}
	return &anonymous{role: role}
}

func (*anonymous) Method() string { return MethodAnonymous }

// Start admits req at once.
func (a *anonymous) Start(req *Request) (*Identity, Challenge, error) {
	authid := req.AuthID
	if authid == "" {
		authid = serialNumber()
	}
	return &Identity{
		AuthID:       authid,
		AuthRole:     a.role,
		AuthMethod:   MethodAnonymous,
		AuthProvider: ProviderStatic,
	}, nil, nil
}
