package config

import (
	"slices"
	"strings"
)

// ProxyWorker is a worker of "type": "proxy" (Crossbar's worker/proxy.py):
// it terminates client transports, serves their web paths and
// authenticates the clients itself, then relays each client's session to
// a backend router, chosen by the client's realm and authrole in Routes,
// over one of Connections. Crossbar does not check a proxy worker's keys;
// these are the ones its proxy reads.
type ProxyWorker struct {
	// ID is "id" (default "").
	ID string
	// Options is "options".
	Options WorkerOptions
	// Transports is "transports": web, websocket, rawsocket, universal or
	// flashpolicy, as a router's (not mqtt).
	Transports []Transport
	// Routes is "routes": {realm: {authrole: connection or [connections]}},
	// flattened and sorted by realm, then role.
	Routes []*ProxyRoute
	// Connections is "connections": the backend connections, by name.
	Connections map[string]*ProxyConnection
	// RunsAs is the path of an identical earlier proxy worker sharing a
	// port with this one, as RouterWorker.RunsAs.
	RunsAs string

	raw map[string]any // the worker's object in the file, to compare
}

// WorkerID returns the worker's "id".
func (w *ProxyWorker) WorkerID() string { return w.ID }
func (*ProxyWorker) isWorker()          {}

var _ Worker = (*ProxyWorker)(nil)

// ProxyRoute is one (realm, authrole) of "routes": the sessions of that
// realm and authrole go to one of Connections, in turn.
type ProxyRoute struct {
	Realm string
	Role  string
	// Connections are the names in "connections", one or more.
	Connections []string
}

// The methods a proxy logs in to a backend router with, and that a
// router's transport "auth" accepts from proxies.
const (
	// AnonymousProxy trusts the proxy unchecked: Unix sockets only.
	AnonymousProxy = "anonymous-proxy"
	// CryptosignProxy checks the proxy's node key as a cryptosign
	// principal.
	CryptosignProxy = "cryptosign-proxy"
)

// ProxyConnection is an item of a proxy worker's "connections".
type ProxyConnection struct {
	// Transport is "transport" (required): rawsocket or websocket, as a
	// container component's.
	Transport *ComponentTransport
	// Methods are the keys of "auth": the login methods offered to the
	// backend, AnonymousProxy and/or CryptosignProxy (in that order).
	// Without "auth", AnonymousProxy, as in Crossbar.
	Methods []string
}

func (d *decoder) proxyWorker(o *object) *ProxyWorker {
	w := &ProxyWorker{raw: o.m, Connections: map[string]*ProxyConnection{}}
	w.ID, w.Options = d.workerCommon(o, nil)
	o.list("transports", func(p string, v any) {
		if t := d.proxyTransport(p, v); t != nil {
			w.Transports = append(w.Transports, t)
		}
	})
	o.each("connections", func(p, name string, v any) {
		if c := d.proxyConnection(p, v); c != nil {
			w.Connections[name] = c
		}
	})
	w.Routes = d.proxyRoutes(o, w.Connections)
	d.pythonOptionsUsed(o, nil, slices.ContainsFunc(w.Transports, hasFunctionAuth) ||
		slices.ContainsFunc(w.Transports, hasPythonWebPath))
	o.done()
	return w
}

// noMQTT is why a proxy worker has no MQTT transport.
const noMQTT = "not supported in a proxy worker: mqtt (an MQTT client's session is not a WAMP session to relay; " +
	"give the backend router the mqtt transport)"

// proxyTransport decodes a proxy's transport: a router's, but MQTT.
func (d *decoder) proxyTransport(path string, v any) Transport {
	t := d.transport(path, v)
	switch t := t.(type) {
	case *MQTTTransport:
		d.errorf(path+".type", noMQTT)
		return nil
	case *UniversalTransport:
		if t.MQTT != nil {
			d.errorf(path+".mqtt", noMQTT)
			return nil
		}
	}
	return t
}

func (d *decoder) proxyConnection(path string, v any) *ProxyConnection {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	d.proxyRawSocketURL(o)
	c := &ProxyConnection{Transport: d.componentTransportAt(o), Methods: []string{AnonymousProxy}}
	if ao, ok := o.child("auth"); ok {
		c.Methods = d.proxyLoginMethods(ao)
	}
	if c.Transport != nil && slices.Contains(c.Methods, AnonymousProxy) && c.Transport.Endpoint.Type == "tcp" {
		d.errorf(o.at("transport")+".endpoint", "anonymous-proxy logs in over a Unix socket only "+
			"(the backend trusts the identity the proxy names, unchecked): give the connection a unix endpoint, "+
			"or \"auth\": {\"cryptosign-proxy\": {\"type\": \"static\"}}")
	}
	o.done()
	return c
}

// proxyRawSocketURL accepts the "url" ws://... of a RawSocket connection,
// as Crossbar's proxy does (autobahn reads no url when the endpoint is
// given; crossbar-examples' proxy configs have "ws://localhost"), with a
// warning: the endpoint says where to connect. The url is taken out of
// a copy of the transport, which is then decoded as a component's.
func (d *decoder) proxyRawSocketURL(o *object) {
	t, _ := o.m["transport"].(map[string]any)
	u, _ := t["url"].(string)
	if t["type"] != "rawsocket" || !webSocketURL(u) {
		return
	}
	d.warnf(childPath(o.at("transport"), "url"), "ignored: a WebSocket URL on a RawSocket connection (the endpoint says where to connect)")
	c := make(map[string]any, len(t))
	for k, v := range t {
		if k != "url" {
			c[k] = v
		}
	}
	m := make(map[string]any, len(o.m))
	for k, v := range o.m {
		m[k] = v
	}
	m["transport"] = c
	o.m = m
}

// proxyLoginMethods decodes a connection's "auth": each key a method,
// whose value is {"type": "static"}.
func (d *decoder) proxyLoginMethods(o *object) []string {
	var out []string
	for _, m := range []string{AnonymousProxy, CryptosignProxy} {
		if mo, ok := o.child(m); ok {
			if t := mo.str("type", "static"); t != "static" {
				d.errorf(mo.at("type"), "unknown type %q (want static: the proxy logs in with the node key or as itself)", t)
			}
			mo.done()
			out = append(out, m)
		}
	}
	if len(o.m) == 0 {
		d.errorf(o.path, "must name anonymous-proxy or cryptosign-proxy")
	}
	o.done()
	return out
}

// proxyRoutes decodes "routes", whose connection names must be in conns.
func (d *decoder) proxyRoutes(o *object, conns map[string]*ProxyConnection) []*ProxyRoute {
	var routes []*ProxyRoute
	o.each("routes", func(rp, realm string, v any) {
		if !looseURI(realm) {
			d.errorf(rp, "invalid realm URI %q", realm)
		}
		ro, ok := d.object(rp, v)
		if !ok {
			return
		}
		for _, role := range sortedKeys(ro.m) {
			ro.get(role)
			names := d.routeConnections(childPath(rp, role), ro.m[role], conns)
			if len(names) > 0 {
				routes = append(routes, &ProxyRoute{Realm: realm, Role: role, Connections: names})
			}
		}
	})
	return routes
}

// routeConnections decodes a route's connection: a name, or a list of
// names (used in turn).
func (d *decoder) routeConnections(path string, v any, conns map[string]*ProxyConnection) []string {
	var names []string
	check := func(p string, v any) {
		s, ok := d.str(p, v)
		if !ok {
			return
		}
		if conns[s] == nil {
			d.errorf(p, "no connection %q in the worker's connections (have: %s)", s, strings.Join(sortedKeysOf(conns), ", "))
			return
		}
		names = append(names, s)
	}
	if _, isList := v.([]any); isList {
		d.list(path, v, check)
		if len(names) == 0 {
			d.errorf(path, "must name at least one connection")
		}
		return names
	}
	check(path, v)
	return names
}

// RoutedRealms are the realms and roles the routes of w reach, as realms
// with those roles only, by name.
func (w *ProxyWorker) RoutedRealms() map[string]*Realm {
	realms := map[string]*Realm{}
	for _, r := range w.Routes {
		rm := realms[r.Realm]
		if rm == nil {
			rm = &Realm{Name: r.Realm}
			realms[r.Realm] = rm
		}
		rm.Roles = append(rm.Roles, &Role{Name: r.Role})
	}
	return realms
}

func (w *ProxyWorker) check(d *decoder, wp string, listeners *[]listener) {
	roles := map[string]bool{}
	for _, r := range w.Routes {
		roles[r.Role] = true
	}
	checkTransports(d, wp, w.Transports, routerRoles{w.RoutedRealms(), roles}, listeners, noProxyLogins)
}

// noProxyLogins reports a proxy's client transport that offers the
// methods proxies log in with.
func noProxyLogins(d *decoder, tp string, t Transport) {
	for _, pa := range transportAuths(tp, t) {
		if pa.a.AnonymousProxy || pa.a.CryptosignProxy != nil {
			d.errorf(pa.path, "a proxy worker's clients cannot log in as proxies (anonymous-proxy, cryptosign-proxy): "+
				"those methods belong on the backend router's transport")
		}
	}
}

// pathAuth is an "auth" and its path.
type pathAuth struct {
	path string
	a    Auth
}

// transportAuths returns every "auth" of the transport at tp: its own,
// its universal parts' and its WebSocket paths' at any depth.
func transportAuths(tp string, t Transport) []pathAuth {
	switch t := t.(type) {
	case *WebSocketTransport:
		return []pathAuth{{tp + ".auth", t.Auth}}
	case *RawSocketTransport:
		return []pathAuth{{tp + ".auth", t.Auth}}
	case *MQTTTransport:
		return []pathAuth{{tp + ".options.auth", t.Options.Auth}}
	case *WebTransport:
		return pathsAuths(tp+".paths", t.Paths)
	case *UniversalTransport:
		var out []pathAuth
		if t.RawSocket != nil {
			out = append(out, pathAuth{tp + ".rawsocket.auth", t.RawSocket.Auth})
		}
		for _, k := range sortedKeysOf(t.WebSocket) {
			out = append(out, pathAuth{childPath(tp+".websocket", k) + ".auth", t.WebSocket[k].Auth})
		}
		if t.Web != nil {
			out = append(out, pathsAuths(tp+".web.paths", t.Web.Paths)...)
		}
		return out
	}
	return nil
}

func pathsAuths(pp string, ps Paths) []pathAuth {
	var out []pathAuth
	for _, k := range sortedKeysOf(ps) {
		switch s := ps[k].(type) {
		case *WebSocketService:
			out = append(out, pathAuth{childPath(pp, k) + ".auth", s.Auth})
		case *PathTree:
			out = append(out, pathsAuths(childPath(pp, k)+".paths", s.Paths)...)
		}
	}
	return out
}

// checkProxyLogins reports anonymous-proxy on a router transport that
// does not listen on a Unix socket: anyone who reaches the port could
// name any identity.
func checkProxyLogins(d *decoder, tp string, t Transport) {
	if listenEndpointOf(t).Type == "unix" {
		return
	}
	for _, pa := range transportAuths(tp, t) {
		if pa.a.AnonymousProxy {
			d.errorf(pa.path+".anonymous-proxy", "allowed on a Unix socket transport only: it admits whatever identity "+
				"the connecting proxy names, unchecked; over TCP use cryptosign-proxy (the proxy's node key)")
		}
	}
}
