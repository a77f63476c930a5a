package config

import (
	"fmt"
	"slices"
)

// routerRoles are a router's realms by name, and the roles any of them
// defines ("trusted" included), for the checks of its transports.
type routerRoles struct {
	realms map[string]*Realm
	roles  map[string]bool
}

// checkTransportRoles warns about authentication roles that no realm of the
// router defines: such sessions would be refused at join time. (Roles are
// per realm and transports are not, so this cannot be an error.) A
// dynamic authenticator's realm must exist, and its role on that realm.
func checkTransportRoles(d *decoder, tp string, t Transport, rr routerRoles) {
	switch t := t.(type) {
	case *WebSocketTransport:
		rr.checkAuth(d, tp+".auth", t.Auth)
	case *RawSocketTransport:
		rr.checkAuth(d, tp+".auth", t.Auth)
	case *MQTTTransport:
		rr.checkAuth(d, tp+".options.auth", t.Options.Auth)
	case *WebTransport:
		rr.checkPaths(d, tp+".paths", t.Paths)
	case *UniversalTransport:
		if t.RawSocket != nil {
			rr.checkAuth(d, tp+".rawsocket.auth", t.RawSocket.Auth)
		}
		for _, k := range sortedKeysOf(t.WebSocket) {
			rr.checkAuth(d, childPath(tp+".websocket", k)+".auth", t.WebSocket[k].Auth)
		}
		if t.Web != nil {
			rr.checkPaths(d, tp+".web.paths", t.Web.Paths)
		}
	}
}

func (rr routerRoles) checkPaths(d *decoder, pp string, ps Paths) {
	for _, k := range sortedKeysOf(ps) {
		switch s := ps[k].(type) {
		case *WebSocketService:
			rr.checkAuth(d, childPath(pp, k)+".auth", s.Auth)
		case *PathTree:
			rr.checkPaths(d, childPath(pp, k)+".paths", s.Paths)
		}
	}
}

// checkAuth checks the roles of every method of a.
func (rr routerRoles) checkAuth(d *decoder, ap string, a Auth) {
	if a.Anonymous != nil {
		rr.warn(d, ap+".anonymous.role", a.Anonymous.Role)
		rr.checkDynamic(d, ap+".anonymous", a.Anonymous.Dynamic)
	}
	if a.Ticket != nil {
		for _, id := range sortedKeysOf(a.Ticket.Principals) {
			rr.warn(d, childPath(ap+".ticket.principals", id)+".role", a.Ticket.Principals[id].Role)
		}
		rr.checkDynamic(d, ap+".ticket", a.Ticket.Dynamic)
		rr.checkFunction(d, ap+".ticket", a.Ticket.Function)
	}
	if a.WAMPCRA != nil {
		for _, id := range sortedKeysOf(a.WAMPCRA.Users) {
			rr.warn(d, childPath(ap+".wampcra.users", id)+".role", a.WAMPCRA.Users[id].Role)
		}
		rr.checkDynamic(d, ap+".wampcra", a.WAMPCRA.Dynamic)
		rr.checkFunction(d, ap+".wampcra", a.WAMPCRA.Function)
	}
	if a.Cryptosign != nil {
		for _, id := range sortedKeysOf(a.Cryptosign.Principals) {
			rr.checkCryptosignPrincipal(d, childPath(ap+".cryptosign.principals", id), a.Cryptosign.Principals[id])
		}
		rr.checkDynamic(d, ap+".cryptosign", a.Cryptosign.Dynamic)
		rr.checkFunction(d, ap+".cryptosign", a.Cryptosign.Function)
	}
	rr.checkCertAuth(d, ap, a)
}

// warn warns about a role that no realm defines.
func (rr routerRoles) warn(d *decoder, path, role string) {
	if role != "" && !rr.roles[role] {
		d.warnf(path, "role %q is not defined in any realm of this router", role)
	}
}

// checkCryptosignPrincipal warns about a static cryptosign principal (at
// pp) whose role no realm defines, or whose "realm" is not a realm of the
// router, or lacks that role: its sessions would be refused when they
// join.
func (rr routerRoles) checkCryptosignPrincipal(d *decoder, pp string, p CryptosignPrincipal) {
	if p.Realm == "" {
		rr.warn(d, pp+".role", p.Role)
		return
	}
	if realmBad, msg := rr.realmRoleProblem(p.Realm, p.Role); msg != "" {
		d.warnf(pp+pick(realmBad, ".realm", ".role"), "%s", msg)
	}
}

// checkFunction checks a function authenticator (nil: none): its
// "default-role" as the other roles.
func (rr routerRoles) checkFunction(d *decoder, mp string, fn *FunctionAuth) {
	if fn != nil {
		rr.warn(d, mp+".default-role", fn.DefaultRole)
	}
}

// checkDynamic checks a dynamic authenticator (nil: none): its
// "authenticator-realm" must be a realm of the router, and its
// "authenticator-role" a role of that realm (of some realm when the realm
// is the client's, a warning then as for the other roles); "trusted"
// always exists. Its "default-role" is checked as the other roles.
func (rr routerRoles) checkDynamic(d *decoder, mp string, dyn *DynamicAuth) {
	if dyn == nil {
		return
	}
	rr.warn(d, mp+".default-role", dyn.DefaultRole)
	if dyn.Realm == "" {
		rr.warn(d, mp+".authenticator-role", dyn.Role)
		return
	}
	if realmBad, msg := rr.realmRoleProblem(dyn.Realm, dyn.Role); msg != "" {
		d.errorf(mp+pick(realmBad, ".authenticator-realm", ".authenticator-role"), "%s", msg)
	}
}

// realmRoleProblem says what is wrong with a role ("" for none) in a
// realm named by its name: the realm is not one of the router's
// (realmBad), or it lacks the role ("trusted" always exists); "" when
// nothing is.
func (rr routerRoles) realmRoleProblem(realm, role string) (realmBad bool, msg string) {
	r := rr.realms[realm]
	switch {
	case r == nil:
		return true, fmt.Sprintf("realm %q is not defined in this router", realm)
	case role != "" && role != "trusted" && !r.hasRole(role):
		return false, fmt.Sprintf("role %q is not defined in realm %q", role, realm)
	}
	return false, ""
}

// pick returns a when cond holds, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// hasRole reports whether the realm defines role.
func (r *Realm) hasRole(role string) bool {
	return slices.ContainsFunc(r.Roles, func(x *Role) bool { return x.Name == role })
}
