package config

import "slices"

// MQTTTransport is a transport of "type": "mqtt": MQTT 3.1.1 clients, each
// a WAMP session on one realm.
type MQTTTransport struct {
	// ID is "id" (default "").
	ID string
	// Endpoint is "endpoint" (required; tcp or unix, with tls).
	Endpoint ListenEndpoint
	// Options is "options".
	Options MQTTOptions
}

// MQTTOptions are an MQTT transport's "options" (also a universal
// transport's "mqtt.options").
type MQTTOptions struct {
	// Realm is "realm" (required): the realm every session joins.
	Realm string
	// Auth is "auth", as Crossbar 26 has it (21.3.1 refuses the key):
	// username and password as ticket, else a TLS client certificate as
	// tls, anonymous otherwise. Default anonymous with Role.
	Auth Auth
	// Role is "role" (default "anonymous"): the anonymous role when
	// "auth" is not given.
	Role string
	// PayloadMapping is "payload_mapping": WAMP URI prefix -> mapping.
	PayloadMapping map[string]MQTTPayloadMapping
}

// MQTTPayloadMapping is an entry of "payload_mapping".
type MQTTPayloadMapping struct {
	// Type is "type": "native", "dynamic" or "passthrough" (the MQTT
	// payload passes through WAMP untouched, as a passthru payload with
	// enc_algo "mqtt").
	Type string
	// Serializer is "serializer" (native; required): json, msgpack,
	// cbor or ubjson.
	Serializer string
	// Encoder and Decoder are "encoder" and "decoder" (dynamic; required):
	// procedure URIs.
	Encoder, Decoder string
	// Realm is "realm" (dynamic; default the transport's realm): where the
	// encoder and decoder are called.
	Realm string
}

func (t *MQTTTransport) TransportID() string { return t.ID }
func (*MQTTTransport) isTransport()          {}

var _ Transport = (*MQTTTransport)(nil)

func (d *decoder) mqttTransport(o *object) *MQTTTransport {
	t := &MQTTTransport{ID: d.id(o)}
	t.Endpoint = d.listenEndpointAt(o)
	if oo, ok := o.reqChild("options"); ok {
		t.Options = d.mqttOptions(oo)
		oo.done()
	}
	return t
}

// mqttOptions decodes the keys of an MQTT "options".
func (d *decoder) mqttOptions(o *object) MQTTOptions {
	m := MQTTOptions{Realm: o.reqValidStr("realm", looseURI, "invalid realm URI %q"), Role: o.str("role", "anonymous")}
	if o.has("auth") {
		m.Auth = d.auth(o, "auth")
	} else {
		o.get("auth")
		m.Auth = Auth{Anonymous: &AnonymousAuth{Role: m.Role}}
	}
	if !o.has("payload_mapping") {
		o.get("payload_mapping")
		d.warnf(o.at("payload_mapping"), "none given: every MQTT message and event will be refused (no topic has a payload format)")
		return m
	}
	m.PayloadMapping = map[string]MQTTPayloadMapping{}
	o.each("payload_mapping", func(p, prefix string, v any) {
		if mo, ok := d.object(p, v); ok {
			m.PayloadMapping[prefix] = d.mqttPayloadMapping(mo)
			mo.done()
		}
	})
	return m
}

func (d *decoder) mqttPayloadMapping(o *object) MQTTPayloadMapping {
	m := MQTTPayloadMapping{Type: o.reqStr("type")}
	switch m.Type {
	case "native":
		m.Serializer = o.reqStr("serializer")
		if m.Serializer != "" && !slices.Contains(Serializers, m.Serializer) {
			d.errorf(o.at("serializer"), "unknown serializer %q (want json, msgpack, cbor, ubjson)", m.Serializer)
		}
	case "dynamic":
		m.Encoder = o.reqValidStr("encoder", looseURI, "invalid procedure URI %q")
		m.Decoder = o.reqValidStr("decoder", looseURI, "invalid procedure URI %q")
		m.Realm = o.validStr("realm", "", emptyOr(looseURI), "invalid realm URI %q")
	case "passthrough": // the MQTT payload as a WAMP passthru payload: no other key
	case "":
	default:
		d.errorf(o.at("type"), "unknown payload type %q (want native, dynamic, passthrough)", m.Type)
		o.skip()
	}
	return m
}
