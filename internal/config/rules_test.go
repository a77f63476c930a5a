package config

import (
	"slices"
	"strings"
	"testing"
)

const (
	w0   = "workers[0]"
	t0   = "workers[0].transports[0]"
	ws   = "workers[0].transports[0].paths.ws"
	ep   = "workers[0].transports[0].endpoint"
	r0   = "workers[0].realms[0]"
	c0   = "workers[0].components[0]"
	ctr0 = "workers[0].components[0].transport"
)

// ruleTest is a configuration fragment, with the path and a substring of
// the one error (or warning) it must give.
type ruleTest struct{ name, doc, path, msg string }

// ruleTests are one configuration fragment per rule, with the path and a
// substring of the one error it must give.
var ruleTests = []ruleTest{
	// Top level.
	{"not an object", `[]`, "", "must be an object, not an array"},
	{"version missing", `{"workers": []}`, "version", "required"},
	{"version 1", `{"version": 1}`, "version", `configuration too old (version 1): upgrade it with "crossbar upgrade" (Junction reads version 2)`},
	{"version 3", `{"version": 3}`, "version", "unknown configuration version 3"},
	{"version string", `{"version": "2"}`, "version", "must be an integer, not a string"},
	{"version float", `{"version": 2.5}`, "version", `must be an integer, not "2.5"`},
	{"unknown top key", `{"version": 2, "worker": []}`, "worker", `unknown key (did you mean "workers"?)`},
	{"unknown top key far", `{"version": 2, "zzzzzzzz": 1}`, "zzzzzzzz", "unknown key"},
	{"workers not array", `{"version": 2, "workers": {}}`, "workers", "must be an array, not an object"},
	{"controller fabric", `{"version": 2, "controller": {"fabric": {}}}`, "controller.fabric", "not supported"},
	{"controller unknown", `{"version": 2, "controller": {"optoins": {}}}`, "controller.optoins", `did you mean "options"?`},
	{"controller shutdown", `{"version": 2, "controller": {"options": {"shutdown": ["never"]}}}`, "controller.options.shutdown[0]", `unknown shutdown mode "never"`},
	{"controller shutdown string", `{"version": 2, "controller": {"options": {"shutdown": "never"}}}`, "controller.options.shutdown", `unknown shutdown mode "never"`},
	{"controller shutdown type", `{"version": 2, "controller": {"options": {"shutdown": 1}}}`, "controller.options.shutdown", "must be an array"},

	// Workers.
	{"worker type missing", top(`{}`), w0 + ".type", "required"},
	{"worker type unknown", top(`{"type": "routr"}`), w0 + ".type", `unknown worker type "routr" (want router, container, guest, proxy, websocket-testee)`},
	{"worker id", top(`{"type": "router", "id": "R1"}`), w0 + ".id", `invalid id "R1"`},
	{"router unknown key", top(router(`"transport": []`)), w0 + ".transport", `did you mean "transports"?`},
	{"router option unknown", top(router(`"options": {"titel": "x"}`)), w0 + ".options.titel", `did you mean "title"?`},
	{"router option type", top(router(`"options": {"disabled": "yes"}`)), w0 + ".options.disabled", "must be a boolean, not a string"},
	{"container shutdown", top(`{"type": "container", "options": {"shutdown": "never"}}`), w0 + ".options.shutdown", `unknown shutdown mode "never"`},
	{"container restart", top(`{"type": "container", "options": {"restart": 1}}`), w0 + ".options.restart", "must be a string"},
	{"container restart unknown", top(`{"type": "container", "options": {"restart": "restart-failed"}}`), w0 + ".options.restart", `unknown restart mode "restart-failed"`},
	{"restart always, shutdown any stopped", pyContainer(`"restart": "restart-always", "shutdown": "shutdown-on-any-component-stopped"`), w0 + ".options.restart",
		`"restart-always" cannot go with shutdown mode "shutdown-on-any-component-stopped"`},
	{"restart always, shutdown any failed", pyContainer(`"restart": "restart-always", "shutdown": "shutdown-on-any-component-failed"`), w0 + ".options.restart", "cannot go with"},
	{"restart always, shutdown last", pyContainer(`"restart": "restart-always", "shutdown": "shutdown-on-last-component-stopped"`), w0 + ".options.restart", "cannot go with"},
	{"restart on failed, shutdown any failed", pyContainer(`"restart": "restart-on-failed", "shutdown": "shutdown-on-any-component-failed"`), w0 + ".options.restart", "cannot go with"},
	{"python relative", top(router(`"options": {"python": "venv/bin/python"}`)), w0 + ".options.python", `must be an absolute path or a command name looked up on PATH, not "venv/bin/python"`},
	{"python empty", top(router(`"options": {"python": ""}`)), w0 + ".options.python", `not ""`},
	{"python type", top(router(`"options": {"python": 3}`)), w0 + ".options.python", "must be a string"},
	{"pythonpath type", top(router(`"options": {"pythonpath": ".."}`)), w0 + ".options.pythonpath", "must be an array"},
	{"pythonpath item", top(router(`"options": {"pythonpath": [1]}`)), w0 + ".options.pythonpath[0]", "must be a string"},
	{"env type", top(router(`"options": {"env": []}`)), w0 + ".options.env", "must be an object"},
	{"env unknown key", top(router(`"options": {"env": {"var": {}}}`)), w0 + ".options.env.var", `did you mean "vars"?`},
	{"env inherit type", top(router(`"options": {"env": {"inherit": "yes"}}`)), w0 + ".options.env.inherit", "must be a boolean, not a string"},
	{"env inherit item", top(router(`"options": {"env": {"inherit": [1]}}`)), w0 + ".options.env.inherit[0]", "must be a string"},
	{"env vars value", top(router(`"options": {"env": {"vars": {"A": 1}}}`)), w0 + ".options.env.vars.A", "must be a string"},
	{"env vars name", top(router(`"options": {"env": {"vars": {"A=B": "1"}}}`)), w0 + ".options.env.vars", `invalid environment variable name "A=B"`},
	{"duplicate worker id", top(router(`"id": "router1"`), router(`"id": "router1"`)), "workers[1].id", `duplicate worker id "router1"`},

	// Realms and roles.
	{"realm name missing", top(`{"type": "router", "realms": [{}]}`), r0 + ".name", "required"},
	{"realm name invalid", top(`{"type": "router", "realms": [{"name": "a..b"}]}`), r0 + ".name", `invalid realm URI "a..b"`},
	{"store type missing", storeDoc(`{}`), r0 + ".store.type", "required"},
	{"store type", storeDoc(`{"type": "lmdb"}`), r0 + ".store.type", `unknown store type "lmdb" (want "memory")`},
	{"store limit", storeDoc(`{"type": "memory", "limit": 0}`), r0 + ".store.limit", "must be in 1..2147483647, not 0"},
	{"store unknown key", storeDoc(`{"type": "memory", "event_history": []}`), r0 + ".store.event_history", `did you mean "event-history"?`},
	{"event-history not a list", storeDoc(`{"type": "memory", "event-history": {}}`), r0 + ".store.event-history", "must be an array"},
	{"event-history uri missing", storeDoc(`{"type": "memory", "event-history": [{}]}`), r0 + ".store.event-history[0].uri", "required"},
	{"event-history uri", storeDoc(`{"type": "memory", "event-history": [{"uri": "a..b"}]}`), r0 + ".store.event-history[0].uri", `invalid URI "a..b" for match exact`},
	{"event-history empty uri", storeDoc(`{"type": "memory", "event-history": [{"uri": ""}]}`), r0 + ".store.event-history[0].uri", `invalid URI "" for match exact`},
	{"event-history match", storeDoc(`{"type": "memory", "event-history": [{"uri": "a", "match": "regex"}]}`), r0 + ".store.event-history[0].match", `unknown match policy "regex"`},
	{"event-history limit", storeDoc(`{"type": "memory", "event-history": [{"uri": "a", "limit": -1}]}`), r0 + ".store.event-history[0].limit", "must be in 1..2147483647, not -1"},
	{"stats without trigger", statsDoc(`{"trigger_on_join": true}`), r0 + ".stats", "one of trigger_after_rated_messages and trigger_after_duration must be > 0"},
	{"stats odd rated size", statsDoc(`{"rated_message_size": 511, "trigger_after_duration": 1}`), r0 + ".stats.rated_message_size", "must be even, not 511"},
	{"stats rated size", statsDoc(`{"rated_message_size": 0, "trigger_after_duration": 1}`), r0 + ".stats.rated_message_size", "must be in 2..2147483647, not 0"},
	{"stats negative trigger", statsDoc(`{"trigger_after_rated_messages": -1, "trigger_after_duration": 1}`), r0 + ".stats.trigger_after_rated_messages", "must be in 0..2147483647, not -1"},
	{"stats duration type", statsDoc(`{"trigger_after_rated_messages": 1, "trigger_after_duration": "10s"}`), r0 + ".stats.trigger_after_duration", "must be an integer"},
	{"stats on_join type", statsDoc(`{"trigger_after_duration": 1, "trigger_on_join": 1}`), r0 + ".stats.trigger_on_join", "must be a boolean"},
	{"stats unknown key", statsDoc(`{"trigger_after_duration": 1, "trigger_on_joins": true}`), r0 + ".stats.trigger_on_joins", `did you mean "trigger_on_join"?`},
	{"realm unknown key", top(`{"type": "router", "realms": [{"name": "r", "role": []}]}`), r0 + ".role", `did you mean "roles"?`},
	{"uri_check", top(`{"type": "router", "realms": [{"name": "r", "options": {"uri_check": "lax"}}]}`), r0 + ".options.uri_check", `unknown URI check "lax" (want strict, loose)`},
	{"chunk size", top(`{"type": "router", "realms": [{"name": "r", "options": {"event_dispatching_chunk_size": 0}}]}`), r0 + ".options.event_dispatching_chunk_size", "must be in 1..2147483647, not 0"},
	{"limits not an object", limitsDoc(`[]`), limitsPath, "must be an object, not an array"},
	{"limits unknown key", limitsDoc(`{"subscriptions_per_sesion": 5}`), limitsPath + ".subscriptions_per_sesion", `did you mean "subscriptions_per_session"?`},
	{"limit zero", limitsDoc(`{"subscriptions_per_session": 0}`), limitsPath + ".subscriptions_per_session", "must be -1 (no limit) or >= 1, not 0"},
	{"limit below -1", limitsDoc(`{"retained_bytes_per_realm": -2}`), limitsPath + ".retained_bytes_per_realm", "must be -1 (no limit) or >= 1, not -2"},
	{"limit string", limitsDoc(`{"testaments_per_session": "10"}`), limitsPath + ".testaments_per_session", "must be an integer, not a string"},
	{"limit fraction", limitsDoc(`{"testament_bytes_per_session": 1.5}`), limitsPath + ".testament_bytes_per_session", `must be an integer, not "1.5"`},
	{"limit env not a number", limitsDoc(`{"calls_in_flight_per_session": "${NOT_A_NUMBER}"}`), limitsPath + ".calls_in_flight_per_session", `must be an integer, not "eighty"`},
	{"duplicate realm", top(`{"type": "router", "realms": [{"name": "r"}, {"name": "r"}]}`), w0 + ".realms[1].name", `duplicate realm "r"`},
	{"role name missing", top(`{"type": "router", "realms": [{"name": "r", "roles": [{}]}]}`), r0 + ".roles[0].name", "required"},
	{"role trusted", top(`{"type": "router", "realms": [{"name": "r", "roles": [{"name": "trusted"}]}]}`), r0 + ".roles[0].name", "reserved"},
	{"role authorizer and permissions", role(`"authorizer": "com.auth", "permissions": []`), r0 + ".roles[0].authorizer", `not with "permissions"`},
	{"role authorizer URI", role(`"authorizer": "com..auth"`), r0 + ".roles[0].authorizer", `invalid procedure URI "com..auth"`},
	{"role authorizer type", role(`"authorizer": true`), r0 + ".roles[0].authorizer", "must be a string, not a boolean"},
	{"role authorizer timeout", role(`"authorizer": "com.auth", "authorizer-timeout": 0`), r0 + ".roles[0].authorizer-timeout", "must be in 1..2147483647, not 0"},
	{"role authorizer timeout type", role(`"authorizer": "com.auth", "authorizer-timeout": "5s"`), r0 + ".roles[0].authorizer-timeout", "must be an integer, not a string"},
	{"duplicate role", top(`{"type": "router", "realms": [{"name": "r", "roles": [{"name": "x"}, {"name": "x"}]}]}`), r0 + ".roles[1].name", `duplicate role "x"`},
	{"allow-by-default type", top(`{"type": "router", "realms": [{"name": "r", "roles": [{"name": "x", "allow-by-default": 1}]}]}`), r0 + ".roles[0].allow-by-default", "must be a boolean"},

	// Permissions.
	{"permission uri missing", perm(`{"allow": {"call": true}}`), p0 + ".uri", "required"},
	{"permission match", perm(`{"uri": "a", "match": "regex"}`), p0 + ".match", `unknown match policy "regex" (want exact, prefix, wildcard)`},
	{"permission bad uri", perm(`{"uri": "a b", "match": "exact"}`), p0 + ".uri", `invalid URI "a b" for match exact`},
	{"permission empty component", perm(`{"uri": "a..b"}`), p0 + ".uri", `invalid URI "a..b" for match exact`},
	{"permission allow key", perm(`{"uri": "a", "allow": {"cal": true}}`), p0 + ".allow.cal", `did you mean "call"?`},
	{"permission allow type", perm(`{"uri": "a", "allow": {"call": "yes"}}`), p0 + ".allow.call", "must be a boolean"},
	{"permission disclose key", perm(`{"uri": "a", "disclose": {"callee": true}}`), p0 + ".disclose.callee", `did you mean "caller"?`},

	// Transports.
	{"transport type missing", transports(`{}`), t0 + ".type", "required"},
	{"transport mqtt without options", transports(`{"type": "mqtt", "endpoint": {"type": "tcp", "port": 1883}}`), t0 + ".options", "required"},
	{"transport unknown type", transports(`{"type": "webs"}`), t0 + ".type", `unknown transport type "webs" (want web, websocket, rawsocket, universal, flashpolicy)`},
	{"web endpoint missing", transports(`{"type": "web", "paths": {}}`), t0 + ".endpoint", "required"},
	{"web paths missing", transports(`{"type": "web", "endpoint": {"type": "tcp", "port": 80}}`), t0 + ".paths", "required"},
	{"web option unknown", transports(`{"type": "web", "endpoint": {"type": "tcp", "port": 80}, "paths": {}, "options": {"hsts_maxage": 1}}`), t0 + ".options.hsts_maxage", `did you mean "hsts_max_age"?`},
	{"web hsts_max_age", transports(`{"type": "web", "endpoint": {"type": "tcp", "port": 80}, "paths": {}, "options": {"hsts_max_age": -1}}`), t0 + ".options.hsts_max_age", "must be in 0..2147483647, not -1"},
	{"web client_timeout", transports(`{"type": "web", "endpoint": {"type": "tcp", "port": 80}, "paths": {}, "options": {"client_timeout": 86401}}`), t0 + ".options.client_timeout", "must be in 1..86400, not 86401"},
	{"websocket endpoint missing", transports(`{"type": "websocket"}`), t0 + ".endpoint", "required"},
	{"rawsocket max_message_size", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, "options": {"max_message_size": 100}}`), t0 + ".options.max_message_size", "must be in 512..16777216, not 100"},
	{"rawsocket option unknown", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, "options": {"max_msg_size": 1000}}`), t0 + ".options.max_msg_size", "unknown key"},
	{"serializer unknown", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, "serializers": ["json", "xml"]}`), t0 + ".serializers[1]", `unknown serializer "xml" (want json, msgpack, cbor, ubjson)`},
	{"serializer duplicate", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, "serializers": ["json", "json"]}`), t0 + ".serializers[1]", `duplicate serializer "json"`},
	{"serializers empty", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, "serializers": []}`), t0 + ".serializers", "at least one"},
	{"same port", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}}`, `{"type": "websocket", "endpoint": {"type": "tcp", "port": 80, "interface": "127.0.0.1"}}`), "workers[0].transports[1].endpoint", "listens where workers[0].transports[0] does"},
	{"same port shared", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80, "shared": true}}`, `{"type": "web", "endpoint": {"type": "tcp", "port": 80, "shared": true}, "paths": {}}`), "workers[0].transports[1].endpoint", `listens where workers[0].transports[0] does ("shared" lets other processes share a port, not two transports of one node)`},

	// Endpoints.
	{"endpoint type missing", endpoint(`{"port": 80}`), ep + ".type", "required"},
	{"endpoint type unknown", endpoint(`{"type": "udp"}`), ep + ".type", `unknown endpoint type "udp" (want tcp, unix)`},
	{"endpoint twisted", endpoint(`{"type": "twisted", "server_string": "x"}`), ep + ".type", "not supported"},
	{"endpoint onion", endpoint(`{"type": "onion", "port": 80, "private_key_file": "k"}`), ep + ".type", `not supported: endpoint type "onion" (a Tor onion service`},
	{"port missing", endpoint(`{"type": "tcp"}`), ep + ".port", "required"},
	{"port range", endpoint(`{"type": "tcp", "port": 65536}`), ep + ".port", "must be in 0..65535, not 65536"},
	{"port negative", endpoint(`{"type": "tcp", "port": -1}`), ep + ".port", "must be in 0..65535, not -1"},
	{"port string", endpoint(`{"type": "tcp", "port": "80"}`), ep + ".port", "must be an integer, not a string"},
	{"port huge", endpoint(`{"type": "tcp", "port": 99999999999999999999}`), ep + ".port", "must be an integer"},
	{"portrange", endpoint(`{"type": "tcp", "port": 80, "portrange": [80, 90]}`), ep + ".portrange", "not supported"},
	{"backlog zero", endpoint(`{"type": "tcp", "port": 80, "backlog": 0}`), ep + ".backlog", "must be in 1..65535, not 0"},
	{"unix backlog zero", endpoint(`{"type": "unix", "path": "s", "backlog": 0}`), ep + ".backlog", "must be in 1..65535, not 0"},
	{"backlog big", endpoint(`{"type": "tcp", "port": 80, "backlog": 65536}`), ep + ".backlog", "must be in 1..65535, not 65536"},
	{"ip version", endpoint(`{"type": "tcp", "port": 80, "version": 5}`), ep + ".version", "must be 4 or 6, not 5"},
	{"interface", endpoint(`{"type": "tcp", "port": 80, "interface": "localhost"}`), ep + ".interface", `invalid IP address "localhost"`},
	{"user_timeout", endpoint(`{"type": "tcp", "port": 80, "user_timeout": -5}`), ep + ".user_timeout", "must be in 0..2147483647"},
	{"endpoint unknown key", endpoint(`{"type": "tcp", "port": 80, "interfaces": "::"}`), ep + ".interfaces", `did you mean "interface"?`},
	{"unix path missing", endpoint(`{"type": "unix"}`), ep + ".path", "required"},
	{"tls key missing", endpoint(`{"type": "tcp", "port": 80, "tls": {"certificate": "c.pem"}}`), ep + ".tls.key", "required"},
	{"tls certificate missing", endpoint(`{"type": "tcp", "port": 80, "tls": {"key": "k.pem"}}`), ep + ".tls.certificate", "required"},
	{"tls ca list", endpoint(`{"type": "tcp", "port": 80, "tls": {"key": "k", "certificate": "c", "ca_certificates": "ca.pem"}}`), ep + ".tls.ca_certificates", "must be an array, not a string"},

	// Auth.
	{"auth unknown method", wsPath(`"auth": {"anonymus": {"type": "static"}}`), ws + ".auth.anonymus", `unknown authentication method "anonymus"`},
	{"auth type unknown list", wsPath(`"auth": {"ticket": {"type": "dynamik"}}`), ws + ".auth.ticket.type", `unknown authentication type "dynamik" (want static, dynamic, function)`},
	{"anonymous type unknown list", wsPath(`"auth": {"anonymous": {"type": "dynamik"}}`), ws + ".auth.anonymous.type", `unknown authentication type "dynamik" (want static, dynamic)`},
	{"dynamic authenticator missing", wsPath(`"auth": {"ticket": {"type": "dynamic"}}`), ws + ".auth.ticket.authenticator", "required"},
	{"dynamic authenticator URI", wsPath(`"auth": {"wampcra": {"type": "dynamic", "authenticator": "com.auth."}}`), ws + ".auth.wampcra.authenticator", `invalid procedure URI "com.auth."`},
	{"dynamic authenticator type", wsPath(`"auth": {"cryptosign": {"type": "dynamic", "authenticator": 7}}`), ws + ".auth.cryptosign.authenticator", "must be a string, not a number"},
	{"dynamic realm URI", wsPath(`"auth": {"ticket": {"type": "dynamic", "authenticator": "a", "authenticator-realm": "a b"}}`), ws + ".auth.ticket.authenticator-realm", `invalid realm URI "a b"`},
	{"dynamic realm unknown", wsPath(`"auth": {"ticket": {"type": "dynamic", "authenticator": "a", "authenticator-realm": "realm2"}}`), ws + ".auth.ticket.authenticator-realm", `realm "realm2" is not defined in this router`},
	{"dynamic role unknown", wsPath(`"auth": {"anonymous": {"type": "dynamic", "authenticator": "a", "authenticator-realm": "realm1", "authenticator-role": "auth"}}`), ws + ".auth.anonymous.authenticator-role", `role "auth" is not defined in realm "realm1"`},
	{"dynamic timeout", wsPath(`"auth": {"ticket": {"type": "dynamic", "authenticator": "a", "authenticator-timeout": -1}}`), ws + ".auth.ticket.authenticator-timeout", "must be in 1..2147483647, not -1"},
	{"dynamic unknown key", wsPath(`"auth": {"ticket": {"type": "dynamic", "authenticator": "a", "default_role": "x"}}`), ws + ".auth.ticket.default_role", `did you mean "default-role"?`},
	{"dynamic principals", wsPath(`"auth": {"ticket": {"type": "dynamic", "authenticator": "a", "principals": {}}}`), ws + ".auth.ticket.principals", "unknown key"},
	{"dynamic ticket authid", wsPath(`"auth": {"ticket": {"type": "dynamic", "authenticator": "a", "authid": "x"}}`), ws + ".auth.ticket.authid", "unknown key"},
	{"auth type missing", wsPath(`"auth": {"anonymous": {"role": "anonymous"}}`), ws + ".auth.anonymous.type", "required"},
	{"auth type unknown", wsPath(`"auth": {"anonymous": {"type": "statik"}}`), ws + ".auth.anonymous.type", `unknown authentication type "statik"`},
	{"anonymous unknown key", wsPath(`"auth": {"anonymous": {"type": "static", "rol": "x"}}`), ws + ".auth.anonymous.rol", `did you mean "role"?`},
	{"join_timeout negative", wsPath(`"options": {"join_timeout": -1}`), ws + ".options.join_timeout", "must be in 0..2147483647, not -1"},
	{"rawsocket join_timeout type", transports(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 80}, "options": {"join_timeout": "10s"}}`), t0 + ".options.join_timeout", "must be an integer"},
	{"anonymous authid type", wsPath(`"auth": {"anonymous": {"type": "static", "authid": 7}}`), ws + ".auth.anonymous.authid", "must be a string, not a number"},
	{"ticket missing", wsPath(`"auth": {"ticket": {"type": "static", "principals": {"joe": {"role": "anonymous"}}}}`), ws + ".auth.ticket.principals.joe.ticket", "required"},
	{"ticket role missing", wsPath(`"auth": {"ticket": {"type": "static", "principals": {"joe": {"ticket": "x"}}}}`), ws + ".auth.ticket.principals.joe.role", "required"},
	{"ticket principals type", wsPath(`"auth": {"ticket": {"type": "static", "principals": []}}`), ws + ".auth.ticket.principals", "must be an object, not an array"},
	{"principal authid quoted", wsPath(`"auth": {"ticket": {"type": "static", "principals": {"joe@example.com": {"role": "anonymous"}}}}`), ws + `.auth.ticket.principals["joe@example.com"].ticket`, "required"},
	{"wampcra secret missing", wsPath(`"auth": {"wampcra": {"type": "static", "users": {"u": {"role": "anonymous"}}}}`), ws + ".auth.wampcra.users.u.secret", "required"},
	{"wampcra iterations", wsPath(`"auth": {"wampcra": {"type": "static", "users": {"u": {"secret": "s", "role": "anonymous", "iterations": 0}}}}`), ws + ".auth.wampcra.users.u.iterations", "must be in 1..2147483647, not 0"},
	{"wampcra keylen", wsPath(`"auth": {"wampcra": {"type": "static", "users": {"u": {"secret": "s", "role": "anonymous", "keylen": 0}}}}`), ws + ".auth.wampcra.users.u.keylen", "must be in 1..1024, not 0"},
	{"cryptosign key hex", wsPath(`"auth": {"cryptosign": {"type": "static", "principals": {"d": {"authorized_keys": ["zz"], "role": "anonymous"}}}}`), ws + ".auth.cryptosign.principals.d.authorized_keys[0]", "must be 64 hex digits"},
	{"cryptosign key short", wsPath(`"auth": {"cryptosign": {"type": "static", "principals": {"d": {"authorized_keys": ["545efb0a"], "role": "anonymous"}}}}`), ws + ".auth.cryptosign.principals.d.authorized_keys[0]", "must be 64 hex digits"},
	{"cryptosign keys missing", wsPath(`"auth": {"cryptosign": {"type": "static", "principals": {"d": {"role": "anonymous"}}}}`), ws + ".auth.cryptosign.principals.d.authorized_keys", "required"},

	// Web paths.
	{"path key slash", web(`{"a/b": {"type": "nodeinfo"}}`), t0 + `.paths["a/b"]`, `path key "a/b" must be one URL segment`},
	{"path key empty", web(`{"": {"type": "nodeinfo"}}`), t0 + `.paths[""]`, "empty path key"},
	{"path key nested slash", web(`{"api": {"type": "path", "paths": {"v1/x": {"type": "nodeinfo"}}}}`), t0 + `.paths.api.paths["v1/x"]`, "must be one URL segment"},
	{"path type missing", web(`{"x": {}}`), t0 + ".paths.x.type", "required"},
	{"path type unknown", web(`{"x": {"type": "statc"}}`), t0 + ".paths.x.type", `unknown path type "statc" (want api, archive, caller, dashboard, eventstream, health, json, longpoll, metrics, nodeinfo, path, publisher, ready, redirect, resource, reverseproxy, static, wap, webhook, websocket, websocket-reverseproxy, wsgi)`},
	{"path wsgi object missing", web(`{"x": {"type": "wsgi", "module": "app"}}`), t0 + ".paths.x.object", "required"},
	{"websocket-reverseproxy backend missing", web(`{"x": {"type": "websocket-reverseproxy"}}`), t0 + ".paths.x.backend", "required"},
	{"websocket-reverseproxy backend type", web(`{"x": {"type": "websocket-reverseproxy", "backend": {"type": "rawsocket"}}}`), t0 + ".paths.x.backend.type", `unknown backend type "rawsocket" (want websocket)`},
	{"websocket-reverseproxy backend url", web(`{"x": {"type": "websocket-reverseproxy", "backend": {"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 9000}, "url": "http://h/ws"}}}`),
		t0 + ".paths.x.backend.url", `invalid WebSocket URL "http://h/ws"`},
	{"websocket-reverseproxy backend endpoint", web(`{"x": {"type": "websocket-reverseproxy", "backend": {"type": "websocket", "url": "ws://h/ws"}}}`), t0 + ".paths.x.backend.endpoint", "required"},
	{"websocket-reverseproxy backend serializer", web(`{"x": {"type": "websocket-reverseproxy", "backend": {"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 9000}, "url": "ws://h/ws", "serializers": ["flatbuffers"]}}}`),
		t0 + ".paths.x.backend.serializers[0]", `unknown serializer "flatbuffers"`},
	{"websocket-reverseproxy option", web(`{"x": {"type": "websocket-reverseproxy", "options": {"max_frame_size": -1}, "backend": {"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 9000}, "url": "ws://h/ws"}}}`),
		t0 + ".paths.x.options.max_frame_size", "must be in 0..2147483647"},
	{"path cgi", web(`{"x": {"type": "cgi"}}`), t0 + ".paths.x.type", "not supported"},
	{"path none", web(`{"x": {"type": "none"}}`), t0 + ".paths.x.type", `not supported: path type "none" (a path that answers 404`},
	{"path unknown key", web(`{"/": {"type": "nodeinfo", "title": "x"}}`), t0 + `.paths["/"].title`, "unknown key"},
	{"metrics require_ip type", web(`{"metrics": {"type": "metrics", "options": {"require_ip": "127.0.0.1"}}}`), t0 + ".paths.metrics.options.require_ip", "must be an array"},
	{"metrics option unknown", web(`{"metrics": {"type": "metrics", "options": {"requre_ip": []}}}`), t0 + ".paths.metrics.options.requre_ip", `did you mean "require_ip"?`},
	{"metrics unknown key", web(`{"metrics": {"type": "metrics", "realm": "r"}}`), t0 + ".paths.metrics.realm", "unknown key"},
	{"health unknown key", web(`{"healthz": {"type": "health", "options": {}}}`), t0 + ".paths.healthz.options", "unknown key"},
	{"ready unknown key", web(`{"readyz": {"type": "ready", "options": {}}}`), t0 + ".paths.readyz.options", "unknown key"},
	{"static directory missing", web(`{"/": {"type": "static"}}`), t0 + `.paths["/"].directory`, "required"},
	{"static package", web(`{"/": {"type": "static", "package": "app", "resource": "web"}}`), t0 + `.paths["/"].package`, "not supported"},
	{"static option unknown", web(`{"/": {"type": "static", "directory": "w", "options": {"enable_directory_listings": true}}}`), t0 + `.paths["/"].options.enable_directory_listings`, `did you mean "enable_directory_listing"?`},
	{"static cache_timeout", web(`{"/": {"type": "static", "directory": "w", "options": {"cache_timeout": -1}}}`), t0 + `.paths["/"].options.cache_timeout`, "must be in 0..2147483647"},
	{"static mime type", web(`{"/": {"type": "static", "directory": "w", "options": {"mime_types": {".x": 1}}}}`), t0 + `.paths["/"].options.mime_types[".x"]`, "must be a string"},
	{"redirect url missing", web(`{"old": {"type": "redirect"}}`), t0 + ".paths.old.url", "required"},
	{"json value missing", web(`{"j": {"type": "json"}}`), t0 + ".paths.j.value", "required"},
	{"json options not an object", web(`{"j": {"type": "json", "value": 1, "options": []}}`), t0 + ".paths.j.options", "must be an object, not an array"},
	{"json option type", web(`{"j": {"type": "json", "value": 1, "options": {"prettify": "yes"}}}`), t0 + ".paths.j.options.prettify", "must be a boolean, not a string"},
	{"json option unknown", web(`{"j": {"type": "json", "value": 1, "options": {"allow_cross_origins": true}}}`), t0 + ".paths.j.options.allow_cross_origins", `did you mean "allow_cross_origin"?`},
	{"nested paths missing", web(`{"api": {"type": "path"}}`), t0 + ".paths.api.paths", "required"},
	{"nested error", web(`{"api": {"type": "path", "paths": {"x": {"type": "static"}}}}`), t0 + ".paths.api.paths.x.directory", "required"},
	{"websocket option unknown", wsPath(`"options": {"auto_ping_intervall": 1000}`), ws + ".options.auto_ping_intervall", `did you mean "auto_ping_interval"?`},
	{"websocket option negative", wsPath(`"options": {"max_message_size": -1}`), ws + ".options.max_message_size", "must be in 0..2147483647, not -1"},
	{"websocket auto_ping_size", wsPath(`"options": {"auto_ping_size": 200}`), ws + ".options.auto_ping_size", "must be in 4..125, not 200"},
	{"deflate request window", wsPath(`"options": {"compression": {"deflate": {"request_max_window_bits": 5}}}`), ws + ".options.compression.deflate.request_max_window_bits", "must be 0 or in 8..15, not 5"},
	{"deflate window", wsPath(`"options": {"compression": {"deflate": {"max_window_bits": 16}}}`), ws + ".options.compression.deflate.max_window_bits", "must be in 8..15, not 16"},
	{"deflate memory level", wsPath(`"options": {"compression": {"deflate": {"memory_level": 10}}}`), ws + ".options.compression.deflate.memory_level", "must be in 1..9, not 10"},
	{"deflate unknown key", wsPath(`"options": {"compression": {"deflate": {"max_windows_bits": 10}}}`), ws + ".options.compression.deflate.max_windows_bits", `did you mean "max_window_bits"?`},
	{"compression other than deflate", wsPath(`"options": {"compression": {"snappy": {}}}`), ws + ".options.compression.snappy", "unknown key"},
	{"deflate not an object", wsPath(`"options": {"compression": {"deflate": true}}`), ws + ".options.compression.deflate", "must be an object"},
	{"websocket origins", wsPath(`"options": {"allowed_origins": "*"}`), ws + ".options.allowed_origins", "must be an array"},
	{"websocket endpoint", wsPath(`"endpoint": {"type": "tcp", "port": 80}`), ws + ".endpoint", "unknown key"},
	{"websocket path serializer", wsPath(`"serializers": ["xml"]`), ws + ".serializers[0]", `unknown serializer "xml"`},

	// Components.
	{"component type missing", top(router(`"components": [{}]`)), c0 + ".type", "required"},
	{"component function", top(router(`"components": [{"type": "function", "callbacks": {}}]`)), c0 + ".type", "not supported: function components"},
	{"component type unknown", top(router(`"components": [{"type": "klass"}]`)), c0 + ".type", `unknown component type "klass"`},
	{"component classname missing", top(router(`"components": [{"type": "class", "realm": "realm1"}]`)), c0 + ".classname", "required"},
	{"component python class name", top(router(`"components": [{"type": "class", "classname": "Backend", "realm": "realm1"}]`)), c0 + ".classname", `invalid Python class name "Backend" (want package.module.Class)`},
	{"component python class dots", top(router(`"components": [{"type": "class", "classname": "app..Backend", "realm": "realm1"}]`)), c0 + ".classname", `invalid Python class name "app..Backend"`},
	{"component python class chars", top(router(`"components": [{"type": "class", "classname": "my-app.Backend", "realm": "realm1"}]`)), c0 + ".classname", `invalid Python class name`},
	{"component python extra type", top(router(`"components": [{"type": "class", "classname": "app.Backend", "realm": "realm1", "extra": [1]}]`)), c0 + ".extra", "must be an object, not an array"},
	{"component python extra env", top(router(`"components": [{"type": "class", "classname": "app.Backend", "realm": "realm1", "extra": {"a": ["${NOPE}"]}}]`)), c0 + ".extra.a[0]", "environment variable NOPE is not set"},
	{"component default role", top(`{"type": "router", "realms": [{"name": "realm1", "roles": [{"name": "user"}]}], "components": [{"type": "class", "classname": "app.Backend", "realm": "realm1"}]}`),
		c0 + ".role", `role "anonymous" is not defined in realm "realm1" (the default role, as in Crossbar`},
	{"component realm missing", top(router(`"components": [` + callee(``) + `]`)), c0 + ".realm", "required"},
	{"component realm unknown", top(router(`"components": [` + callee(`"realm": "realm2"`) + `]`)), c0 + ".realm", `realm "realm2" is not defined in this router`},
	{"component role unknown", top(router(`"components": [` + callee(`"realm": "realm1", "role": "bridge"`) + `]`)), c0 + ".role", `role "bridge" is not defined in realm "realm1"`},
	{"component extra type", top(router(`"components": [{"type": "class", "classname": "crossbar.bridge.rest.RESTCallee", "realm": "realm1", "extra": []}]`)), c0 + ".extra", "must be an object"},
	{"router component transport", top(router(`"components": [` + callee(`"realm": "realm1", "transport": {}`) + `]`)), c0 + ".transport", "unknown key"},
	{"container component role", container(callee(`"realm": "realm1", "role": "x", "transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "s"}}`)), c0 + ".role", "unknown key"},
	{"container transport missing", container(callee(`"realm": "realm1"`)), c0 + ".transport", "required"},
	{"container transport type", componentWith(`{"type": "web"}`), ctr0 + ".type", `unknown component transport type "web"`},
	{"container url missing", componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 80}}`), ctr0 + ".url", "required"},
	{"container url scheme", componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 80}, "url": "http://h/ws"}`), ctr0 + ".url", "invalid WebSocket URL"},
	{"container endpoint missing", componentWith(`{"type": "websocket", "url": "ws://h/ws"}`), ctr0 + ".endpoint", "required"},
	{"connect host missing", componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 80}, "url": "ws://h/ws"}`), ctr0 + ".endpoint.host", "required"},
	{"connect port zero", componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 0}, "url": "ws://h/ws"}`), ctr0 + ".endpoint.port", "must be in 1..65535, not 0"},
	{"connect timeout", componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 80, "timeout": 0}, "url": "ws://h/ws"}`), ctr0 + ".endpoint.timeout", "must be in 1..3600"},
	{"connect tls pair", componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 80, "tls": {"key": "k"}}, "url": "wss://h/ws"}`), ctr0 + ".endpoint.tls", `"certificate" and "key" go together`},
	{"rawsocket serializer", componentWith(`{"type": "rawsocket", "endpoint": {"type": "unix", "path": "/tmp/s"}, "serializer": "xml"}`), ctr0 + ".serializer", `unknown serializer "xml"`},

	// Environment variables.
	{"env missing", wsPath(`"auth": {"ticket": {"type": "static", "principals": {"joe": {"ticket": "${NO_SUCH_VAR}", "role": "anonymous"}}}}`), ws + ".auth.ticket.principals.joe.ticket", "environment variable NO_SUCH_VAR is not set"},
	{"env missing port", endpoint(`{"type": "tcp", "port": "${NO_SUCH_VAR}"}`), ep + ".port", "environment variable NO_SUCH_VAR is not set"},
	{"env missing dollar port", endpoint(`{"type": "tcp", "port": "$NO_SUCH_VAR"}`), ep + ".port", "environment variable NO_SUCH_VAR is not set"},
	{"env not a number", endpoint(`{"type": "tcp", "port": "${NOT_A_NUMBER}"}`), ep + ".port", `must be an integer, not "eighty"`},

	// Syntax.
	{"bad json", `{"version": 2,}`, "", "invalid JSON"},
	{"trailing json", `{"version": 2} {}`, "", "data after the top-level value"},
}

// role is a document with one role "x" of realm "r" with members.
func role(members string) string {
	return top(`{"type": "router", "realms": [{"name": "r", "roles": [{"name": "x", ` + members + `}]}]}`)
}

// perm is a document with one permission; p0 is its path.
func perm(p string) string {
	return top(`{"type": "router", "realms": [{"name": "r", "roles": [{"name": "x", "permissions": [` + p + `]}]}]}`)
}

const p0 = "workers[0].realms[0].roles[0].permissions[0]"

func TestRules(t *testing.T) {
	for _, tt := range slices.Concat(ruleTests, guestRuleTests, functionAuthRuleTests, testeeRuleTests) {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1 at %q:\n%v", len(errs), tt.path, errs)
			}
			if errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", errs[0].Error(), tt.path, tt.msg)
			}
		})
	}
}
