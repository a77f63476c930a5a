package config

import (
	"reflect"
	"testing"
)

// testee is a document with one websocket-testee worker whose transport
// has the given extra members.
func testee(members string) string {
	if members != "" {
		members = ", " + members
	}
	return top(`{"type": "websocket-testee", "transport": {"type": "websocket",
		"endpoint": {"type": "tcp", "port": 9000}` + members + `}}`)
}

const tt0 = "workers[0].transport"

var testeeRuleTests = []ruleTest{
	{"testee without transport", top(`{"type": "websocket-testee"}`), w0 + ".transport", "required"},
	{"testee transport not object", top(`{"type": "websocket-testee", "transport": []}`), w0 + ".transport", "must be an object"},
	{"testee unknown key", top(`{"type": "websocket-testee", "transport": {"endpoint": {"type": "tcp", "port": 9000}}, "realms": []}`),
		w0 + ".realms", "unknown key"},
	{"testee without endpoint", top(`{"type": "websocket-testee", "transport": {"type": "websocket"}}`), tt0 + ".endpoint", "required"},
	{"testee bad endpoint", testee(`"endpoint": {"type": "tcp", "port": 70000}`), tt0 + ".endpoint.port", "65535"},
	{"testee bad id", top(`{"type": "websocket-testee", "id": "A", "transport": {"endpoint": {"type": "tcp", "port": 9000}}}`),
		w0 + ".id", "invalid id"},
	{"testee transport unknown key", testee(`"paths": {}`), tt0 + ".paths", "unknown key"},
	{"testee compression", testee(`"options": {"compression": {"deflate": {}}}`), tt0 + ".options.compression",
		"the websocket-testee echoes uncompressed"},
	{"testee max_message_size type", testee(`"options": {"max_message_size": "big"}`), tt0 + ".options.max_message_size", "must be an integer"},
	{"testee unknown option", testee(`"options": {"max_mesage_size": 10}`), tt0 + ".options.max_mesage_size", `did you mean "max_message_size"?`},
	{"testee worker option", top(`{"type": "websocket-testee", "options": {"titel": "x"}, "transport": {"endpoint": {"type": "tcp", "port": 9000}}}`),
		w0 + ".options.titel", `did you mean "title"?`},
	{"testee port taken", top(router(`"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 9000}}]`),
		`{"type": "websocket-testee", "transport": {"endpoint": {"type": "tcp", "port": 9000}}}`),
		"workers[1].transport.endpoint", "listens where workers[0].transports[0] does"},
	{"testees on a shared port", top(`{"type": "websocket-testee", "transport": {"endpoint": {"type": "tcp", "port": 9000, "shared": true}}}`,
		`{"type": "websocket-testee", "transport": {"endpoint": {"type": "tcp", "port": 9000, "shared": true}}}`),
		"workers[1].transport.endpoint", "Junction runs one websocket-testee per port"},
	{"testee and router on a shared port", top(router(`"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 9000, "shared": true}}]`),
		`{"type": "websocket-testee", "transport": {"endpoint": {"type": "tcp", "port": 9000, "shared": true}}}`),
		"workers[1].transport.endpoint", "listens where workers[0].transports[0] does"},
	{"router after a testee on a shared port", top(`{"type": "websocket-testee", "transport": {"endpoint": {"type": "tcp", "port": 9000, "shared": true}}}`,
		router(`"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 9000, "shared": true}}]`)),
		"workers[1].transports[0].endpoint", "listens where workers[0].transport does"},
}

var testeeWarningTests = []ruleTest{
	{"testee plain", testee(""), "", ""},
	{"testee max_message_size", testee(`"options": {"max_message_size": 1000}`), "", ""},
	{"testee max_message_size 0", testee(`"options": {"max_message_size": 0}`), tt0 + ".options.max_message_size", "the testee's default limit here (16777216 bytes)"},
	{"testee other option", testee(`"options": {"auto_ping_interval": 1000}`), tt0 + ".options.auto_ping_interval", "applies only max_message_size"},
	{"testee url", testee(`"url": "ws://localhost:9000"`), tt0 + ".url", "serves every URL path"},
	{"testee serializers", testee(`"serializers": ["json"]`), tt0 + ".serializers", "speaks no WAMP"},
	{"testee auth", testee(`"auth": {"anonymous": {"type": "static", "role": "x"}}`), tt0 + ".auth", "speaks no WAMP"},
	{"testee type", top(`{"type": "websocket-testee", "transport": {"type": "rawsocket", "endpoint": {"type": "tcp", "port": 9000}}}`),
		tt0 + ".type", `always a WebSocket transport, not "rawsocket"`},
	{"testee disabled on a taken port", top(`{"type": "websocket-testee", "transport": {"endpoint": {"type": "tcp", "port": 9000}}}`,
		`{"type": "websocket-testee", "options": {"disabled": true}, "transport": {"endpoint": {"type": "tcp", "port": 9000}}}`), "", ""},
	{"testee python", top(`{"type": "websocket-testee", "options": {"python": "python3.11"}, "transport": {"endpoint": {"type": "tcp", "port": 9000}}}`),
		w0 + ".options.python", "no Python component"},
}

// TestTesteeWorker: a websocket-testee worker as Crossbar's test nodes
// write it decodes with its endpoint and message limit.
func TestTesteeWorker(t *testing.T) {
	c, _ := mustParse(t, top(`{"id": "wstestee1", "type": "websocket-testee",
		"transport": {"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 9000, "shared": true, "backlog": 500},
			"options": {"max_message_size": 1048576}},
		"options": {"title": "Crossbar.io WebSocket Testee 1/2", "cpu_affinity": [0]}}`,
		`{"type": "websocket-testee", "options": {"disabled": true}, "transport": {"endpoint": {"type": "unix", "path": "t.sock"}}}`))
	w, ok := c.Workers[0].(*TesteeWorker)
	if !ok {
		t.Fatalf("worker is %T, want *TesteeWorker", c.Workers[0])
	}
	want := TesteeTransport{Endpoint: ListenEndpoint{Type: "tcp", Interface: "127.0.0.1", Port: 9000, Shared: true, Backlog: 500, Version: 4},
		MaxMessageSize: 1 << 20}
	if w.ID != "wstestee1" || !reflect.DeepEqual(w.Transport.Endpoint, want.Endpoint) || w.Transport.MaxMessageSize != want.MaxMessageSize {
		t.Errorf("got %q %+v, want wstestee1 %+v", w.ID, w.Transport, want)
	}
	w1 := c.Workers[1].(*TesteeWorker)
	if !w1.Options.Disabled || w1.Transport.MaxMessageSize != DefaultTesteeMaxMessageSize || w1.Transport.Endpoint.Path != "t.sock" {
		t.Errorf("second worker: %+v, want disabled with the default limit on t.sock", w1)
	}
}
