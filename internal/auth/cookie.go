package auth

// MethodCookie is the authmethod a client offers to be admitted by its
// tracking cookie.
const MethodCookie = "cookie"

// ProviderCookie is the authprovider of the sessions admitted by cookie,
// as Crossbar names it.
const ProviderCookie = "cookie"

// cookieAuth admits a client whose tracking cookie an earlier session
// authenticated. Safe for concurrent use (the store is).
type cookieAuth struct{ store *CookieStore }

var _ Authenticator = (*cookieAuth)(nil)

// Cookie returns the "cookie" authenticator over store: a client that
// offers "cookie" and comes with a cookie of store that an earlier
// session authenticated (by another method) is that session's principal,
// without a challenge, as in Crossbar: same authid, authrole, authmethod
// and authextra, authprovider "cookie", and the realm it joined. A client
// whose cookie authenticated nobody is not refused: the router tries the
// next method it offers (see Applies).
func Cookie(store *CookieStore) Authenticator { return &cookieAuth{store: store} }

func (*cookieAuth) Method() string { return MethodCookie }

// applies: only a client whose cookie authenticated someone.
func (c *cookieAuth) applies(req *Request) bool {
	_, ok := c.store.lookup(req.Peer.CBTID)
	return ok
}

// assignsRealm: the session joins the realm its cookie's session joined.
func (*cookieAuth) assignsRealm() bool { return true }

func (c *cookieAuth) Start(req *Request) (*Identity, Challenge, error) {
	id, ok := c.store.lookup(req.Peer.CBTID)
	if !ok {
		return nil, nil, denied(MethodCookie, "no authenticated cookie")
	}
	id.AuthProvider = ProviderCookie
	return &id, nil, nil
}

// Applies reports whether a can authenticate req: false for a method
// that does not apply to this client (cookie without an authenticated
// cookie), which the router then passes over for the client's next one.
func Applies(a Authenticator, req *Request) bool {
	ap, ok := a.(interface{ applies(*Request) bool })
	return !ok || ap.applies(req)
}
