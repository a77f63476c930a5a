package node

import (
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// clientGateUnit is the entry of one transport's (or WebSocket path
// service's) outside clients, with the "auth" it was built from; a reload
// gives it new authenticators. Changed by Reload only.
type clientGateUnit struct {
	path   string // the transport's or path service's JSON path
	auth   config.Auth
	cookie auth.Authenticator // the cookie authenticator, first; nil for none
	gate   reloadableGate
}

// reloadableGate is a router's gate or a proxy's entry: what a reload
// changes of one.
type reloadableGate interface {
	SetAuths([]auth.Authenticator)
	CloseSessions(stale func(auth.Identity) bool, reason wamp.URI) int
}

var (
	_ reloadableGate = (*router.Gate)(nil)
	_ reloadableGate = (*proxy.Entry)(nil)
)

// gateAt returns the gate built for path, or nil.
func (r *routerUnit) gateAt(path string) *clientGateUnit {
	for _, g := range r.gates {
		if g.path == path {
			return g
		}
	}
	return nil
}

// gates gives each gate of ru (a router's, or a proxy's entry) whose "auth" changed the authenticators of
// the next config, and ends with GOODBYE junction.close.config_changed
// the sessions whose principal was removed or changed. A gate with
// dynamic, function or cookie authentication before or after needs a
// restart (their calling sessions and stores are made at start).
func (r *reloader) gates(ru, next *routerUnit) {
	for _, g := range ru.gates {
		ng := next.gateAt(g.path)
		if ng == nil || same(g.auth, ng.auth) {
			continue // a transport gone or changed is reported by transports
		}
		path := g.path + ".auth"
		if askingAuth(g.auth) || askingAuth(ng.auth) || g.auth.Cookie != ng.auth.Cookie {
			r.restart(path, "dynamic, function or cookie authentication changed")
			continue
		}
		auths := authenticators(path, ng.auth, askers{dc: ru.dyn, fa: ru.fn})
		if g.cookie != nil {
			auths = append([]auth.Authenticator{g.cookie}, auths...)
		}
		g.gate.SetAuths(auths)
		old := g.auth
		closed := g.gate.CloseSessions(func(id auth.Identity) bool { return stalePrincipal(old, ng.auth, id) }, wamp.ErrConfigChanged)
		g.auth = ng.auth
		r.applied(path, "authentication replaced, %d sessions of removed or changed principals closed", closed)
	}
}

// askingAuth reports whether a has a method that asks a procedure or a
// Python function ("type": "dynamic" or "function").
func askingAuth(a config.Auth) bool {
	return hasDynamic(a) || a.TLS != nil && a.TLS.Dynamic != nil ||
		a.Scram != nil && (a.Scram.Dynamic != nil || a.Scram.Function != nil)
}

// stalePrincipal reports whether the session of id, authenticated under
// old, is no longer the same principal under cfg: its method is gone, or
// its principal was removed or changed (role, ticket, secret, keys,
// realm). A session joined by cookie is never stale here (the cookie
// store remembers who it was).
func stalePrincipal(old, cfg config.Auth, id auth.Identity) bool {
	was, _ := principal(old, id.AuthMethod, id.AuthID)
	now, ok := principal(cfg, id.AuthMethod, id.AuthID)
	return !ok || !same(was, now)
}

// principal returns the entry of a that authenticates authid by method,
// and whether there is one. The cookie method is always there.
func principal(a config.Auth, method, authid string) (any, bool) {
	switch method {
	case auth.MethodAnonymous:
		return a.Anonymous, a.Anonymous != nil
	case auth.MethodTicket:
		return principalOf(a.Ticket, func(m *config.TicketAuth) map[string]config.TicketPrincipal { return m.Principals }, authid)
	case auth.MethodWampCRA:
		return principalOf(a.WAMPCRA, func(m *config.WAMPCRAAuth) map[string]config.WAMPCRAUser { return m.Users }, authid)
	case auth.MethodCryptosign:
		return principalOf(a.Cryptosign, func(m *config.CryptosignAuth) map[string]config.CryptosignPrincipal { return m.Principals }, authid)
	case auth.MethodTLS:
		return principalOf(a.TLS, func(m *config.TLSAuth) map[string]config.TLSPrincipal { return m.Principals }, authid)
	case auth.MethodScram:
		return principalOf(a.Scram, func(m *config.ScramAuth) map[string]config.ScramPrincipal { return m.Principals }, authid)
	}
	return nil, true
}

// principalOf returns the principal authid of method m (nil: the method is
// not configured).
func principalOf[M any, P any](m *M, principals func(*M) map[string]P, authid string) (any, bool) {
	if m == nil {
		return nil, false
	}
	p, ok := principals(m)[authid]
	return p, ok
}
