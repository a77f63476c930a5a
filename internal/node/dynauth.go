package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// Dynamic authenticators and authorizers are WAMP procedures that the
// router calls. It calls them through sessions of the node's own, joined
// like the bridge services' (an in-memory pair through an internal gate,
// before the listeners open, left after they close, rejoined if killed):
// the router imports no client, and auth stays free of WAMP sessions, as
// it only sees an auth.AuthenticateFunc or auth.AuthorizeFunc. Another
// kind of authenticator (a Python function) is another such function.

// dynamicCalls are the sessions through which one router's dynamic
// authenticators and authorizers are called: one per realm and authrole,
// shared by everything that calls on that realm as that role. Built by
// one goroutine (the builder); the sessions are safe for concurrent use.
type dynamicCalls struct {
	node *Node
	log  *slog.Logger
	// unit is the router (or proxy) the sessions join through, set once
	// it exists (before any session dials, which happens at Start).
	unit *routerUnit
	// roles are the roles of each realm of the router, TrustedRole
	// included.
	roles    map[wamp.URI][]string
	sessions map[callKey]*bridgeSession
	// headers: some authorizer may need the WebSocket headers of any
	// session (see keepHeaders).
	headers bool
}

// callKey is where a calling session joins.
type callKey struct {
	realm wamp.URI
	role  string
}

// newDynamicCalls prepares the calling sessions of a router worker with
// realms.
func newDynamicCalls(b *builder, realms []*config.Realm) *dynamicCalls {
	dc := &dynamicCalls{node: b.node, log: b.log, roles: map[wamp.URI][]string{}, sessions: map[callKey]*bridgeSession{}}
	for _, rm := range realms {
		if rm == nil {
			continue
		}
		roles := []string{TrustedRole}
		for _, role := range rm.Roles {
			roles = append(roles, role.Name)
			dc.headers = dc.headers || role.Authorizer != ""
		}
		dc.roles[wamp.URI(rm.Name)] = roles
	}
	return dc
}

// session returns the session that calls on realm as role ("" is
// TrustedRole), making it on first use; path is the configuration item it
// is made for, in its logs and start errors.
func (dc *dynamicCalls) session(path string, realm wamp.URI, role string) *bridgeSession {
	if role == "" {
		role = TrustedRole
	}
	k := callKey{realm, role}
	if s := dc.sessions[k]; s != nil {
		return s
	}
	s := &bridgeSession{
		path:       path,
		dial:       func(ctx context.Context) (wamp.Peer, error) { return localDialer(dc.unit.internal(role))(ctx) },
		cfg:        client.Config{Realm: realm, Logger: dc.log.With("path", path)},
		background: dc.unit != nil && dc.unit.relay != nil, // a router's unit is set later, a proxy's first
	}
	dc.sessions[k] = s
	dc.node.sessions = append(dc.node.sessions, s)
	return s
}

// authenticateFunc calls the procedure of a dynamic authenticator (at
// path) with Crossbar's arguments (realm, authid or null, details),
// through the session on its "authenticator-realm" or, without one, on the
// realm the client asks for; as its "authenticator-role", TrustedRole by
// default. A realm that does not exist, or lacks that role, is refused as
// Crossbar refuses it, without asking.
func (dc *dynamicCalls) authenticateFunc(path string, dyn *config.DynamicAuth) auth.AuthenticateFunc {
	procedure := wamp.URI(dyn.Authenticator)
	sessions := map[wamp.URI]*bridgeSession{}
	for _, realm := range slices.Sorted(maps.Keys(dc.roles)) {
		if dyn.Realm == "" && slices.Contains(dc.roles[realm], callerRole(dyn.Role)) || wamp.URI(dyn.Realm) == realm {
			sessions[realm] = dc.session(path, realm, dyn.Role)
		}
	}
	return func(ctx context.Context, realm wamp.URI, authid string, details wamp.Dict) (any, error) {
		at := realm
		if dyn.Realm != "" {
			at = wamp.URI(dyn.Realm)
		}
		s := sessions[at]
		if s == nil {
			return nil, dc.noSession(at, callerRole(dyn.Role))
		}
		var id any
		if authid != "" {
			id = authid
		}
		return callDynamic(ctx, s, procedure, wamp.List{string(realm), id, details})
	}
}

// callerRole is an "authenticator-role", TrustedRole when not given.
func callerRole(role string) string {
	if role == "" {
		return TrustedRole
	}
	return role
}

// noSession is why there is no calling session on realm as role: the
// realm or the role does not exist. The authenticator cannot be asked.
func (dc *dynamicCalls) noSession(realm wamp.URI, role string) error {
	if _, ok := dc.roles[realm]; !ok {
		return fmt.Errorf("%w: %w", auth.ErrUnavailable, wamp.Errorf(wamp.ErrNoSuchRealm, "no realm %q exists on this router", realm))
	}
	return fmt.Errorf("%w: %w", auth.ErrUnavailable,
		wamp.Errorf(wamp.ErrNoSuchRole, "role %q configured for the dynamic authenticator does not exist on realm %q", role, realm))
}

// authorizeFunc calls a role's authorizer procedure on realm with
// Crossbar's arguments (session details, uri, action, options), through
// the realm's TrustedRole session (Crossbar's realm service session).
func (dc *dynamicCalls) authorizeFunc(path string, realm wamp.URI, procedure string) auth.AuthorizeFunc {
	s := dc.session(path, realm, TrustedRole)
	return func(ctx context.Context, session wamp.Dict, uri wamp.URI, action auth.Action, options wamp.Dict) (any, error) {
		return callDynamic(ctx, s, wamp.URI(procedure), wamp.List{session, string(uri), string(action), options})
	}
}

// callDynamic calls procedure through s and returns its first result
// (nil when there is none). When ctx ends the call is canceled without
// waiting (killnowait). An error that comes from the router rather than
// from the procedure (none registered, canceled, a limit), and any error
// of the calling session, wraps auth.ErrUnavailable.
func callDynamic(ctx context.Context, s *bridgeSession, procedure wamp.URI, args wamp.List) (any, error) {
	res, err := s.Call(ctx, procedure, args, nil, client.WithCancelMode(wamp.CancelKillNoWait))
	if err != nil {
		return nil, classifyCallError(err)
	}
	if len(res.Args) == 0 {
		return nil, nil
	}
	return res.Args[0], nil
}

// routerCallErrors are the ERRORs of a CALL that the router, not the
// callee, sends when it cannot deliver or complete the call (in a
// cluster too: the table unavailable, this node isolated).
var routerCallErrors = []wamp.URI{
	wamp.ErrNoSuchProcedure, wamp.ErrNoAvailableCallee, wamp.ErrCanceled, wamp.ErrTimeout, wamp.ErrLimitExceeded,
	wamp.ErrClusterUnavailable, wamp.ErrClusterIsolated,
}

func classifyCallError(err error) error {
	var re *wamp.RequestError
	if errors.As(err, &re) && !slices.Contains(routerCallErrors, re.URI) {
		return err
	}
	return fmt.Errorf("%w: %w", auth.ErrUnavailable, err)
}

// authorizers returns the realm's authorizer given the static one: each
// role with an "authorizer" asks it (path is the router worker's, i the
// realm's index), every other role keeps static. Without such roles it is
// static itself.
func (dc *dynamicCalls) authorizers(path string, rm *config.Realm, static auth.Authorizer) auth.Authorizer {
	dynamic := map[string]*auth.DynamicAuthorizer{}
	for j, role := range rm.Roles {
		if role.Authorizer == "" {
			continue
		}
		rp := fmt.Sprintf("%s.roles[%d].authorizer", path, j)
		dynamic[role.Name] = auth.NewDynamicAuthorizer(auth.DynamicAuthorizerOptions{
			Authorize: dc.authorizeFunc(rp, wamp.URI(rm.Name), role.Authorizer),
			Timeout:   role.AuthorizerTimeout,
		})
	}
	if len(dynamic) == 0 {
		return static
	}
	return roleAuthorizer{static: static, dynamic: dynamic}
}

// roleAuthorizer asks the dynamic authorizer of a session's role, and the
// static authorizer for the roles without one.
type roleAuthorizer struct {
	static  auth.Authorizer
	dynamic map[string]*auth.DynamicAuthorizer
}

var _ auth.Authorizer = roleAuthorizer{}

func (a roleAuthorizer) Authorize(id *auth.Identity, action auth.Action, uri wamp.URI, opts wamp.Dict) (auth.Permission, error) {
	if id != nil {
		if d := a.dynamic[id.AuthRole]; d != nil {
			return d.Authorize(id, action, uri, opts)
		}
	}
	return a.static.Authorize(id, action, uri, opts)
}

// useDynamicAuthorizers gives each realm of a router worker (at path)
// with dynamic authorizers its roleAuthorizer; opts are the realms' router
// options, in the order of realms.
func (dc *dynamicCalls) useDynamicAuthorizers(path string, realms []*config.Realm, opts []router.RealmOptions) {
	for i, rm := range realms {
		opts[i].Authorizer = dc.authorizers(fmt.Sprintf("%s.realms[%d]", path, i), rm, opts[i].Authorizer)
	}
}

// keepHeaders reports whether a WebSocket transport with a must keep its
// clients' upgrade headers: a dynamic authenticator or authorizer is told
// them (http_headers_received), and only then are they kept, as a session
// would otherwise hold them for nothing.
func (dc *dynamicCalls) keepHeaders(a config.Auth) bool {
	return dc != nil && (dc.headers || hasDynamic(a))
}

// hasDynamic reports whether a has a method of "type": "dynamic" or
// "function" (also told the headers).
func hasDynamic(a config.Auth) bool {
	return a.Anonymous != nil && a.Anonymous.Dynamic != nil ||
		a.Ticket != nil && (a.Ticket.Dynamic != nil || a.Ticket.Function != nil) ||
		a.WAMPCRA != nil && (a.WAMPCRA.Dynamic != nil || a.WAMPCRA.Function != nil) ||
		a.Cryptosign != nil && (a.Cryptosign.Dynamic != nil || a.Cryptosign.Function != nil)
}
