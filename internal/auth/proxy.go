package auth

import (
	"github.com/junction-wamp/junction/wamp"
)

// The methods a proxy worker logs its clients in to a backend router
// with (Crossbar's anonymous-proxy and cryptosign-proxy): the proxy has
// authenticated the client itself, and names the identity in
// HELLO.Details.authextra.
const (
	MethodAnonymousProxy  = "anonymous-proxy"
	MethodCryptosignProxy = "cryptosign-proxy"
)

// The authextra keys a proxy names its client's identity with.
const (
	ProxyRealm        = "proxy_realm"
	ProxyAuthID       = "proxy_authid"
	ProxyAuthRole     = "proxy_authrole"
	ProxyAuthMethod   = "proxy_authmethod"
	ProxyAuthProvider = "proxy_authprovider"
	ProxyAuthExtra    = "proxy_authextra"
)

// proxied reads the identity a proxy names in req's authextra:
// proxy_realm, proxy_authid and proxy_authrole (non-empty strings,
// required) and proxy_authextra (an object, optional). method names the
// refusal.
func proxied(req *Request, method string) (*Identity, error) {
	extra, _ := req.Details[wamp.KeyAuthExtra].(wamp.Dict)
	if extra == nil {
		return nil, denied(method, "missing authextra naming the proxied identity")
	}
	var got [3]string
	for i, k := range []string{ProxyRealm, ProxyAuthID, ProxyAuthRole} {
		s, _ := extra[k].(string)
		if s == "" {
			return nil, denied(method, "authextra.%s must be a non-empty string", k)
		}
		got[i] = s
	}
	id := &Identity{Realm: wamp.URI(got[0]), AuthID: got[1], AuthRole: got[2], AuthMethod: method}
	if v := extra[ProxyAuthExtra]; v != nil {
		d, ok := v.(wamp.Dict)
		if !ok {
			return nil, denied(method, "authextra.%s must be an object", ProxyAuthExtra)
		}
		id.AuthExtra = d
	}
	return id, nil
}

// anonymousProxy admits the identity the proxy names, unchecked.
type anonymousProxy struct{}

var _ Authenticator = anonymousProxy{}

// AnonymousProxy returns the "anonymous-proxy" authenticator: the session
// joins as the realm, authid and authrole that HELLO.Details.authextra
// names (proxy_realm, proxy_authid, proxy_authrole; proxy_authextra as
// its authextra), with authprovider "static", as Crossbar's
// PendingAuthAnonymousProxy. Nothing is checked: offer it only where no
// one but the node's own proxies can connect (a Unix socket).
func AnonymousProxy() Authenticator { return anonymousProxy{} }

func (anonymousProxy) Method() string     { return MethodAnonymousProxy }
func (anonymousProxy) assignsRealm() bool { return true }

func (anonymousProxy) Start(req *Request) (*Identity, Challenge, error) {
	id, err := proxied(req, MethodAnonymousProxy)
	if err != nil {
		return nil, nil, err
	}
	id.AuthProvider = ProviderStatic
	return id, nil, nil
}

// cryptosignProxy checks the proxy's key with a cryptosign authenticator,
// then admits the identity the proxy names.
type cryptosignProxy struct {
	key Authenticator // cryptosign, static or dynamic
}

var _ Authenticator = (*cryptosignProxy)(nil)

// CryptosignProxy returns the "cryptosign-proxy" authenticator: key (a
// Cryptosign, DynamicCryptosign, or a function one) identifies the proxy
// by its public key (authextra.pubkey, the node key of the proxy's node)
// and challenges it to sign; once it has, the session joins as the
// identity authextra names (see AnonymousProxy), with key's
// authprovider. The proxy's principal must have no "realm", or the
// proxied one; its role is not used. Crossbar 21.3.1 admits the
// identity without checking the signature; this checks it.
func CryptosignProxy(key Authenticator) Authenticator { return &cryptosignProxy{key: key} }

func (*cryptosignProxy) Method() string     { return MethodCryptosignProxy }
func (*cryptosignProxy) assignsRealm() bool { return true }

func (c *cryptosignProxy) Start(req *Request) (*Identity, Challenge, error) {
	want, err := proxied(req, MethodCryptosignProxy)
	if err != nil {
		return nil, nil, err
	}
	_, ch, err := c.key.Start(req)
	if err != nil {
		return nil, nil, err
	}
	if ch == nil {
		return nil, nil, denied(MethodCryptosignProxy, "the proxy's key was not challenged")
	}
	return nil, &proxyChallenge{inner: ch, want: want}, nil
}

// proxyChallenge is the cryptosign challenge of a proxy's key; its
// answer admits the proxied identity.
type proxyChallenge struct {
	inner Challenge
	want  *Identity
}

func (c *proxyChallenge) Message() *wamp.Challenge {
	m := *c.inner.Message()
	m.AuthMethod = MethodCryptosignProxy
	return &m
}

func (c *proxyChallenge) Verify(a *wamp.Authenticate) (*Identity, error) {
	proxy, err := c.inner.Verify(a)
	if err != nil {
		return nil, err
	}
	if proxy.Realm != "" && proxy.Realm != c.want.Realm {
		return nil, denied(MethodCryptosignProxy, "the proxy's principal %q may not act on realm %q", proxy.AuthID, c.want.Realm)
	}
	id := *c.want
	id.AuthProvider = proxy.AuthProvider
	return &id, nil
}
