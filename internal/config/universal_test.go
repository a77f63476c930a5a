package config

import (
	"slices"
	"strings"
	"testing"
)

// universal is a document with one universal transport whose other keys
// are members.
func universal(members string) string {
	return transports(`{"type": "universal", "endpoint": {"type": "tcp", "port": 8080}, ` + members + `}`)
}

// TestUniversalTransport: the parts of a universal transport, as decoded.
func TestUniversalTransport(t *testing.T) {
	c, warns := mustParse(t, universal(`
		"rawsocket": {"serializers": ["cbor", "json"], "options": {"max_message_size": 4096}},
		"websocket": {"ws": {"type": "websocket", "serializers": ["json"]}, "auth_ws": {"auth": {"anonymous": {"type": "static", "role": "anonymous"}}}},
		"web": {"paths": {"/": {"type": "json", "value": 1}}, "options": {"access_log": true}}`))
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	u := c.Workers[0].(*RouterWorker).Transports[0].(*UniversalTransport)
	if u.Endpoint.Port != 8080 {
		t.Errorf("port %d", u.Endpoint.Port)
	}
	if u.RawSocket == nil || !slices.Equal(u.RawSocket.Serializers, []string{"cbor", "json"}) || u.RawSocket.MaxMessageSize != 4096 ||
		u.RawSocket.JoinTimeout != DefaultJoinTimeout {
		t.Errorf("rawsocket %+v", u.RawSocket)
	}
	if len(u.WebSocket) != 2 || !slices.Equal(u.WebSocket["ws"].Serializers, []string{"json"}) ||
		u.WebSocket["auth_ws"].Auth.Anonymous == nil {
		t.Errorf("websocket %+v", u.WebSocket)
	}
	if u.Web == nil || u.Web.Paths["/"] == nil || !u.Web.Options.AccessLog || u.Web.Options.ClientTimeout != DefaultClientTimeout {
		t.Errorf("web %+v", u.Web)
	}
}

// TestUniversalTransportParts: a universal transport needs no part.
func TestUniversalTransportParts(t *testing.T) {
	c, _ := mustParse(t, universal(`"id": "uni1"`))
	u := c.Workers[0].(*RouterWorker).Transports[0].(*UniversalTransport)
	if u.ID != "uni1" || u.RawSocket != nil || u.WebSocket != nil || u.Web != nil {
		t.Errorf("got %+v", u)
	}
}

// TestUniversalTransportErrors: each problem at its path.
func TestUniversalTransportErrors(t *testing.T) {
	const tp = "workers[0].transports[0]"
	tests := []struct {
		name, members, path, msg string
	}{
		{"mqtt without realm", `"mqtt": {"options": {"payload_mapping": {}}}`, tp + ".mqtt.options.realm", "required"},
		{"mqtt without options", `"mqtt": {}`, tp + ".mqtt.options", "required"},
		{"mqtt type", `"mqtt": {"type": "web", "options": {"realm": "realm1", "payload_mapping": {}}}`, tp + ".mqtt.type", `must be "mqtt"`},
		{"unknown key", `"paths": {}`, tp + ".paths", "unknown key"},
		{"rawsocket serializer", `"rawsocket": {"serializers": ["xml"]}`, tp + ".rawsocket.serializers[0]", `unknown serializer "xml"`},
		{"rawsocket type", `"rawsocket": {"type": "websocket"}`, tp + ".rawsocket.type", `must be "rawsocket" (or absent), not "websocket"`},
		{"rawsocket unknown key", `"rawsocket": {"paths": {}}`, tp + ".rawsocket.paths", "unknown key"},
		{"rawsocket not object", `"rawsocket": true`, tp + ".rawsocket", "must be an object"},
		{"websocket not object", `"websocket": []`, tp + ".websocket", "must be an object, not an array"},
		{"websocket key", `"websocket": {"a/b": {}}`, tp + `.websocket["a/b"]`, "must be one URL segment"},
		{"websocket type", `"websocket": {"ws": {"type": "rawsocket"}}`, tp + ".websocket.ws.type", `must be "websocket" (or absent), not "rawsocket"`},
		{"websocket option", `"websocket": {"ws": {"options": {"max_frame_size": -1}}}`, tp + ".websocket.ws.options.max_frame_size", "must be"},
		{"websocket unknown key", `"websocket": {"ws": {"paths": {}}}`, tp + ".websocket.ws.paths", "unknown key"},
		{"web without paths", `"web": {}`, tp + ".web.paths", "required"},
		{"web path type", `"web": {"paths": {"/": {"type": "nope"}}}`, tp + `.web.paths["/"].type`, `unknown path type "nope"`},
		{"web endpoint", `"web": {"paths": {}, "endpoint": {"type": "tcp", "port": 1}}`, tp + ".web.endpoint", "unknown key"},
		{"web option", `"web": {"paths": {}, "options": {"client_timeout": 0}}`, tp + ".web.options.client_timeout", "must be in 1..86400"},
		{"role", `"rawsocket": {"auth": {"anonymous": {"type": "static", "role": "nobody"}}}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns, errs := parseTest(t, universal(tt.members), JSON)
			if tt.path == "" { // a warning: role not defined
				if errs != nil || !strings.Contains(warningsText(warns), tp+".rawsocket.auth.anonymous.role") {
					t.Errorf("errors %v, warnings %v; want a warning at the role", errs, warns)
				}
				return
			}
			if len(errs) != 1 || errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Fatalf("got %v,\nwant one error at %s: ...%s...", errs, tt.path, tt.msg)
			}
		})
	}
}

// TestUniversalTransportListens: a universal endpoint is checked against
// the others like any listener.
func TestUniversalTransportListens(t *testing.T) {
	_, _, errs := parseTest(t, transports(
		`{"type": "universal", "endpoint": {"type": "tcp", "port": 8080}}`,
		`{"type": "flashpolicy", "endpoint": {"type": "tcp", "port": 8080}}`), JSON)
	if len(errs) != 1 || errs[0].Path != "workers[0].transports[1].endpoint" || !strings.Contains(errs[0].Msg, "listens where workers[0].transports[0] does") {
		t.Fatalf("got %v", errs)
	}
}

// TestFlashPolicyTransport: keys and defaults.
func TestFlashPolicyTransport(t *testing.T) {
	tests := []struct {
		name, members, domain string
		ports                 []int
	}{
		{"defaults", ``, "*", nil},
		{"given", `, "allowed_domain": "example.com", "allowed_ports": [8080, 9000]`, "example.com", []int{8080, 9000}},
		{"debug", `, "debug": false`, "*", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, transports(`{"type": "flashpolicy", "endpoint": {"type": "tcp", "port": 843}`+tt.members+`}`))
			f := c.Workers[0].(*RouterWorker).Transports[0].(*FlashPolicyTransport)
			if f.AllowedDomain != tt.domain || !slices.Equal(f.AllowedPorts, tt.ports) || f.Endpoint.Port != 843 {
				t.Errorf("got %+v", f)
			}
		})
	}
}

// TestFlashPolicyTransportErrors: each problem at its path.
func TestFlashPolicyTransportErrors(t *testing.T) {
	const tp = "workers[0].transports[0]"
	tests := []struct {
		name, members, path, msg string
	}{
		{"no endpoint", `"allowed_domain": "*"`, tp + ".endpoint", "required"},
		{"domain type", `"endpoint": {"type": "tcp", "port": 843}, "allowed_domain": 1`, tp + ".allowed_domain", "must be a string"},
		{"domain empty", `"endpoint": {"type": "tcp", "port": 843}, "allowed_domain": ""`, tp + ".allowed_domain", "must not be empty"},
		{"ports type", `"endpoint": {"type": "tcp", "port": 843}, "allowed_ports": 80`, tp + ".allowed_ports", "must be an array"},
		{"port range", `"endpoint": {"type": "tcp", "port": 843}, "allowed_ports": [80, 0]`, tp + ".allowed_ports[1]", "must be in 1..65535, not 0"},
		{"port string", `"endpoint": {"type": "tcp", "port": 843}, "allowed_ports": ["80"]`, tp + ".allowed_ports[0]", "must be an integer"},
		{"unknown key", `"endpoint": {"type": "tcp", "port": 843}, "paths": {}`, tp + ".paths", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, transports(`{"type": "flashpolicy", `+tt.members+`}`), JSON)
			if len(errs) != 1 || errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Fatalf("got %v,\nwant one error at %s: ...%s...", errs, tt.path, tt.msg)
			}
		})
	}
}
