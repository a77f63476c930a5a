package node

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/proxy"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

// TrustedRole is the authrole of the components running inside a router
// (Crossbar's default for router components): it may do everything on
// every realm of that router. The config package reserves the name, so no
// client can be given it.
const TrustedRole = "trusted"

// routerUnit is one router worker's router, or what a proxy worker's
// transports need of theirs (router nil, relay set).
type routerUnit struct {
	path   string // "workers[0]"
	router *router.Router
	relay  *proxy.Relay   // a proxy worker's
	dyn    *dynamicCalls  // its dynamic authenticators' and authorizers' sessions
	fn     *functionAuths // its function authenticators
	// opts are its worker's options: the interpreter, search path and
	// environment of its Python web paths' processes.
	opts config.WorkerOptions
	// cookies are its WebSocket transports' cookie stores, closed with it.
	cookies []cookieUnit
	// gates are the entries of its transports' outside clients, in build
	// order, which a reload gives new authenticators (reload_auth.go).
	gates []*clientGateUnit

	mu    sync.Mutex // guards names
	names []string   // its realms, in config order; a reload changes them
}

// attacher is what a transport attaches its sessions to: a router's gate
// or a proxy's entry.
type attacher interface{ Attach(wamp.Peer) }

// gate returns the entry of sessions configured by o: a gate of the
// router, or the proxy's entry with the same options.
func (r *routerUnit) gate(o router.GateOptions) attacher {
	if r.relay != nil {
		return r.relay.Entry(proxy.EntryOptions{Auths: o.Auths, Internal: o.Internal, JoinTimeout: o.JoinTimeout,
			OnJoin: o.OnJoin, OnLogout: o.OnLogout})
	}
	return r.router.NewGate(o)
}

// internal is the entry of the node's own sessions as role (see
// internalGate); through a proxy, they reach the backend as that role.
func (r *routerUnit) internal(role string) attacher {
	return r.gate(router.GateOptions{Auths: []auth.Authenticator{anonymousAs(role)}, Internal: true})
}

// actsFor is the entry of the node's own sessions that act for others
// (router.GateOptions.ActsFor): the HTTP bridge services with
// options.auth. A proxy worker has none (see httpIdentity).
func (r *routerUnit) actsFor(role string) attacher {
	return r.router.NewGate(router.GateOptions{Auths: []auth.Authenticator{anonymousAs(role)}, ActsFor: true})
}

// realmNames returns the router's realms, in config order. Safe for
// concurrent use.
func (r *routerUnit) realmNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names)
}

// setRealmNames records the router's realms after a reload.
func (r *routerUnit) setRealmNames(names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = names
}

// close closes every session with GOODBYE wamp.close.system_shutdown, all
// at once, and waits for them, or for ctx to end (the sessions then finish
// closing in the background).
func (r *routerUnit) close(ctx context.Context) error {
	var err error
	if r.relay != nil {
		err = r.relay.Shutdown(ctx)
	} else {
		err = r.router.Shutdown(ctx)
	}
	for _, c := range r.cookies {
		c.store.Close()
	}
	if err != nil {
		return pathError(r.path, fmt.Errorf("node: closing sessions: %w", err))
	}
	return nil
}

// realmOptions translates a router worker's realms.
func realmOptions(path string, realms []*config.Realm) ([]router.RealmOptions, error) {
	out := make([]router.RealmOptions, 0, len(realms))
	for i, rm := range realms {
		if rm == nil {
			return nil, fieldError(fmt.Sprintf("%s.realms[%d]", path, i), fmt.Errorf("node: missing realm"))
		}
		out = append(out, realmOption(rm))
	}
	return out, nil
}

// logCache logs, at debug level, each permission with "cache": true,
// which package config accepts silently (Crossbar's default template sets
// it): authorization is never cached because it is always computed in
// nanoseconds.
func logCache(log *slog.Logger, path string, realms []*config.Realm) {
	for i, rm := range realms {
		for j, role := range rm.Roles {
			for k, p := range role.Permissions {
				if p.Cache {
					log.Debug("permission cache has no effect: authorization is always computed, in nanoseconds",
						"path", fmt.Sprintf("%s.realms[%d].roles[%d].permissions[%d].cache", path, i, j, k))
				}
			}
		}
	}
}

// realmOption translates one realm: its roles become the realm's role
// list (a session with another authrole is refused at join) and a static
// authorizer; TrustedRole is always added.
func realmOption(rm *config.Realm) router.RealmOptions {
	rules := make(map[string][]auth.Rule, len(rm.Roles))
	names := make([]string, 0, len(rm.Roles)+1)
	for _, role := range rm.Roles {
		names = append(names, role.Name)
		rules[role.Name] = roleRules(role)
	}
	names = append(names, TrustedRole)
	return router.RealmOptions{
		Name:           wamp.URI(rm.Name),
		Roles:          names,
		Authorizer:     trustedAuthorizer{auth.NewStaticAuthorizer(rules)},
		StrictURIs:     rm.Options.URICheck == "strict",
		DisableMetaAPI: !rm.Options.EnableMetaAPI,
		Limits:         routerLimits(rm.Options.Limits),
		EventHistory:   eventHistories(rm.Store),
		Stats:          statsOptions(rm.Stats),
		Local:          !rm.Options.Cluster,
	}
}

// routerLimits translates a realm's "options.limits": config.RealmLimits
// has the fields of router.Limits, in the same order, so a conversion
// translates them all (and a limit added to one but not the other does
// not compile). Both sides mean the same by 0 (the router's default) and
// by config.NoLimit (any negative value is no limit for the router).
func routerLimits(l config.RealmLimits) router.Limits { return router.Limits(l) }

// roleRules translates a role's permissions; a role without permissions
// and with allow-by-default gets one rule allowing everything.
func roleRules(role *config.Role) []auth.Rule {
	if len(role.Permissions) == 0 {
		if !role.AllowByDefault {
			return nil
		}
		all := auth.Actions{Call: true, Register: true, Publish: true, Subscribe: true}
		return []auth.Rule{{URI: "", Match: uriindex.Prefix, Allow: all}}
	}
	rules := make([]auth.Rule, 0, len(role.Permissions))
	for _, p := range role.Permissions {
		rules = append(rules, auth.Rule{
			URI:   p.URI,
			Match: p.Match,
			Allow: auth.Actions{
				Call: p.Allow.Call, Register: p.Allow.Register,
				Publish: p.Allow.Publish, Subscribe: p.Allow.Subscribe,
			},
			DiscloseCaller:    p.Disclose.Caller,
			DisclosePublisher: p.Disclose.Publisher,
			Cache:             p.Cache,
		})
	}
	return rules
}

// trustedAuthorizer allows TrustedRole everything and asks the static
// authorizer for every other role.
type trustedAuthorizer struct{ static *auth.StaticAuthorizer }

var _ auth.Authorizer = trustedAuthorizer{}

func (a trustedAuthorizer) Authorize(id *auth.Identity, action auth.Action, uri wamp.URI, opts wamp.Dict) (auth.Permission, error) {
	if id != nil && id.AuthRole == TrustedRole {
		return auth.Permission{Allow: true}, nil
	}
	return a.static.Authorize(id, action, uri, opts)
}
