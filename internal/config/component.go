package config

import (
	"slices"
	"strings"
)

// Bridge component classes: the class components Junction has built in.
// Crossbar's older names for them are accepted too (see BridgeClass).
const (
	// ClassRESTCallee registers a procedure that calls an HTTP API.
	ClassRESTCallee = "router.adapter.rest.RESTCallee"
	// ClassMessageForwarder subscribes to topics and POSTs each event to a
	// URL.
	ClassMessageForwarder = "router.adapter.rest.MessageForwarder"
)

// bridgeClasses maps each accepted classname to its Class constant.
var bridgeClasses = map[string]string{
	ClassRESTCallee:                          ClassRESTCallee,
	ClassMessageForwarder:                    ClassMessageForwarder,
	"crossbar.bridge.rest.RESTCallee":        ClassRESTCallee,
	"crossbar.bridge.rest.MessageForwarder":  ClassMessageForwarder,
	"crossbar.adapter.rest.RESTCallee":       ClassRESTCallee,
	"crossbar.adapter.rest.MessageForwarder": ClassMessageForwarder,
}

// BridgeClass returns the Class constant for a classname, and whether it
// is one of the built-in bridge classes.
func BridgeClass(classname string) (string, bool) {
	c, ok := bridgeClasses[classname]
	return c, ok
}

// DefaultComponentRole is a router component's "role" when not given:
// Crossbar's.
const DefaultComponentRole = "anonymous"

// Component is an item of a worker's "components", of "type": "class".
type Component struct {
	// ID is "id" (default "").
	ID string
	// Classname is "classname" (required), as written: one of the bridge
	// classes (see BridgeClass), or a Python class ("package.module.Class",
	// an autobahn.twisted.wamp.ApplicationSession) that the worker's Python
	// runner imports.
	Classname string
	// Class is the bridge class Classname names: ClassRESTCallee or
	// ClassMessageForwarder; "" for a Python class.
	Class string
	// Realm is "realm" (required): the realm the component joins.
	Realm string
	// Role is "role" (router components only): the authrole the component
	// joins with (default DefaultComponentRole, as in Crossbar).
	Role string
	// RESTCallee is "extra" of a ClassRESTCallee component (nil for the
	// other classes).
	RESTCallee *RESTCalleeExtra
	// MessageForwarder is "extra" of a ClassMessageForwarder component
	// (nil for the other classes).
	MessageForwarder *MessageForwarderExtra
	// Extra is "extra" of a Python class (default empty; nil for the
	// bridge classes): an object handed to the component as
	// config.extra, with each string that is exactly "${NAME}" at any
	// depth substituted.
	Extra map[string]any
	// Transport is "transport" (container components only, required): how
	// the component reaches the router.
	Transport *ComponentTransport
}

// ComponentTransport is a container component's "transport".
type ComponentTransport struct {
	// Type is "type": "websocket" or "rawsocket" (required).
	Type string
	// Endpoint is "endpoint" (required).
	Endpoint ConnectEndpoint
	// URL is "url" (websocket, required): the ws:// or wss:// URL, which
	// gives the Host header and the path.
	URL string
	// Serializers is "serializers" (websocket), or "serializer" (rawsocket,
	// one name): the serializers offered (default all).
	Serializers []string
	// Options is "options" (websocket).
	Options WebSocketOptions
	// MaxMessageSize is "options.max_message_size" (rawsocket): the largest
	// message accepted, 512..16777216 (default 1048576).
	MaxMessageSize int
}

// component decodes an item of "components"; inContainer says which worker
// holds it.
func (d *decoder) component(path string, v any, inContainer bool) *Component {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	var c *Component
	switch t := o.reqStr("type"); t {
	case "class":
		c = d.classComponent(o, inContainer)
	case "function":
		d.errorf(o.at("type"), "not supported: function components run Python code")
		o.skip()
	case "":
		o.skip()
	default:
		d.errorf(o.at("type"), "unknown component type %q (want class)", t)
		o.skip()
	}
	o.done()
	return c
}

func (d *decoder) classComponent(o *object, inContainer bool) *Component {
	c := &Component{ID: d.id(o), Classname: o.reqStr("classname"), Realm: o.reqStr("realm")}
	c.Class, _ = BridgeClass(c.Classname)
	if c.Classname != "" && c.Class == "" && !pythonClassname(c.Classname) {
		d.errorf(o.at("classname"), "invalid Python class name %q (want package.module.Class)", c.Classname)
	}
	d.realmRef(o, c.Realm)
	if c.Class != "" {
		d.componentExtra(o, c)
	} else {
		c.Extra = d.pythonObject(o, "extra")
	}
	if inContainer {
		c.Transport = d.componentTransportAt(o)
	} else {
		c.Role = o.str("role", DefaultComponentRole)
		o.ignored("references", ": no component references")
	}
	return c
}

// Python reports whether c is a Python class component (run by its
// worker's Python runner), not a built-in bridge class.
func (c *Component) Python() bool { return c.Class == "" && c.Classname != "" }

// pythonClassname reports whether s names a class in a module, as
// Crossbar imports it: dotted Python identifiers, at least two.
func pythonClassname(s string) bool {
	parts := strings.Split(s, ".")
	return len(parts) >= 2 && !slices.ContainsFunc(parts, func(p string) bool { return !pythonIdentifier(p) })
}

// pythonIdentifier reports whether s is an ASCII Python identifier.
func pythonIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// pythonObject decodes an object at key k that Python code gets as a
// dict (a Python class's "extra": Crossbar asserts a dict; a function
// authenticator's "config"): any object, "${NAME}" substituted in every
// string at any depth; {} when absent.
func (d *decoder) pythonObject(o *object, k string) map[string]any {
	v, ok := o.get(k)
	if !ok {
		return map[string]any{}
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		d.errorf(o.at(k), "must be an object, not %s", kind(v))
		return nil
	}
	d.resolveDeep(o.at(k), m)
	return m
}

func (d *decoder) realmRef(o *object, realm string) {
	if realm != "" && !looseURI(realm) {
		d.errorf(o.at("realm"), "invalid realm URI %q", realm)
	}
}

func (d *decoder) componentTransportAt(o *object) *ComponentTransport {
	to, ok := o.reqChild("transport")
	if !ok {
		return nil
	}
	t := &ComponentTransport{Options: defaultWebSocketOptions(), MaxMessageSize: 1 << 20}
	switch t.Type = to.reqStr("type"); t.Type {
	case "websocket":
		d.componentWebSocket(to, t)
	case "rawsocket":
		d.componentRawSocket(to, t)
	case "":
		to.skip()
	default:
		d.errorf(to.at("type"), "unknown component transport type %q (want websocket, rawsocket)", t.Type)
		to.skip()
	}
	to.done()
	return t
}

func (d *decoder) connectEndpointAt(o *object) ConnectEndpoint {
	v, ok := o.get("endpoint")
	if !ok {
		o.required("endpoint")
		return ConnectEndpoint{}
	}
	return d.connectEndpoint(o.at("endpoint"), v)
}

func (d *decoder) componentWebSocket(o *object, t *ComponentTransport) {
	d.webSocketTarget(o, t)
	t.Serializers = d.serializers(o)
	t.Options = d.webSocketOptions(o, true)
}

// webSocketTarget decodes the "id", "endpoint" and "url" of a connecting
// WebSocket transport.
func (d *decoder) webSocketTarget(o *object, t *ComponentTransport) {
	d.id(o)
	t.Endpoint = d.connectEndpointAt(o)
	t.URL = o.reqStr("url")
	if t.URL != "" && !webSocketURL(t.URL) {
		d.errorf(o.at("url"), "invalid WebSocket URL %q (want ws://host[:port]/path or wss://...)", t.URL)
	}
	if strings.HasPrefix(strings.ToLower(t.URL), "wss:") && t.Endpoint.TLS == nil {
		const used = "wss:// with an endpoint without \"tls\": TLS is still used, verified against the system's root certificates"
		switch t.Endpoint.Type {
		case "tcp":
			d.warnf(o.at("url"), "%s (give the endpoint \"tls\" to choose the CA or hostname)", used)
		case "unix":
			d.warnf(o.at("url"), "%s, over the Unix socket (use ws://, or a TCP endpoint with \"tls\" to choose the CA or hostname)", used)
		}
	}
}

func (d *decoder) componentRawSocket(o *object, t *ComponentTransport) {
	d.id(o)
	t.Endpoint = d.connectEndpointAt(o)
	d.rawSocketURL(o)
	o.ignored("debug", ": use --loglevel debug")
	if s := o.str("serializer", ""); s != "" {
		if !slices.Contains(Serializers, s) {
			d.errorf(o.at("serializer"), "unknown serializer %q (want json, msgpack, cbor, ubjson)", s)
		}
		t.Serializers = []string{s}
	} else {
		t.Serializers = d.serializers(o)
	}
	if v, ok := o.get("options"); ok {
		if oo, ok := d.object(o.at("options"), v); ok {
			t.MaxMessageSize = int(oo.integer("max_message_size", 1<<20, 512, 1<<24))
			oo.done()
		}
	}
}
