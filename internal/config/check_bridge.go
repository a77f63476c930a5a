package config

import (
	"slices"
	"strconv"
)

// checkBridgePaths reports each caller, publisher, webhook, event
// stream, api and wap of a web transport's paths whose realm the router does not
// define, or whose role that realm does not define (its session would be
// refused at join), and warns about a body limit over the transport's
// body buffer (bound, < 0: none).
func checkBridgePaths(d *decoder, pp string, ps Paths, realms map[string]*Realm, bound int64) {
	checkBridgeTree(d, pp, ps, ps, realms, bound)
}

// checkBridgeTree is checkBridgePaths for the paths ps of a tree whose
// top paths are top (where options.auth.basic.principals_from looks).
func checkBridgeTree(d *decoder, pp string, top, ps Paths, realms map[string]*Realm, bound int64) {
	for _, k := range sortedKeysOf(ps) {
		sp := childPath(pp, k)
		var bs *BridgeService
		var a *Access
		switch s := ps[k].(type) {
		case *CallerService:
			bs, a = &s.BridgeService, &s.Access
		case *PublisherService:
			bs, a = &s.BridgeService, &s.Access
		case *WebhookService:
			bs = &s.BridgeService
		case *EventStreamService:
			bs, a = &s.BridgeService, &Access{Auth: s.Auth}
		case *APIService:
			bs, a = &s.BridgeService, &s.Access
		case *WAPService:
			if s.Realm != "" {
				s.checkRefs(d, sp, realms)
			}
		case *PathTree:
			checkBridgeTree(d, sp+".paths", top, s.Paths, realms, bound)
		}
		if bs != nil {
			bs.checkRefs(d, sp, realms)
			bs.checkBodyBound(d, sp, bound)
		}
		if a != nil && a.Auth != nil && realms[bs.Realm] != nil {
			a.Auth.check(d, sp+".options.auth", realms[bs.Realm], top)
		}
	}
}

// check reports the roles of a that its realm does not define, and a
// principals_from that names no WebSocket path with static ticket or
// wampcra principals.
func (a *HTTPAuth) check(d *decoder, ap string, r *Realm, top Paths) {
	role := func(p, name string) {
		if name != "" && name != "trusted" && !slices.ContainsFunc(r.Roles, func(x *Role) bool { return x.Name == name }) {
			d.errorf(p, "role %q is not defined in realm %q", name, r.Name)
		}
	}
	for _, k := range sortedKeysOf(a.APIKeys) {
		role(childPath(childPath(ap, "api_keys"), k)+".authrole", a.APIKeys[k].AuthRole)
	}
	if j := a.JWT; j != nil {
		role(ap+".bearer.jwt.authrole", j.AuthRole)
		for i, name := range j.AllowedRoles {
			role(ap+".bearer.jwt.allowed_roles["+strconv.Itoa(i)+"]", name)
		}
	}
	if a.BasicFrom == "" {
		return
	}
	ws, ok := top[a.BasicFrom].(*WebSocketService)
	switch {
	case !ok:
		d.errorf(ap+".basic.principals_from", "%q is not a websocket path of this transport", a.BasicFrom)
	case BasicPrincipals(&ws.Auth) == nil:
		d.errorf(ap+".basic.principals_from", "websocket path %q has no static ticket or wampcra principals", a.BasicFrom)
	}
}

// BasicPrincipal is who HTTP Basic admits: a ticket principal's ticket
// or a WAMP-CRA user's secret as the password.
type BasicPrincipal struct {
	Password, Role string
}

// BasicPrincipals are the static ticket principals and wampcra users of
// a, by authid (a ticket principal wins over a wampcra user of the same
// authid); nil when it has none.
func BasicPrincipals(a *Auth) map[string]BasicPrincipal {
	var out map[string]BasicPrincipal
	add := func(id, pw, role string) {
		if out == nil {
			out = map[string]BasicPrincipal{}
		}
		if _, dup := out[id]; !dup {
			out[id] = BasicPrincipal{pw, role}
		}
	}
	if a.Ticket != nil {
		for id, p := range a.Ticket.Principals {
			add(id, p.Ticket, p.Role)
		}
	}
	if a.WAMPCRA != nil {
		for id, u := range a.WAMPCRA.Users {
			add(id, u.Secret, u.Role)
		}
	}
	return out
}

// checkBodyBound warns about a body limit above the transport's body
// buffer: larger bodies could never be buffered, and get 413. (An
// unlimited post_body_limit already has its warning.)
func (s *BridgeService) checkBodyBound(d *decoder, sp string, bound int64) {
	if bound < 0 || s.PostBodyLimit <= bound {
		return
	}
	d.warnf(sp+".options.post_body_limit", "%d exceeds the web transport's options.body_buffer_limit %d: larger bodies get 413",
		s.PostBodyLimit, bound)
}

func (s *BridgeService) checkRefs(d *decoder, sp string, realms map[string]*Realm) {
	checkRealmRole(d, realms, s.Realm, s.Role, sp+".realm", sp+".role")
}

// checkRealmRole reports, at realmPath, a realm that realms lacks, or, at
// rolePath, a role other than "trusted" that the realm lacks: the session
// of a service that names them would be refused at join.
func checkRealmRole(d *decoder, realms map[string]*Realm, realm, role, realmPath, rolePath string) {
	r := realms[realm]
	if r == nil {
		d.errorf(realmPath, "realm %q is not defined in this router", realm)
		return
	}
	if role != "trusted" && !r.hasRole(role) {
		d.errorf(rolePath, "role %q is not defined in realm %q", role, realm)
	}
}
