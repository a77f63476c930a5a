package config

import (
	"encoding/hex"
	"time"
)

// Auth is a WebSocket or RawSocket transport's "auth": the authentication
// methods offered, each nil when not offered. Without "auth" only
// Anonymous is offered, with role "anonymous", as in Crossbar.
type Auth struct {
	// Anonymous is "anonymous".
	Anonymous *AnonymousAuth
	// Ticket is "ticket".
	Ticket *TicketAuth
	// WAMPCRA is "wampcra".
	WAMPCRA *WAMPCRAAuth
	// Cryptosign is "cryptosign".
	Cryptosign *CryptosignAuth
	// TLS is "tls".
	TLS *TLSAuth
	// Scram is "scram".
	Scram *ScramAuth
	// AnonymousProxy is "anonymous-proxy": a proxy worker on a Unix socket
	// logs its clients in as the identity it names (authextra
	// proxy_realm, proxy_authid, proxy_authrole), unchecked. A router
	// transport on a Unix socket only.
	AnonymousProxy bool
	// CryptosignProxy is "cryptosign-proxy": a proxy worker proves its
	// node key as a cryptosign principal (static, dynamic or function, as
	// "cryptosign"), then its client joins as the identity it names.
	CryptosignProxy *CryptosignAuth
	// Cookie is "cookie": a client whose tracking cookie an earlier
	// session authenticated (by another method) is admitted as that
	// session was. Needs the transport's "cookie" tracking.
	Cookie bool
	// Default marks the Auth of a transport without "auth": its anonymous
	// sessions have the tracking cookie as authid, when there is one.
	Default bool
}

// AnonymousAuth is "auth.anonymous".
type AnonymousAuth struct {
	// Role is "role": the authrole given (default "anonymous"; "" with
	// "type": "dynamic", whose authenticator gives the role).
	Role string
	// AuthID is "authid": the authid every anonymous session gets, or
	// is asked about with "type": "dynamic" (default "": a random one
	// per session). The authid a client asks for in HELLO is never used,
	// as in Crossbar.
	AuthID string
	// Dynamic is the authenticator to ask, with "type": "dynamic"; nil
	// with "type": "static".
	Dynamic *DynamicAuth
}

// TicketAuth is "auth.ticket".
type TicketAuth struct {
	// Principals is "principals", by authid ("type": "static").
	Principals map[string]TicketPrincipal
	// Dynamic is the authenticator to ask, with "type": "dynamic" (then
	// there are no Principals); nil with "type": "static".
	Dynamic *DynamicAuth
	// Function is the Python authenticator to ask, with "type":
	// "function" (then there are no Principals).
	Function *FunctionAuth
}

// TicketPrincipal is a ticket principal.
type TicketPrincipal struct {
	// Ticket is "ticket" (required): the secret the client must send. Use
	// "${NAME}" to keep it out of the file.
	Ticket string
	// Role is "role" (required): the authrole given.
	Role string
}

// WAMPCRAAuth is "auth.wampcra".
type WAMPCRAAuth struct {
	// Users is "users", by authid ("type": "static").
	Users map[string]WAMPCRAUser
	// Dynamic is the authenticator to ask, with "type": "dynamic" (then
	// there are no Users); nil with "type": "static".
	Dynamic *DynamicAuth
	// Function is the Python authenticator to ask, with "type":
	// "function" (then there are no Users).
	Function *FunctionAuth
}

// WAMPCRAUser is a WAMP-CRA user.
type WAMPCRAUser struct {
	// Secret is "secret" (required): the shared secret.
	Secret string
	// Role is "role" (required): the authrole given.
	Role string
	// Salt is "salt": when given, the secret is salted with PBKDF2
	// (default "": not salted).
	Salt string
	// Iterations is "iterations": PBKDF2 iterations (default 1000).
	Iterations int
	// KeyLen is "keylen": PBKDF2 key length in bytes (default 32).
	KeyLen int
}

// CryptosignAuth is "auth.cryptosign".
type CryptosignAuth struct {
	// Principals is "principals", by authid ("type": "static").
	Principals map[string]CryptosignPrincipal
	// Dynamic is the authenticator to ask, with "type": "dynamic" (then
	// there are no Principals); nil with "type": "static".
	Dynamic *DynamicAuth
	// Function is the Python authenticator to ask, with "type":
	// "function" (then there are no Principals).
	Function *FunctionAuth
}

// DynamicAuth is a method of "auth" with "type": "dynamic": a WAMP
// procedure that the router calls to authenticate each session, as
// authenticator(realm, authid, details).
type DynamicAuth struct {
	// Authenticator is "authenticator" (required): the procedure's URI.
	Authenticator string
	// Realm is "authenticator-realm": the realm where the procedure is
	// registered (default "": the realm the client asks to join).
	Realm string
	// Role is "authenticator-role": the authrole of the router's session
	// that calls it (default "trusted").
	Role string
	// DefaultRole is "default-role": the authrole given when the
	// authenticator's answer names none (default "": such an answer is
	// refused).
	DefaultRole string
	// Timeout is "authenticator-timeout" (ms, >= 1), a Junction
	// extension: how long the router waits for the answer (default
	// DefaultDynamicTimeout).
	Timeout time.Duration
}

// FunctionAuth is a method of "auth" with "type": "function": a Python
// factory that the router worker's Python runner imports and calls once
// at start, as factory(config, controller), and whose result it calls for
// each session, as authenticate(realm, authid, details), answering as a
// dynamic authenticator does. Either may be async.
type FunctionAuth struct {
	// Create is "create" (required): the factory, "package.module.name".
	Create string
	// Config is "config": the factory's first argument, any object
	// ("${NAME}" substituted in its strings at any depth; default {}).
	Config map[string]any
	// ExposeController is "expose_controller" (default false): the
	// factory gets controller None either way (a warning when true).
	ExposeController bool
	// DefaultRole is "default-role", as a dynamic authenticator's.
	DefaultRole string
	// Timeout is "authenticator-timeout" (ms, >= 1), a Junction
	// extension: how long the router waits for authenticate's answer
	// (default DefaultDynamicTimeout).
	Timeout time.Duration
}

// DefaultDynamicTimeout is how long the router waits for a dynamic
// authenticator or authorizer when the configuration does not say.
const DefaultDynamicTimeout = 10 * time.Second

// CryptosignPrincipal is a cryptosign principal.
type CryptosignPrincipal struct {
	// AuthorizedKeys is "authorized_keys" (required): Ed25519 public keys,
	// 64 hex digits each.
	AuthorizedKeys []string
	// Role is "role" (required): the authrole given.
	Role string
	// Realm is "realm": the realm the principal's sessions join, whatever
	// realm their HELLO names (default "": the HELLO's), as in Crossbar.
	Realm string
}

// defaultAuth is what a transport without "auth" offers.
func defaultAuth() Auth { return Auth{Anonymous: &AnonymousAuth{Role: "anonymous"}, Default: true} }

// authMethods is the table of "auth" keys: each decodes the static
// configuration of one method into a.
var authMethods = map[string]func(d *decoder, o *object, a *Auth){
	"anonymous": func(d *decoder, o *object, a *Auth) {
		a.Anonymous = &AnonymousAuth{Role: o.str("role", "anonymous"), AuthID: o.str("authid", "")}
	},
	"ticket": func(d *decoder, o *object, a *Auth) {
		a.Ticket = &TicketAuth{Principals: map[string]TicketPrincipal{}}
		o.each("principals", func(p, id string, v any) { a.Ticket.Principals[id] = d.ticketPrincipal(p, v) })
	},
	"wampcra": func(d *decoder, o *object, a *Auth) {
		a.WAMPCRA = &WAMPCRAAuth{Users: map[string]WAMPCRAUser{}}
		o.each("users", func(p, id string, v any) { a.WAMPCRA.Users[id] = d.craUser(p, v) })
	},
	"cryptosign": func(d *decoder, o *object, a *Auth) {
		a.Cryptosign = &CryptosignAuth{Principals: map[string]CryptosignPrincipal{}}
		o.each("principals", func(p, id string, v any) { a.Cryptosign.Principals[id] = d.cryptosignPrincipal(p, v) })
	},
	"tls":   func(d *decoder, o *object, a *Auth) { d.tlsAuth(o, a) },
	"scram": func(d *decoder, o *object, a *Auth) { d.scramAuth(o, a) },
}

// dynamicAuthMethods set the "type": "dynamic" configuration of one method
// into a; anonymous also reads its "authid".
var dynamicAuthMethods = map[string]func(o *object, a *Auth, dyn *DynamicAuth){
	"anonymous": func(o *object, a *Auth, dyn *DynamicAuth) {
		a.Anonymous = &AnonymousAuth{AuthID: o.str("authid", ""), Dynamic: dyn}
	},
	"ticket":     func(_ *object, a *Auth, dyn *DynamicAuth) { a.Ticket = &TicketAuth{Dynamic: dyn} },
	"wampcra":    func(_ *object, a *Auth, dyn *DynamicAuth) { a.WAMPCRA = &WAMPCRAAuth{Dynamic: dyn} },
	"cryptosign": func(_ *object, a *Auth, dyn *DynamicAuth) { a.Cryptosign = &CryptosignAuth{Dynamic: dyn} },
	"tls":        func(_ *object, a *Auth, dyn *DynamicAuth) { a.TLS = &TLSAuth{Dynamic: dyn} },
	"scram":      func(_ *object, a *Auth, dyn *DynamicAuth) { a.Scram = &ScramAuth{Dynamic: dyn} },
}

// functionAuthMethods set the "type": "function" configuration of one
// method into a: the methods Crossbar 21.3.1 offers it for (not
// anonymous).
var functionAuthMethods = map[string]func(a *Auth, fn *FunctionAuth){
	"ticket":     func(a *Auth, fn *FunctionAuth) { a.Ticket = &TicketAuth{Function: fn} },
	"wampcra":    func(a *Auth, fn *FunctionAuth) { a.WAMPCRA = &WAMPCRAAuth{Function: fn} },
	"cryptosign": func(a *Auth, fn *FunctionAuth) { a.Cryptosign = &CryptosignAuth{Function: fn} },
	"scram":      func(a *Auth, fn *FunctionAuth) { a.Scram = &ScramAuth{Function: fn} },
}

// auth decodes "auth" at key k of o, or returns the default.
func (d *decoder) auth(o *object, k string) Auth {
	v, ok := o.get(k)
	if !ok {
		return defaultAuth()
	}
	var a Auth
	ao, ok := d.object(o.at(k), v)
	if !ok {
		return a
	}
	for _, method := range sortedKeys(ao.m) {
		ao.get(method)
		switch method {
		case "cookie":
			a.Cookie = true
			continue
		case AnonymousProxy:
			a.AnonymousProxy = d.anonymousProxy(ao.at(method), ao.m[method])
			continue
		case CryptosignProxy:
			var cs Auth
			d.authMethod(ao.at(method), ao.m[method], "cryptosign", &cs)
			a.CryptosignProxy = cs.Cryptosign
			continue
		}
		if _, ok := authMethods[method]; !ok {
			d.unknownAuth(ao.at(method), method)
			continue
		}
		d.authMethod(ao.at(method), ao.m[method], method, &a)
	}
	return a
}

func (d *decoder) unknownAuth(path, method string) {
	msg := "unknown authentication method %q (want anonymous, ticket, wampcra, cryptosign, tls, scram, cookie, " +
		"anonymous-proxy, cryptosign-proxy)"
	d.errorf(path, msg, method)
}

// anonymousProxy decodes "anonymous-proxy": "type": "static" only (the
// identity is the proxy's to name); Crossbar's anonymous keys "role" and
// "authid" are accepted and ignored, as Crossbar ignores them there.
func (d *decoder) anonymousProxy(path string, v any) bool {
	o, ok := d.object(path, v)
	if !ok {
		return false
	}
	if t := o.reqStr("type"); t != "" && t != "static" {
		d.errorf(o.at("type"), "unknown authentication type %q for anonymous-proxy (want static: the proxy names the identity)", t)
		o.skip()
	}
	o.ignored("role", ": the session gets the authrole the proxy names")
	o.ignored("authid", ": the session gets the authid the proxy names")
	o.done()
	return true
}

// authMethod decodes one method by its "type": "static" (principals in
// the file) or "dynamic" (a procedure to ask).
func (d *decoder) authMethod(path string, v any, method string, a *Auth) {
	o, ok := d.object(path, v)
	if !ok {
		return
	}
	switch t := o.reqStr("type"); t {
	case "static":
		authMethods[method](d, o, a)
	case "dynamic":
		dynamicAuthMethods[method](o, a, d.dynamicAuth(o))
	case "function":
		d.functionAuthMethod(o, method, a)
	case "":
		o.skip()
	default:
		d.errorf(o.at("type"), "unknown authentication type %q (want %s)", t, authTypes(method))
		o.skip()
	}
	o.done()
}

// authTypes are the "type"s a method accepts, in words.
func authTypes(method string) string {
	if _, ok := functionAuthMethods[method]; ok {
		return "static, dynamic, function"
	}
	return "static, dynamic"
}

// functionAuthMethod decodes a "type": "function" method, which anonymous
// is refused, as by Crossbar 21.3.1 (its anonymous method has no function
// type).
func (d *decoder) functionAuthMethod(o *object, method string, a *Auth) {
	set, ok := functionAuthMethods[method]
	if !ok {
		d.errorf(o.at("type"), "unknown authentication type %q for %s (want static, dynamic)", "function", method)
		o.skip()
		return
	}
	set(a, d.functionAuth(o))
}

// functionAuth decodes the keys of a "type": "function" method.
func (d *decoder) functionAuth(o *object) *FunctionAuth {
	fn := &FunctionAuth{
		Create:           o.reqValidStr("create", pythonClassname, "invalid Python function name %q (want package.module.name)"),
		Config:           d.pythonObject(o, "config"),
		ExposeController: o.boolean("expose_controller", false),
		DefaultRole:      o.str("default-role", ""),
		Timeout:          dynamicTimeout(o, "authenticator-timeout"),
	}
	o.ignoredIf(fn.ExposeController, "expose_controller", ": there is no controller API; the factory gets controller None")
	return fn
}

// dynamicAuth decodes the keys of a "type": "dynamic" method.
func (d *decoder) dynamicAuth(o *object) *DynamicAuth {
	invalid := "invalid procedure URI %q"
	return &DynamicAuth{
		Authenticator: o.reqValidStr("authenticator", looseURI, invalid),
		Realm:         o.validStr("authenticator-realm", "", emptyOr(looseURI), "invalid realm URI %q"),
		Role:          o.str("authenticator-role", ""),
		DefaultRole:   o.str("default-role", ""),
		Timeout:       dynamicTimeout(o, "authenticator-timeout"),
	}
}

// dynamicTimeout decodes a dynamic authenticator's or authorizer's
// timeout at key k, in milliseconds; DefaultDynamicTimeout when absent.
func dynamicTimeout(o *object, k string) time.Duration {
	ms := o.integer(k, DefaultDynamicTimeout.Milliseconds(), 1, maxInt32)
	return time.Duration(ms) * time.Millisecond
}

// emptyOr accepts "" and what valid accepts.
func emptyOr(valid func(string) bool) func(string) bool {
	return func(s string) bool { return s == "" || valid(s) }
}

func (d *decoder) ticketPrincipal(path string, v any) TicketPrincipal {
	var p TicketPrincipal
	if o, ok := d.object(path, v); ok {
		p.Ticket, p.Role = o.reqStr("ticket"), o.reqStr("role")
		o.done()
	}
	return p
}

func (d *decoder) craUser(path string, v any) WAMPCRAUser {
	u := WAMPCRAUser{Iterations: 1000, KeyLen: 32}
	o, ok := d.object(path, v)
	if !ok {
		return u
	}
	u.Secret, u.Role = o.reqStr("secret"), o.reqStr("role")
	u.Salt = o.str("salt", "")
	u.Iterations = int(o.integer("iterations", 1000, 1, maxInt32))
	u.KeyLen = int(o.integer("keylen", 32, 1, 1024))
	o.done()
	return u
}

func (d *decoder) cryptosignPrincipal(path string, v any) CryptosignPrincipal {
	var p CryptosignPrincipal
	o, ok := d.object(path, v)
	if !ok {
		return p
	}
	if !o.has("authorized_keys") {
		o.required("authorized_keys")
	}
	o.list("authorized_keys", func(kp string, v any) {
		k, ok := d.str(kp, v)
		if ok && !hexKey(k) {
			d.errorf(kp, "must be 64 hex digits (an Ed25519 public key)")
		}
		p.AuthorizedKeys = append(p.AuthorizedKeys, k)
	})
	p.Role = o.reqStr("role")
	p.Realm = o.validStr("realm", "", emptyOr(looseURI), "invalid realm URI %q")
	o.done()
	return p
}

func hexKey(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32
}

// hasFunctionAuth reports whether t, or a WebSocket path of t at any
// depth, has a function authenticator.
func hasFunctionAuth(t Transport) bool {
	switch t := t.(type) {
	case *WebSocketTransport:
		return t.Auth.hasFunction()
	case *RawSocketTransport:
		return t.Auth.hasFunction()
	case *MQTTTransport:
		return t.Options.Auth.hasFunction()
	case *WebTransport:
		return pathsHaveFunctionAuth(t.Paths)
	}
	return false
}

func pathsHaveFunctionAuth(ps Paths) bool {
	for _, p := range ps {
		switch s := p.(type) {
		case *WebSocketService:
			if s.Auth.hasFunction() {
				return true
			}
		case *PathTree:
			if pathsHaveFunctionAuth(s.Paths) {
				return true
			}
		}
	}
	return false
}

// hasFunction reports whether a method of a is "type": "function".
func (a Auth) hasFunction() bool {
	return a.Ticket != nil && a.Ticket.Function != nil || a.WAMPCRA != nil && a.WAMPCRA.Function != nil ||
		a.Cryptosign != nil && a.Cryptosign.Function != nil || a.Scram != nil && a.Scram.Function != nil ||
		a.CryptosignProxy != nil && a.CryptosignProxy.Function != nil
}
