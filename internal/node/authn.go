package node

import (
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
)

// authenticators translates a transport's "auth" (at path) into the
// authenticators of its router.Gate, in a fixed order; dynamic methods ask
// through dc. None (a hand-built Auth{}) means the gate's default:
// anonymous with role "anonymous".
func authenticators(path string, a config.Auth, dc *dynamicCalls) []auth.Authenticator {
	var out []auth.Authenticator
	if m := a.Anonymous; m != nil {
		out = append(out, either(dc, path+".anonymous", m.Dynamic, m.AuthID, auth.DynamicAnonymous, func() auth.Authenticator {
			return auth.NewAnonymous(auth.AnonymousOptions{Role: m.Role, AuthID: m.AuthID})
		}))
	}
	if m := a.Ticket; m != nil {
		out = append(out, either(dc, path+".ticket", m.Dynamic, "", auth.DynamicTicket, func() auth.Authenticator {
			return auth.Ticket(ticketPrincipals(m))
		}))
	}
	if m := a.WAMPCRA; m != nil {
		out = append(out, either(dc, path+".wampcra", m.Dynamic, "", auth.DynamicWampCRA, func() auth.Authenticator {
			return auth.WampCRA(craUsers(m))
		}))
	}
	if m := a.Cryptosign; m != nil {
		out = append(out, either(dc, path+".cryptosign", m.Dynamic, "", auth.DynamicCryptosign, func() auth.Authenticator {
			return auth.Cryptosign(cryptosignPrincipals(m))
		}))
	}
	return out
}

// either is the authenticator of one method at path: made by dynamic,
// asking through dc, when the method has "type": "dynamic" (dyn; authid
// is anonymous's), else by static.
func either(dc *dynamicCalls, path string, dyn *config.DynamicAuth, authid string,
	dynamic func(auth.DynamicOptions) auth.Authenticator, static func() auth.Authenticator) auth.Authenticator {
	if dyn == nil {
		return static()
	}
	return dynamic(auth.DynamicOptions{
		Authenticate: dc.authenticateFunc(path, dyn),
		DefaultRole:  dyn.DefaultRole,
		Timeout:      dyn.Timeout,
		AuthID:       authid,
	})
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
		m[id] = auth.CryptosignPrincipal{AuthorizedKeys: p.AuthorizedKeys, Role: p.Role}
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
func clientGate(ru *routerUnit, path string, a config.Auth, joinTimeout time.Duration) *router.Gate {
	return ru.router.NewGate(router.GateOptions{Auths: authenticators(path+".auth", a, ru.dyn), JoinTimeout: joinTimeout})
}

// internalGate is the entry of the node's own sessions (bridge services,
// components running in the router): anonymous as role, and exempt from
// the limits meant for outside clients.
func internalGate(r *router.Router, role string) *router.Gate {
	return r.NewGate(router.GateOptions{Auths: []auth.Authenticator{anonymousAs(role)}, Internal: true})
}
