package proxy

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// login opens b's backend session for the client of h, authenticated as
// id: it dials, sends HELLO naming id in authextra (with the client's
// roles, so that the router sees the features the client announced),
// answers a cryptosign-proxy CHALLENGE with the node key, and returns the
// peer and its WELCOME. The backend's ABORT is returned as its error, to
// pass on to the client; a backend that cannot be reached is
// authentication_failed, as in Crossbar.
func (r *Relay) login(b *Backend, h *wamp.Hello, id *auth.Identity) (wamp.Peer, *wamp.Welcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.o.LoginTimeout)
	defer cancel()
	p, err := b.Dial(ctx)
	if err != nil {
		return nil, nil, backendError(b, "cannot connect: %v", err)
	}
	stop := context.AfterFunc(ctx, func() { p.Close() })
	w, err := r.backendHandshake(p, b, h, id)
	if !stop() || err != nil {
		p.Close()
		if err == nil {
			err = backendError(b, "no WELCOME within %v", r.o.LoginTimeout)
		}
		return nil, nil, err
	}
	return p, w, nil
}

func backendError(b *Backend, format string, a ...any) error {
	return wamp.Errorf(wamp.ErrAuthenticationFailed, "proxy backend connection %q: %s", b.Name, fmt.Sprintf(format, a...))
}

// backendHandshake sends HELLO and reads the backend's answers up to
// WELCOME.
func (r *Relay) backendHandshake(p wamp.Peer, b *Backend, h *wamp.Hello, id *auth.Identity) (*wamp.Welcome, error) {
	hello, err := backendHello(b, h, id)
	if err != nil {
		return nil, err
	}
	if err := p.Send(hello); err != nil {
		return nil, backendError(b, "cannot send HELLO: %v", err)
	}
	for {
		m, err := p.Recv()
		if err != nil {
			return nil, backendError(b, "connection lost during login: %v", err)
		}
		switch m := wamp.Unwrap(m).(type) {
		case *wamp.Welcome:
			return m, nil
		case *wamp.Abort:
			msg, _ := m.Details[wamp.KeyMessage].(string)
			return nil, wamp.Errorf(m.Reason, "%s", msg)
		case *wamp.Challenge:
			if err := answer(p, b, m); err != nil {
				return nil, err
			}
		default:
			return nil, backendError(b, "unexpected %s during login", m.Type())
		}
	}
}

// backendHello is the HELLO that logs id in through b.
func backendHello(b *Backend, h *wamp.Hello, id *auth.Identity) (*wamp.Hello, error) {
	extra := wamp.Dict{
		auth.ProxyRealm: string(id.Realm), auth.ProxyAuthID: id.AuthID, auth.ProxyAuthRole: id.AuthRole,
		auth.ProxyAuthMethod: id.AuthMethod, auth.ProxyAuthProvider: id.AuthProvider, auth.ProxyAuthExtra: id.AuthExtra,
	}
	if slices.Contains(b.Methods, auth.MethodCryptosignProxy) {
		key, err := b.Key()
		if err != nil {
			return nil, backendError(b, "no node key: %v", err)
		}
		extra["pubkey"] = hex.EncodeToString(key.Public().(ed25519.PublicKey))
	}
	methods := make([]any, len(b.Methods))
	for i, m := range b.Methods {
		methods[i] = m
	}
	d := wamp.Dict{wamp.KeyAuthMethods: methods, wamp.KeyAuthExtra: extra}
	if roles, ok := h.Details[wamp.KeyRoles]; ok {
		d[wamp.KeyRoles] = roles
	}
	return &wamp.Hello{Realm: id.Realm, Details: d}, nil
}

// answer answers the backend's CHALLENGE of the proxy's node key.
func answer(p wamp.Peer, b *Backend, c *wamp.Challenge) error {
	if c.AuthMethod != auth.MethodCryptosignProxy && c.AuthMethod != auth.MethodCryptosign || !slices.Contains(b.Methods, auth.MethodCryptosignProxy) {
		return backendError(b, "unexpected %s challenge", c.AuthMethod)
	}
	key, err := b.Key()
	if err != nil {
		return backendError(b, "no node key: %v", err)
	}
	challenge, _ := c.Extra["challenge"].(string)
	sig, err := auth.SignCryptosign(key, challenge)
	if err != nil {
		return backendError(b, "cannot sign the challenge: %v", err)
	}
	if err := p.Send(&wamp.Authenticate{Signature: sig, Extra: wamp.Dict{}}); err != nil {
		return backendError(b, "cannot send AUTHENTICATE: %v", err)
	}
	return nil
}
