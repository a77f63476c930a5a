package node

import (
	"fmt"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// realms compares the realms of a router worker at path by name, and adds,
// removes and updates them on ru's router.
func (r *reloader) realms(path string, ru *routerUnit, old, realms []*config.Realm) {
	before, after := realmIndex(old), realmIndex(realms)
	live := map[string]bool{}
	for _, name := range ru.realmNames() {
		live[name] = true
	}
	for i, rm := range realms {
		p := fmt.Sprintf("%s.realms[%d]", path, i)
		if j, ok := before[rm.Name]; ok {
			r.changeRealm(p, ru, old[j], rm)
		} else if r.addRealm(p, ru, rm) {
			live[rm.Name] = true
		}
	}
	for i, rm := range old {
		if _, ok := after[rm.Name]; !ok && r.removeRealm(fmt.Sprintf("%s.realms[%d]", path, i), ru, rm) {
			delete(live, rm.Name)
		}
	}
	ru.setRealmNames(liveNames(old, realms, live))
}

// realmIndex maps the realms' names to their indexes.
func realmIndex(realms []*config.Realm) map[string]int {
	m := make(map[string]int, len(realms))
	for i, rm := range realms {
		m[rm.Name] = i
	}
	return m
}

// liveNames lists the realms that run: those of the new config in its
// order, then those of the old one still running (a removal that needs a
// restart).
func liveNames(old, realms []*config.Realm, live map[string]bool) []string {
	var names []string
	seen := map[string]bool{}
	for _, list := range [][]*config.Realm{realms, old} {
		for _, rm := range list {
			if live[rm.Name] && !seen[rm.Name] {
				seen[rm.Name] = true
				names = append(names, rm.Name)
			}
		}
	}
	return names
}

// realmNamesOf lists the realms' names, in config order.
func realmNamesOf(realms []*config.Realm) []string {
	names := make([]string, 0, len(realms))
	for _, rm := range realms {
		if rm != nil {
			names = append(names, rm.Name)
		}
	}
	return names
}

// asks reports whether rm, on ru, needs what only a start makes: router
// links, a role's dynamic authorizer, or the calling session of a dynamic
// authenticator or authorizer on it.
func (ru *routerUnit) asks(rm *config.Realm) bool {
	if len(rm.RLinks) > 0 || dynamicRoles(rm) {
		return true
	}
	for k := range ru.dyn.sessions {
		if k.realm == wamp.URI(rm.Name) {
			return true
		}
	}
	return false
}

// dynamicRoles reports whether a role of rm has a dynamic authorizer.
func dynamicRoles(rm *config.Realm) bool {
	for _, role := range rm.Roles {
		if role.Authorizer != "" {
			return true
		}
	}
	return false
}

// addRealm adds rm to ru's router; false when that needs a restart.
func (r *reloader) addRealm(path string, ru *routerUnit, rm *config.Realm) bool {
	if ru.asks(rm) {
		r.restart(path, "realm %q added: with router links or a dynamic authorizer, it needs a restart", rm.Name)
		return false
	}
	if err := ru.router.AddRealm(realmOption(rm)); err != nil {
		r.restart(path, "realm %q not added: %v", rm.Name, err)
		return false
	}
	r.applied(path, "realm %q added", rm.Name)
	return true
}

// removeRealm removes rm from ru's router, its sessions closed with
// GOODBYE wamp.close.close_realm; false when that needs a restart.
func (r *reloader) removeRealm(path string, ru *routerUnit, rm *config.Realm) bool {
	if ru.asks(rm) {
		r.restart(path, "realm %q removed: with router links or dynamic authenticators or authorizers, it needs a restart", rm.Name)
		return false
	}
	n := ru.router.Stats().Realms[wamp.URI(rm.Name)].Sessions
	ru.router.RemoveRealm(wamp.URI(rm.Name))
	r.applied(path, "realm %q removed, its %d sessions closed", rm.Name, n)
	return true
}

// changeRealm compares two versions of a realm: new roles and permissions
// apply live, other options need a restart.
func (r *reloader) changeRealm(path string, ru *routerUnit, old, rm *config.Realm) {
	a, b := *old, *rm
	a.Roles, b.Roles = nil, nil
	a.Options.Limits, b.Options.Limits = config.RealmLimits{}, config.RealmLimits{}
	if !same(a, b) {
		r.restart(path, "options of realm %q changed", rm.Name)
	}
	r.changeLimits(path, ru, old, rm)
	if same(old.Roles, rm.Roles) {
		return
	}
	if dynamicRoles(old) || dynamicRoles(rm) {
		r.restart(path+".roles", "roles of realm %q changed: with a dynamic authorizer, they need a restart", rm.Name)
		return
	}
	o := realmOption(rm)
	res, err := ru.router.UpdateRealm(o.Name, router.RealmUpdate{Roles: o.Roles, Authorizer: o.Authorizer})
	if err != nil {
		r.restart(path+".roles", "roles of realm %q not changed: %v", rm.Name, err)
		return
	}
	r.applied(path+".roles", "roles and permissions of realm %q replaced: %d sessions closed, %d registrations and %d subscriptions revoked",
		rm.Name, res.Closed, res.Unregistered, res.Unsubscribed)
}

// changeLimits applies a change of a realm's "options.limits" live: the
// requests admitted from then on are held to the new limits.
func (r *reloader) changeLimits(path string, ru *routerUnit, old, rm *config.Realm) {
	if old.Options.Limits == rm.Options.Limits {
		return
	}
	path += ".options.limits"
	if ru.router == nil {
		r.restart(path, "limits of realm %q changed", rm.Name)
		return
	}
	if err := ru.router.SetRealmLimits(wamp.URI(rm.Name), routerLimits(rm.Options.Limits)); err != nil {
		r.restart(path, "limits of realm %q not changed: %v", rm.Name, err)
		return
	}
	r.applied(path, "limits of realm %q replaced", rm.Name)
}
