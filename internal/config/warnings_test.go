package config

import (
	"slices"
	"strings"
	"testing"
)

const (
	wsOpts  = ws + ".options"
	ctrOpts = ctr0 + ".options"
)

// wsOptions is a document whose websocket path "ws" has the options.
func wsOptions(options string) string { return wsPath(`"options": {` + options + `}`) }

// componentOptions is a container component whose WebSocket transport has
// the options.
func componentOptions(options string) string {
	return componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 80}, "url": "ws://h/ws", "options": {` + options + `}}`)
}

// webOptions is a document with a web transport that has the options.
func webOptions(options string) string {
	return transports(`{"type": "web", "endpoint": {"type": "tcp", "port": 80}, "paths": {}, "options": {` + options + `}}`)
}

// proxyPath is a document with a websocket-reverseproxy path "x" whose
// incoming options are options and whose backend has backendOptions.
func proxyPath(options, backendOptions string) string {
	return web(`{"x": {"type": "websocket-reverseproxy", "options": {` + options + `}, "backend": {"type": "websocket",
		"endpoint": {"type": "tcp", "host": "h", "port": 9000}, "url": "ws://h/ws", "options": {` + backendOptions + `}}}}`)
}

// realmOptionsDoc is a document with a realm that has the options.
func realmOptionsDoc(options string) string {
	return top(`{"type": "router", "realms": [{"name": "r", "options": {` + options + `}}]}`)
}

// pyComponent is a Python class component of a router.
const pyComponent = `{"type": "class", "classname": "app.session.Backend", "realm": "realm1"}`

// pyContainer is a container with a Python component on a WebSocket and
// the options.
func pyContainer(options string) string {
	return top(`{"type": "container", "options": {` + options + `}, "components": [{"type": "class", "classname": "app.Backend",
		"realm": "realm1", "transport": {"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 80}, "url": "ws://h/ws"}}]}`)
}

// warningTests are one fragment per key that is accepted without effect:
// the path and a substring of the one warning it must give. An empty path
// means the fragment must give no warning at all (the value is what
// Junction does anyway, or the key is documented as accepted silently).
var warningTests = []ruleTest{
	// Controller.
	{"controller id", `{"version": 2, "controller": {"id": "node1"}}`, "controller.id", "ignored: Junction has no separate controller"},
	{"controller title", `{"version": 2, "controller": {"options": {"title": "n"}}}`, "controller.options.title", "ignored: the process title is not set"},
	{"controller shutdown", `{"version": 2, "controller": {"options": {"shutdown": ["shutdown_on_shutdown_requested", "shutdown_on_worker_exit",
		"shutdown_on_worker_exit_with_error", "shutdown_on_last_worker_exit"]}}}`, "", ""},
	{"controller shutdown string", `{"version": 2, "controller": {"options": {"shutdown": "shutdown_on_worker_exit"}}}`, "", ""},

	// Workers.
	{"worker title", top(router(`"options": {"title": "r"}`)), w0 + ".options.title", "ignored: workers run in-process"},
	{"expose_controller", top(router(`"options": {"expose_controller": true}`)), w0 + ".options.expose_controller", "ignored: there is no controller API"},
	{"expose_controller false", top(router(`"options": {"expose_controller": false}`)), "", ""},
	{"expose_controller python", top(router(`"options": {"expose_controller": true}, "components": [` + pyComponent + `]`)), w0 + ".options.expose_controller", "Python components get config.controller None"},
	{"expose_shared", top(router(`"options": {"expose_shared": true}`)), w0 + ".options.expose_shared", "ignored: nothing is shared between components; Python components get config.shared None"},
	{"expose_shared false", top(router(`"options": {"expose_shared": false}`)), "", ""},
	{"container shutdown", top(`{"type": "container", "options": {"shutdown": "shutdown-on-any-component-failed"}}`), w0 + ".options.shutdown", "ignored: the container has no Python component; its bridge components run until the node stops"},
	{"container shutdown manual", top(`{"type": "container", "options": {"shutdown": "shutdown-manual"}}`), "", ""},
	{"container restart", top(`{"type": "container", "options": {"restart": "restart-never"}}`), w0 + ".options.restart", "ignored: the container has no Python component; its bridge components always reconnect with backoff"},
	{"container restart always", top(`{"type": "container", "options": {"restart": "restart-always"}}`), "", ""},
	{"container python modes", pyContainer(`"shutdown": "shutdown-on-any-component-failed", "restart": "restart-never"`), "", ""},
	{"container python restart", pyContainer(`"restart": "restart-on-failed", "shutdown": "shutdown-on-last-component-stopped"`), "", ""},

	// The Python runner's options: used with a Python component only.
	{"python unused", top(router(`"options": {"python": "/usr/bin/python3"}`)), w0 + ".options.python", "ignored: the worker has no Python component, function authenticator or Python web path to run"},
	{"pythonpath unused", top(router(`"options": {"pythonpath": [".."]}`)), w0 + ".options.pythonpath", "ignored: the worker has no Python component, function authenticator or Python web path to run"},
	{"env unused", top(router(`"options": {"env": {"inherit": false}}`)), w0 + ".options.env", "ignored: the worker has no Python component, function authenticator or Python web path to run"},
	{"python options used by a wsgi path", top(router(`"options": {"python": "python3", "pythonpath": [".."], "env": {"inherit": true}}, "transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 80},
		"paths": {"app": {"type": "path", "paths": {"/": {"type": "wsgi", "module": "myapp", "object": "app"}}}}}]`)), "", ""},
	{"python options used by a resource path", top(router(`"options": {"pythonpath": [".."]}, "transports": [{"type": "universal", "endpoint": {"type": "tcp", "port": 80},
		"web": {"paths": {"r": {"type": "resource", "classname": "a.B"}}}}]`)), "", ""},
	{"python options used", top(router(`"options": {"python": "python3", "pythonpath": [".."], "env": {"inherit": ["HOME"], "vars": {"A": "1"}}}, "components": [` + pyComponent + `]`)), "", ""},
	{"python options in container", pyContainer(`"python": "/usr/bin/python3", "pythonpath": [".."]`), "", ""},
	{"worker extra", top(router(`"options": {"extra": {"a": 1}}`)), w0 + ".options.extra", "ignored: no worker code reads it"},

	// Realms and permissions.
	{"chunk size", realmOptionsDoc(`"event_dispatching_chunk_size": 100`), r0 + ".options.event_dispatching_chunk_size", "ignored: each receiver has its own outbound queue"},
	{"bridge_meta_api", realmOptionsDoc(`"bridge_meta_api": true`), r0 + ".options.bridge_meta_api", "ignored: router links do not forward the meta API"},
	{"bridge_meta_api false", realmOptionsDoc(`"bridge_meta_api": false`), "", ""},
	{"history without meta API", top(`{"type": "router", "realms": [{"name": "r", "options": {"enable_meta_api": false},
		"store": {"type": "memory", "event-history": [{"uri": "com.x"}]}}]}`), r0 + ".store.event-history", "nobody can read these events"},
	{"history with meta API", storeDoc(`{"type": "memory", "event-history": [{"uri": "com.x"}]}`), "", ""},
	{"realm trace", top(`{"type": "router", "realms": [{"name": "r", "trace": true}]}`), r0 + ".trace", "ignored: Crossbar does not use it either"},
	{"permission cache", perm(`{"uri": "a", "cache": true}`), "", ""},

	// Web transport and endpoints.
	{"display_tracebacks", webOptions(`"display_tracebacks": true`), t0 + ".options.display_tracebacks", "ignored: error pages never show tracebacks"},
	{"display_tracebacks false", webOptions(`"display_tracebacks": false`), "", ""},
	{"hsts_max_age 0", webOptions(`"hsts": true, "hsts_max_age": 0`), "", ""},
	{"client_timeout", webOptions(`"client_timeout": 30`), "", ""},
	{"shared", endpoint(`{"type": "tcp", "port": 80, "shared": true}`), ep + ".shared", "ignored: SO_REUSEPORT is not set"},
	{"user_timeout", endpoint(`{"type": "tcp", "port": 80, "user_timeout": 5000}`), ep + ".user_timeout", "ignored: the system's TCP_USER_TIMEOUT applies"},
	{"backlog", endpoint(`{"type": "tcp", "port": 80, "backlog": 1024}`), "", ""},
	{"unix backlog", endpoint(`{"type": "unix", "path": "s", "backlog": 1024}`), "", ""},

	// WebSocket options of a server.
	{"enable_webstatus true", wsOptions(`"enable_webstatus": true`), wsOpts + ".enable_webstatus", "ignored: there is no status page; a plain GET gets 426"},
	{"enable_webstatus false", wsOptions(`"enable_webstatus": false`), "", ""},
	{"auto_ping_size applied", wsOptions(`"auto_ping_size": 12`), "", ""},
	{"auto_ping_timeout 0", wsOptions(`"auto_ping_interval": 10000, "auto_ping_timeout": 0`), wsOpts + ".auto_ping_timeout", `0 means the same as auto_ping_interval (10000 ms) here, not "never time out"`},
	{"auto_ping_timeout set", wsOptions(`"auto_ping_interval": 10000, "auto_ping_timeout": 5000`), "", ""},
	{"max_frame_size applied", wsOptions(`"max_frame_size": 65536`), "", ""},
	{"auto_fragment_size applied", wsOptions(`"auto_fragment_size": 65536`), "", ""},
	{"open_handshake_timeout applied", wsOptions(`"open_handshake_timeout": 2500`), "", ""},
	{"close_handshake_timeout applied", wsOptions(`"close_handshake_timeout": 1000`), "", ""},
	{"fail_by_drop applied", wsOptions(`"fail_by_drop": true`), "", ""},
	{"allow_null_origin applied", wsOptions(`"allow_null_origin": false`), "", ""},
	{"websocket transport", transports(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 80}, "options": {"enable_webstatus": true}}`), t0 + ".options.enable_webstatus", "ignored"},
	{"websocket transport applied", transports(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 80}, "options": {"fail_by_drop": true, "max_frame_size": 65536, "open_handshake_timeout": 2500}}`), "", ""},

	// WebSocket options of a component's connection.
	{"component origins", componentOptions(`"allowed_origins": ["*"]`), ctrOpts + ".allowed_origins", "ignored: a component's connection uses only max_message_size, auto_ping_interval and auto_ping_timeout"},
	{"component webstatus", componentOptions(`"enable_webstatus": false`), ctrOpts + ".enable_webstatus", "ignored: a component's connection uses only"},
	{"component pings", componentOptions(`"max_message_size": 65536, "auto_ping_interval": 1000, "auto_ping_timeout": 500`), "", ""},
	{"proxy origins", proxyPath(`"allowed_origins": ["https://*.example.com"], "allow_null_origin": false, "open_handshake_timeout": 500, "max_frame_size": 65536`, ""), "", ""},
	{"proxy ping", proxyPath(`"auto_ping_interval": 1000`, ""), t0 + ".paths.x.options.auto_ping_interval", "ignored: a WebSocket reverse proxy relays frames as they come; of the options it uses only"},
	{"component join_timeout", componentOptions(`"join_timeout": 5000`), ctrOpts + ".join_timeout", "ignored: a component's connection uses only"},
	{"proxy join_timeout", proxyPath(`"join_timeout": 5000`, ""), t0 + ".paths.x.options.join_timeout", "ignored: a WebSocket reverse proxy relays frames as they come"},
	{"proxy compression", proxyPath(`"compression": {"deflate": {}}`, ""), t0 + ".paths.x.options.compression", "ignored: a WebSocket reverse proxy relays frames"},
	{"proxy backend option", proxyPath("", `"max_message_size": 1000`), t0 + ".paths.x.backend.options.max_message_size", "ignored: a WebSocket reverse proxy relays frames as they come, with no options of its own towards the backend"},
	{"proxy url", web(`{"x": {"type": "websocket-reverseproxy", "url": "ws://localhost/x", "backend": {"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 9000}, "url": "ws://h/ws"}}}`),
		t0 + ".paths.x.url", "ignored: the service is at its path"},
	{"proxy wss without tls", web(`{"x": {"type": "websocket-reverseproxy", "backend": {"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 9000}, "url": "wss://h/ws"}}}`),
		t0 + ".paths.x.backend.url", "TLS is still used, verified against the system's root certificates"},
	{"proxy wss over unix", web(`{"x": {"type": "websocket-reverseproxy", "backend": {"type": "websocket", "endpoint": {"type": "unix", "path": "b.sock"}, "url": "WSS://h/ws"}}}`),
		t0 + ".paths.x.backend.url", "TLS is still used, verified against the system's root certificates, over the Unix socket (use ws://"},
	{"proxy wss with tls", web(`{"x": {"type": "websocket-reverseproxy", "backend": {"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 9000, "tls": {}}, "url": "wss://h/ws"}}}`), "", ""},
	{"component wss without tls", componentWith(`{"type": "websocket", "endpoint": {"type": "tcp", "host": "h", "port": 443}, "url": "wss://h/ws"}`),
		ctr0 + ".url", "TLS is still used"},
	{"component ping timeout 0", componentOptions(`"auto_ping_interval": 1000, "auto_ping_timeout": 0`), ctrOpts + ".auto_ping_timeout", "0 means the same as auto_ping_interval"},
}

func TestWarningRules(t *testing.T) {
	for _, tt := range slices.Concat(warningTests, guestWarningTests, functionAuthWarningTests, testeeWarningTests) {
		t.Run(tt.name, func(t *testing.T) {
			_, warns := mustParse(t, tt.doc)
			if tt.path == "" {
				if len(warns) != 0 {
					t.Fatalf("got warnings, want none:\n%s", warningsText(warns))
				}
				return
			}
			if len(warns) != 1 {
				t.Fatalf("got %d warnings, want 1 at %q:\n%s", len(warns), tt.path, warningsText(warns))
			}
			if warns[0].Path != tt.path || !strings.Contains(warns[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", warns[0].String(), tt.path, tt.msg)
			}
		})
	}
}
