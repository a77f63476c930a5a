package node

import (
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
)

// authenticators translates a transport's "auth" into the authenticators
// of its router.Gate, in a fixed order. None (a hand-built Auth{}) means
// the gate's default: anonymous with role "anonymous".
func authenticators(a config.Auth) []auth.Authenticator {
	var out []auth.Authenticator
	if a.Anonymous != nil {
		out = append(out, auth.NewAnonymous(auth.AnonymousOptions{Role: a.Anonymous.Role, AuthID: a.Anonymous.AuthID}))
	}
	if a.Ticket != nil {
		out = append(out, auth.Ticket(ticketPrincipals(a.Ticket)))
	}
	if a.WAMPCRA != nil {
		out = append(out, auth.WampCRA(craUsers(a.WAMPCRA)))
	}
	if a.Cryptosign != nil {
		out = append(out, auth.Cryptosign(cryptosignPrincipals(a.Cryptosign)))
	}
	return out
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

// clientGate is the entry of a transport's outside clients: the
// authenticators of a, and joinTimeout ("join_timeout": 0 means the
// default, negative none, in the config's options as in the gate's).
func clientGate(r *router.Router, a config.Auth, joinTimeout time.Duration) *router.Gate {
	return r.NewGate(router.GateOptions{Auths: authenticators(a), JoinTimeout: joinTimeout})
}

// internalGate is the entry of the node's own sessions (bridge services,
// components running in the router): anonymous as role, and exempt from
// the limits meant for outside clients.
func internalGate(r *router.Router, role string) *router.Gate {
	return r.NewGate(router.GateOptions{Auths: []auth.Authenticator{anonymousAs(role)}, Internal: true})
}
