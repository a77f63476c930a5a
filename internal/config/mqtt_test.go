package config

import (
	"reflect"
	"testing"
)

// mqttDoc is a document with one MQTT transport whose options are opts.
func mqttDoc(opts string) string {
	return transports(`{"type": "mqtt", "endpoint": {"type": "tcp", "port": 1883}, "options": ` + opts + `}`)
}

// TestMQTTOptions: what the options decode to.
func TestMQTTOptions(t *testing.T) {
	tests := []struct {
		name, opts string
		want       MQTTOptions
	}{
		{"native", `{"realm": "realm1", "role": "anonymous", "payload_mapping": {"": {"type": "native", "serializer": "cbor"}}}`,
			MQTTOptions{Realm: "realm1", Role: "anonymous", Auth: Auth{Anonymous: &AnonymousAuth{Role: "anonymous"}},
				PayloadMapping: map[string]MQTTPayloadMapping{"": {Type: "native", Serializer: "cbor"}}}},
		{"dynamic", `{"realm": "realm1", "payload_mapping": {"com.": {"type": "dynamic", "realm": "codec", "encoder": "e.enc", "decoder": "e.dec"}}}`,
			MQTTOptions{Realm: "realm1", Role: "anonymous", Auth: Auth{Anonymous: &AnonymousAuth{Role: "anonymous"}},
				PayloadMapping: map[string]MQTTPayloadMapping{"com.": {Type: "dynamic", Realm: "codec", Encoder: "e.enc", Decoder: "e.dec"}}}},
		{"role", `{"realm": "realm1", "role": "device", "payload_mapping": {}}`,
			MQTTOptions{Realm: "realm1", Role: "device", Auth: Auth{Anonymous: &AnonymousAuth{Role: "device"}},
				PayloadMapping: map[string]MQTTPayloadMapping{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, mqttDoc(tt.opts))
			m, ok := c.Workers[0].(*RouterWorker).Transports[0].(*MQTTTransport)
			if !ok {
				t.Fatalf("not an *MQTTTransport")
			}
			if !reflect.DeepEqual(m.Options, tt.want) {
				t.Errorf("options %+v, want %+v", m.Options, tt.want)
			}
		})
	}
}

func TestMQTTAuthTicket(t *testing.T) {
	c, _ := mustParse(t, mqttDoc(`{"realm": "realm1", "payload_mapping": {}, "auth": {"ticket": {"type": "static", "principals": {"u": {"ticket": "pw", "role": "anonymous"}}}}}`))
	m := c.Workers[0].(*RouterWorker).Transports[0].(*MQTTTransport)
	if m.Options.Auth.Ticket == nil || m.Options.Auth.Anonymous != nil {
		t.Fatalf("auth %+v", m.Options.Auth)
	}
}

// TestMQTTPassthrough: the payload type passthrough is accepted alone.
func TestMQTTPassthrough(t *testing.T) {
	c, _ := mustParse(t, mqttDoc(`{"realm": "realm1", "payload_mapping": {"": {"type": "passthrough"}}}`))
	m := c.Workers[0].(*RouterWorker).Transports[0].(*MQTTTransport)
	if pm := m.Options.PayloadMapping[""]; pm != (MQTTPayloadMapping{Type: "passthrough"}) {
		t.Fatalf("mapping %+v", pm)
	}
}

// TestMQTTChecks: each rule, at its path.
func TestMQTTChecks(t *testing.T) {
	const o = t0 + ".options"
	tests := []struct {
		name, opts, path, msg string
		warning               bool
	}{
		{"no realm", `{"payload_mapping": {}}`, o + ".realm", "required", false},
		{"bad realm", `{"realm": "a b", "payload_mapping": {}}`, o + ".realm", "invalid realm URI", false},
		{"unknown key", `{"realm": "realm1", "payload_mapping": {}, "qos": 2}`, o + ".qos", "unknown key", false},
		{"passthrough with a serializer", `{"realm": "realm1", "payload_mapping": {"": {"type": "passthrough", "serializer": "json"}}}`, o + `.payload_mapping[""].serializer`, "unknown key", false},
		{"unknown type", `{"realm": "realm1", "payload_mapping": {"": {"type": "xml"}}}`, o + `.payload_mapping[""].type`, "unknown payload type", false},
		{"no serializer", `{"realm": "realm1", "payload_mapping": {"": {"type": "native"}}}`, o + `.payload_mapping[""].serializer`, "required", false},
		{"bad serializer", `{"realm": "realm1", "payload_mapping": {"": {"type": "native", "serializer": "xml"}}}`, o + `.payload_mapping[""].serializer`, "unknown serializer", false},
		{"no decoder", `{"realm": "realm1", "payload_mapping": {"": {"type": "dynamic", "encoder": "a.b"}}}`, o + `.payload_mapping[""].decoder`, "required", false},
		{"no mapping", `{"realm": "realm1"}`, o + ".payload_mapping", "every MQTT message and event will be refused", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantProblem(t, mqttDoc(tt.opts), tt.path, tt.msg, tt.warning)
		})
	}
	if _, _, errs := parseTest(t, transports(`{"type": "mqtt", "endpoint": {"type": "tcp", "port": 1883}}`), JSON); len(errs) != 1 || errs[0].Path != t0+".options" {
		t.Errorf("no options: %v", errs)
	}
}
