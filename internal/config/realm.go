package config

import (
	"strings"
	"time"
)

// Realm is an item of a router's "realms".
type Realm struct {
	// ID is "id" (default "").
	ID string
	// Name is "name" (required): the realm's URI, as clients give it in
	// HELLO.
	Name string
	// Roles is "roles": the roles sessions of this realm may have.
	Roles []*Role
	// Options is "options".
	Options RealmOptions
	// Store is "store" (nil when absent).
	Store *RealmStore
	// Stats is "stats" (nil when absent).
	Stats *RealmStats
	// RLinks is "rlinks": links to realms of other routers.
	RLinks []*RouterLink
}

// RealmOptions is a realm's "options".
type RealmOptions struct {
	// EnableMetaAPI is "enable_meta_api": the wamp.session.* and
	// wamp.registration.* / wamp.subscription.* meta API (default true).
	EnableMetaAPI bool
	// BridgeMetaAPI is "bridge_meta_api" (default false). Router links
	// do not forward the meta API: false is what Junction does; true is
	// ignored with a warning.
	BridgeMetaAPI bool
	// URICheck is "uri_check": "strict" or "loose" URI validation of
	// client messages (default "loose").
	URICheck string
	// EventDispatchingChunkSize is "event_dispatching_chunk_size": in
	// Crossbar, how many receivers an event is sent to before the broker
	// yields, >= 1 (default 100). Junction's broker queues an event on each
	// receiver's own outbound queue and never yields, so the key is ignored
	// with a warning when given.
	EventDispatchingChunkSize int
	// Limits is "limits", a Junction extension.
	Limits RealmLimits
	// Cluster is "cluster", a Junction extension (default true): with
	// controller.cluster, false keeps the realm on this node.
	Cluster bool
}

// RealmLimits is a realm's "options.limits", a Junction extension: what
// clients can make the realm hold. Each field is a limit (>= 1), or
// NoLimit; 0 (the key absent) means the router's default. The fields are
// those of the router's Limits, in the same order: package node converts
// one into the other.
type RealmLimits struct {
	SubscriptionsPerSession  int // "subscriptions_per_session"
	RegistrationsPerSession  int // "registrations_per_session"
	CallsInFlightPerSession  int // "calls_in_flight_per_session"
	SubscriptionsPerRealm    int // "subscriptions_per_realm"
	RegistrationsPerRealm    int // "registrations_per_realm"
	CallsInFlightPerRealm    int // "calls_in_flight_per_realm"
	URIBytesPerPattern       int // "uri_bytes_per_pattern"
	RetainedEventsPerRealm   int // "retained_events_per_realm"
	RetainedBytesPerRealm    int // "retained_bytes_per_realm"
	RetainedEventsPerSession int // "retained_events_per_session"
	RetainedBytesPerSession  int // "retained_bytes_per_session"
	TestamentsPerRealm       int // "testaments_per_realm"
	TestamentBytesPerRealm   int // "testament_bytes_per_realm"
	TestamentsPerSession     int // "testaments_per_session"
	TestamentBytesPerSession int // "testament_bytes_per_session"
	HistoryBytesPerRealm     int // "history_bytes_per_realm"
}

// NoLimit as a RealmLimits field ("-1" in the file) turns the limit off.
const NoLimit = -1

// limitKey is a key of "options.limits" and the field it sets.
type limitKey struct {
	key string
	v   *int
}

// limitKeys are the keys of "options.limits", in the documented order.
func (l *RealmLimits) limitKeys() []limitKey {
	return []limitKey{
		{"subscriptions_per_session", &l.SubscriptionsPerSession},
		{"registrations_per_session", &l.RegistrationsPerSession},
		{"calls_in_flight_per_session", &l.CallsInFlightPerSession},
		{"subscriptions_per_realm", &l.SubscriptionsPerRealm},
		{"registrations_per_realm", &l.RegistrationsPerRealm},
		{"calls_in_flight_per_realm", &l.CallsInFlightPerRealm},
		{"uri_bytes_per_pattern", &l.URIBytesPerPattern},
		{"retained_events_per_realm", &l.RetainedEventsPerRealm},
		{"retained_bytes_per_realm", &l.RetainedBytesPerRealm},
		{"retained_events_per_session", &l.RetainedEventsPerSession},
		{"retained_bytes_per_session", &l.RetainedBytesPerSession},
		{"testaments_per_realm", &l.TestamentsPerRealm},
		{"testament_bytes_per_realm", &l.TestamentBytesPerRealm},
		{"testaments_per_session", &l.TestamentsPerSession},
		{"testament_bytes_per_session", &l.TestamentBytesPerSession},
		{"history_bytes_per_realm", &l.HistoryBytesPerRealm},
	}
}

// Role is an item of a realm's "roles".
type Role struct {
	// ID is "id" (default "").
	ID string
	// Name is "name" (required): the authrole. "trusted" is reserved.
	Name string
	// Permissions is "permissions". When absent, AllowByDefault applies to
	// every URI (or the Authorizer decides).
	Permissions []*Permission
	// AllowByDefault is "allow-by-default": with no "permissions", allow
	// every action on every URI (default false: deny everything).
	AllowByDefault bool
	// Authorizer is "authorizer" (not with "permissions"): the URI of a
	// procedure of the realm that the router calls to authorize each
	// action of the role's sessions, as authorizer(session, uri, action,
	// options). Default "": the permissions decide.
	Authorizer string
	// AuthorizerTimeout is "authorizer-timeout" (ms, >= 1), a Junction
	// extension: how long the router waits for the authorizer's answer
	// (default DefaultDynamicTimeout).
	AuthorizerTimeout time.Duration
}

func (d *decoder) realm(path string, v any) *Realm {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	r := &Realm{ID: d.id(o), Name: o.reqStr("name")}
	placeholder := templatePlaceholder(r.Name)
	if r.Name != "" && !looseURI(r.Name) && !placeholder {
		d.errorf(o.at("name"), "invalid realm URI %q", r.Name)
	}
	o.list("roles", func(p string, v any) {
		if role := d.role(p, v); role != nil {
			r.Roles = append(r.Roles, role)
		}
	})
	r.Options = d.realmOptions(o)
	r.Store = d.store(o)
	if r.Store != nil && len(r.Store.EventHistory) > 0 && !r.Options.EnableMetaAPI {
		d.warnf(path+".store.event-history", "the realm's meta API is off (options.enable_meta_api): nobody can read these events (wamp.subscription.get_events is a meta procedure)")
	}
	r.Stats = d.realmStats(o)
	r.RLinks = d.rlinks(o)
	o.ignored("trace", ": Crossbar does not use it either")
	o.done()
	if placeholder {
		d.warnf(o.at("name"), "%q is a template placeholder, not a realm URI: the node runs without this realm (no client could join it; Crossbar starts it, and no client can join it there either)", r.Name)
		return nil
	}
	return r
}

// templatePlaceholder reports whether a realm name is a Jinja placeholder
// left in the file, such as "{{ realm }}" in the configurations of
// Crossbar's retired "crossbar init --template" (Crossbar accepts any
// realm name in a configuration; no client can join one that is not a
// URI). Any other name that is not a URI is a configuration error.
func templatePlaceholder(name string) bool {
	open := strings.Index(name, "{{")
	return open >= 0 && strings.Contains(name[open:], "}}")
}

func (d *decoder) realmOptions(o *object) RealmOptions {
	opts := RealmOptions{EnableMetaAPI: true, URICheck: "loose", EventDispatchingChunkSize: 100, Cluster: true}
	oo, ok := o.child("options")
	if !ok {
		return opts
	}
	opts.EnableMetaAPI = oo.boolean("enable_meta_api", opts.EnableMetaAPI)
	opts.BridgeMetaAPI = oo.boolean("bridge_meta_api", opts.BridgeMetaAPI)
	oo.ignoredIf(opts.BridgeMetaAPI, "bridge_meta_api", ": router links do not forward the meta API")
	opts.URICheck = oo.enum("uri_check", opts.URICheck, "URI check", "strict", "loose")
	opts.EventDispatchingChunkSize = int(oo.integer("event_dispatching_chunk_size", 100, 1, maxInt32))
	oo.ignoredIf(true, "event_dispatching_chunk_size", ": each receiver has its own outbound queue, so the broker never yields")
	opts.Limits = realmLimits(oo)
	opts.Cluster = oo.boolean("cluster", true)
	oo.done()
	return opts
}

// realmLimits decodes "options.limits".
func realmLimits(oo *object) RealmLimits {
	var l RealmLimits
	lo, ok := oo.child("limits")
	if !ok {
		return l
	}
	for _, k := range l.limitKeys() {
		*k.v = lo.limit(k.key)
	}
	lo.done()
	return l
}

// limit decodes a limit at key k: >= 1, or -1 for none (with a warning);
// 0 when absent.
func (o *object) limit(k string) int {
	v, ok := o.get(k)
	if !ok {
		return 0
	}
	n, ok := o.d.integer(o.at(k), v)
	switch {
	case !ok:
		return 0
	case n == NoLimit:
		o.d.warnf(o.at(k), "no limit: a client can make the router hold as much as it likes")
	case n < 1:
		o.d.errorf(o.at(k), "must be -1 (no limit) or >= 1, not %d", n)
		return 0
	}
	return int(n)
}

const maxInt32 = 1<<31 - 1

func (d *decoder) role(path string, v any) *Role {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	r := &Role{ID: d.id(o), Name: o.reqStr("name")}
	if r.Name == "trusted" {
		d.errorf(o.at("name"), `role "trusted" is reserved`)
	}
	o.list("permissions", func(p string, v any) {
		if perm := d.permission(p, v); perm != nil {
			r.Permissions = append(r.Permissions, perm)
		}
	})
	r.AllowByDefault = o.boolean("allow-by-default", false)
	d.authorizer(o, r)
	o.done()
	return r
}

// authorizer decodes a role's "authorizer" and "authorizer-timeout". An
// authorizer replaces the permissions (both is an error, as in Crossbar)
// and allow-by-default (ignored with a warning).
func (d *decoder) authorizer(o *object, r *Role) {
	r.Authorizer = o.validStr("authorizer", "", emptyOr(looseURI), "invalid procedure URI %q")
	r.AuthorizerTimeout = dynamicTimeout(o, "authorizer-timeout")
	switch {
	case r.Authorizer == "":
		o.ignoredIf(o.has("authorizer-timeout"), "authorizer-timeout", ": the role has no authorizer")
	case o.has("permissions"):
		d.errorf(o.at("authorizer"), `not with "permissions": a role has either an authorizer or permissions`)
	default:
		o.ignoredIf(o.has("allow-by-default"), "allow-by-default", ": the authorizer decides")
	}
}
