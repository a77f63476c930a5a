package node

import (
	"encoding/hex"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// authenticators translates a transport's "auth" (at path) into the
// authenticators of its router.Gate, in a fixed order; dynamic methods ask
// through k. None (a hand-built Auth{}) means the gate's default:
// anonymous with role "anonymous".
func authenticators(path string, a config.Auth, k askers) []auth.Authenticator {
	var out []auth.Authenticator
	if m := a.Anonymous; m != nil {
		dynamic := func(o auth.DynamicOptions) auth.Authenticator { o.AuthID = m.AuthID; return auth.DynamicAnonymous(o) }
		out = append(out, k.either(path+".anonymous", m.Dynamic, nil, dynamic, func() auth.Authenticator {
			return auth.NewAnonymous(auth.AnonymousOptions{Role: m.Role, AuthID: m.AuthID, CookieAuthID: a.Default})
		}))
	}
	if m := a.Ticket; m != nil {
		out = append(out, k.either(path+".ticket", m.Dynamic, m.Function, auth.DynamicTicket, func() auth.Authenticator {
			return auth.Ticket(ticketPrincipals(m))
		}))
	}
	if m := a.WAMPCRA; m != nil {
		out = append(out, k.either(path+".wampcra", m.Dynamic, m.Function, auth.DynamicWampCRA, func() auth.Authenticator {
			return auth.WampCRA(craUsers(m))
		}))
	}
	if m := a.Cryptosign; m != nil {
		out = append(out, k.either(path+".cryptosign", m.Dynamic, m.Function, auth.DynamicCryptosign, func() auth.Authenticator {
			return auth.Cryptosign(cryptosignPrincipals(m))
		}))
	}
	if m := a.TLS; m != nil {
		out = append(out, k.either(path+".tls", m.Dynamic, nil, auth.DynamicTLS, func() auth.Authenticator {
			return auth.TLS(tlsPrincipals(m))
		}))
	}
	if m := a.Scram; m != nil {
		out = append(out, k.either(path+".scram", m.Dynamic, m.Function, auth.DynamicScram, func() auth.Authenticator {
			return auth.Scram(scramPrincipals(m))
		}))
	}
	if a.AnonymousProxy {
		out = append(out, auth.AnonymousProxy())
	}
	if m := a.CryptosignProxy; m != nil {
		out = append(out, auth.CryptosignProxy(k.either(path+".cryptosign-proxy", m.Dynamic, m.Function, auth.DynamicCryptosign,
			func() auth.Authenticator { return auth.Cryptosign(cryptosignPrincipals(m)) })))
	}
	return out
}

// askers are what a router's dynamic methods ask: the sessions that call
// dynamic authenticators, and the function authenticators.
type askers struct {
	dc *dynamicCalls
	fa *functionAuths
}

// either is the authenticator of one method at path: made by dynamic when
// the method has "type": "dynamic" (dyn, asking through k.dc) or
// "function" (fn, asking through k.fa), else by static.
func (k askers) either(path string, dyn *config.DynamicAuth, fn *config.FunctionAuth,
	dynamic func(auth.DynamicOptions) auth.Authenticator, static func() auth.Authenticator) auth.Authenticator {
	switch {
	case dyn != nil:
		return dynamic(auth.DynamicOptions{Authenticate: k.dc.authenticateFunc(path, dyn), DefaultRole: dyn.DefaultRole, Timeout: dyn.Timeout})
	case fn != nil:
		return dynamic(auth.DynamicOptions{Authenticate: k.fa.add(path, fn), DefaultRole: fn.DefaultRole, Timeout: fn.Timeout,
			Provider: auth.ProviderFunction})
	}
	return static()
}

func ticketPrincipals(t *config.TicketAuth) map[string]auth.TicketPrincipal {
	m := make(map[string]auth.TicketPrincipal, len(t.Principals))
	for id, p := range t.Principals {
		m[id] = auth.TicketPrincipal{Ticket: p.Ticket, Role: p.Role}
	}
	return m
}

func craUsers(c *config.WAMPCRAAuth) map[string]auth.CRAUser {
	m := make(map[string]auth.CRAUser, len(c.Users))
	for id, u := range c.Users {
		m[id] = auth.CRAUser{Secret: u.Secret, Role: u.Role, Salt: u.Salt, Iterations: u.Iterations, KeyLen: u.KeyLen}
	}
	return m
}

func cryptosignPrincipals(c *config.CryptosignAuth) map[string]auth.CryptosignPrincipal {
	m := make(map[string]auth.CryptosignPrincipal, len(c.Principals))
	for id, p := range c.Principals {
		m[id] = auth.CryptosignPrincipal{AuthorizedKeys: p.AuthorizedKeys, Role: p.Role, Realm: wamp.URI(p.Realm)}
	}
	return m
}

// anonymousAs is the authenticator of the node's own sessions: every
// session gets role (TrustedRole when "") and a random authid, as
// Crossbar's in-router sessions have none of their own (its authid is
// null there; WELCOME here always carries a string).
func anonymousAs(role string) auth.Authenticator {
	if role == "" {
		role = TrustedRole
	}
	return auth.Anonymous(role)
}

// clientGate is the entry of a transport's outside clients (at path) on
// ru's router: the authenticators of a, and joinTimeout ("join_timeout":
// 0 means the default, negative none, in the config's options as in the
// gate's).
func clientGate(ru *routerUnit, path string, a config.Auth, joinTimeout time.Duration) attacher {
	return cookieGate(ru, path, a, joinTimeout, nil)
}

// internalGate is the entry of the node's own sessions (bridge services,
// components running in the router): anonymous as role, and exempt from
// the limits meant for outside clients.
func internalGate(r *router.Router, role string) *router.Gate {
	return r.NewGate(router.GateOptions{Auths: []auth.Authenticator{anonymousAs(role)}, Internal: true})
}

func tlsPrincipals(t *config.TLSAuth) map[string]auth.TLSPrincipal {
	m := make(map[string]auth.TLSPrincipal, len(t.Principals))
	for id, p := range t.Principals {
		m[id] = auth.TLSPrincipal{CertificateSHA1: p.CertificateSHA1, Role: p.Role}
	}
	return m
}

// scramPrincipals translates SCRAM principals; their hex was checked by
// the configuration.
func scramPrincipals(c *config.ScramAuth) map[string]auth.ScramPrincipal {
	m := make(map[string]auth.ScramPrincipal, len(c.Principals))
	for id, p := range c.Principals {
		salt, _ := hex.DecodeString(p.Salt)
		stored, _ := hex.DecodeString(p.StoredKey)
		server, _ := hex.DecodeString(p.ServerKey)
		m[id] = auth.ScramPrincipal{KDF: p.KDF, Iterations: p.Iterations, Memory: p.Memory,
			Salt: salt, StoredKey: stored, ServerKey: server, Role: p.Role}
	}
	return m
}
