package docs

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/config"
)

// The table of Crossbar features in configuration.md ("Crossbar
// features") is kept true here: each row has a configuration that uses
// the feature, and its status must be what loading it gives.

// The statuses a row may have.
const (
	supported     = "supported"
	withDiffs     = "supported, with differences"
	refused       = "refused"
	featuresTitle = "## Crossbar features"
)

// featureConfigs are the configurations, by the row's feature (its text,
// links reduced to their text). One starting with "{" is JSON, any other
// YAML.
var featureConfigs = map[string]string{
	"Version 2 files, JSON": onRealm(""),
	"YAML files":            "version: 2\nworkers:\n- type: router\n  realms: [{name: realm1}]\n",
	"Environment variables `${NAME}`": onTransport(`{"type": "websocket", "endpoint": {"type": "tcp", "port": "${PORT}"},
		"auth": {"ticket": {"type": "static", "principals": {"alice": {"ticket": "${ALICE_TICKET}", "role": "anonymous"}}}}}`),
	"Controller `id`, `title`, `env`, `enable_parallel_worker_start`": `{"version": 2, "controller": {"id": "node1",
		"options": {"title": "node", "env": {"inherit": true}, "enable_parallel_worker_start": true}}}`,
	"Controller `shutdown`": `{"version": 2, "controller": {"options": {"shutdown": ["shutdown_on_worker_exit_with_error"]}}}`,
	"`manhole`": `{"version": 2, "controller": {"manhole": {"endpoint": {"type": "tcp", "port": 6022},
		"users": [{"user": "admin", "password": "x"}]}}}`,
	"Database `connections`": `{"version": 2, "controller": {"connections": [{"id": "db", "type": "postgres"}]}}`,
	"Crossbar.io FX and XBR (`fabric`, `enable_docker`, `blockchain`; `xbrmm`, `hub`, `marketplace` workers)": `{"version": 2,
		"controller": {"fabric": {}, "enable_docker": true, "blockchain": {}}, "workers": [{"type": "xbrmm"}, {"type": "hub"}, {"type": "marketplace"}]}`,
	"Router worker":    onRealm(""),
	"Container worker": worker(`{"type": "container", "options": {"shutdown": "shutdown-on-last-component-stopped", "restart": "restart-on-failed"}, ` + pythonComponent(`, "transport": `+wsConnect) + `}`),
	"Guest worker": worker(`{"type": "guest", "executable": "node", "arguments": ["app.js"],
		"options": {"env": {"inherit": false, "vars": {"A": "1"}}, "stdin": "close", "stdout": "drop", "watch": {"directories": ["."], "action": "restart"}}}`),
	"Worker `python`, `pythonpath`, `env`, `disabled`": worker(`{"type": "router", "realms": [` + realm1 + `],
		"options": {"python": "python3", "pythonpath": [".."], "env": {"inherit": ["HOME"]}, "disabled": false}, ` + pythonComponent(`, "role": "anonymous"`) + `}`),
	"Worker `title`, `cpu_affinity`, `extra`, `expose_controller`, `expose_shared`": worker(`{"type": "router", "realms": [` + realm1 + `],
		"options": {"title": "r", "cpu_affinity": [0], "extra": {}, "expose_controller": true, "expose_shared": true}}`),
	"Several identical workers on a `shared` port": worker(sharedRouter + `, ` + sharedRouter),
	"`websocket-testee` worker":                    worker(`{"type": "websocket-testee", "transport": {"type": "websocket", "endpoint": {"type": "tcp", "port": 9000}, "options": {"auto_ping_interval": 9}}}`),
	"`proxy` worker": worker(`{"type": "router", "realms": [` + realm1 + `], "transports": [{"type": "rawsocket",
		"endpoint": {"type": "unix", "path": "router.sock"}, "auth": {"anonymous-proxy": {"type": "static"}}}]},
		{"type": "proxy", "connections": {"conn1": {"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"},
			"url": "rs://localhost", "serializer": "cbor"}}}, "routes": {"realm1": {"anonymous": "conn1"}},
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 8080}, "paths": {"ws": {"type": "websocket"}}}]}`),
	"Realms, roles":                                           onRealm(""),
	"Realm `enable_meta_api`, `uri_check`":                    onRealm(`, "options": {"enable_meta_api": false, "uri_check": "strict"}`),
	"Realm `event_dispatching_chunk_size`, `bridge_meta_api`": onRealm(`, "options": {"event_dispatching_chunk_size": 10, "bridge_meta_api": true}`),
	"Realm `trace`":                                           onRealm(`, "trace": true`),
	"Static permissions, starred URIs, `disclose`": worker(`{"type": "router", "realms": [{"name": "realm1", "roles": [{"name": "user", "permissions": [
		{"uri": "com.example.*", "allow": {"call": true, "subscribe": true}, "disclose": {"caller": true}, "cache": true},
		{"uri": "com.example.admin.", "match": "prefix", "allow": {"publish": true}, "disclose": {"publisher": true}}]}]}]}`),
	"Role `allow-by-default`": worker(`{"type": "router", "realms": [{"name": "realm1", "roles": [{"name": "admin", "allow-by-default": true}]}]}`),
	"Dynamic authorizer": worker(`{"type": "router", "realms": [{"name": "realm1", "roles": [` + anonymousRole + `,
		{"name": "user", "authorizer": "com.example.authorize"}]}]}`),
	"Realm store (`memory`, `event-history`)": onRealm(`, "store": {"type": "memory", "limit": 100,
		"event-history": [{"uri": "com.example.oncounter", "match": "exact", "limit": 1000}]}`),
	"Realm store `call-queue`": onRealm(`, "store": {"type": "memory", "call-queue": [{"uri": "com.example.compute", "match": "exact", "limit": 10}]}`),
	"Router links (`rlinks`)": onRealm(`, "rlinks": [{"id": "rlink1", "realm": "realm1",
		"transport": {"type": "rawsocket", "endpoint": {"type": "tcp", "host": "node2", "port": 8081}, "url": "rs://node2:8081", "serializer": "cbor"},
		"forward_local_events": false, "forward_remote_events": true, "forward_local_invocations": false, "forward_remote_invocations": true}]`),
	"Realm `stats`":   onRealm(`, "stats": {"rated_message_size": 256, "trigger_after_rated_messages": 10, "trigger_on_join": true}`),
	"`web` transport": onWeb(`{"type": "nodeinfo"}`),
	"`websocket` transport": onTransport(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 8080},
		"serializers": ["cbor", "json"], "url": "ws://localhost:8080", "debug": false}`),
	"WebSocket options": onTransport(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 8080},
		"options": {"max_message_size": 65536, "auto_ping_interval": 10000, "auto_ping_timeout": 5000, "allowed_origins": ["https://*.example.com"],
		"enable_webstatus": true, "auto_fragment_size": 65536, "close_handshake_timeout": 1000}}`),
	"WebSocket `compression` (permessage-deflate)": onTransport(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 8080},
		"options": {"compression": {"deflate": {"request_no_context_takeover": false, "memory_level": 5}}}}`),
	"`rawsocket` transport": onTransport(`{"type": "rawsocket", "endpoint": {"type": "tcp", "port": 8081},
		"serializers": ["cbor", "msgpack"], "options": {"max_message_size": 1048576}}`),
	"`universal` transport": onTransport(`{"type": "universal", "endpoint": {"type": "tcp", "port": 8080},
		"rawsocket": {"serializers": ["cbor"]}, "websocket": {"ws": {"serializers": ["json"]}}, "web": {"paths": {"/": {"type": "nodeinfo"}}}}`),
	"`flashpolicy` transport": onTransport(`{"type": "flashpolicy", "endpoint": {"type": "tcp", "port": 843}, "allowed_domain": "example.com", "allowed_ports": [8080]}`),
	"`mqtt` transport": onTransport(`{"type": "mqtt", "endpoint": {"type": "tcp", "port": 1883}, "options": {"realm": "realm1", "role": "anonymous",
		"payload_mapping": {"": {"type": "native", "serializer": "json"}}}}`),
	"`websocket.testee`, `stream.testee` transports": worker(`{"type": "router", "transports": [
		{"type": "websocket.testee", "endpoint": {"type": "tcp", "port": 9001}}, {"type": "stream.testee", "endpoint": {"type": "tcp", "port": 9002}}]}`),
	"Cookie tracking (`cookie`, `memory` and `file` stores)": onTransport(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 8080},
		"cookie": {"name": "cbtid", "max_age": 604800, "store": {"type": "file", "filename": "cookies.dat"}}}`),
	"TCP listening endpoint":      onEndpoint(`{"type": "tcp", "port": 8080, "interface": "127.0.0.1", "version": 4, "backlog": 1024}`),
	"TLS on listening endpoints":  onEndpoint(`{"type": "tcp", "port": 8443, "tls": {"key": "server.key", "certificate": "server.crt", "dhparam": "dh.pem", "ciphers": "ECDHE-RSA-AES128-GCM-SHA256"}}`),
	"Unix listening endpoint":     onEndpoint(`{"type": "unix", "path": "router.sock"}`),
	"Endpoint `user_timeout`":     onEndpoint(`{"type": "tcp", "port": 8080, "user_timeout": 10000}`),
	"Endpoint `portrange`":        onEndpoint(`{"type": "tcp", "port": 8080, "portrange": [8080, 8090]}`),
	"`twisted` endpoints":         onEndpoint(`{"type": "twisted", "server_string": "tcp:8080"}`),
	"`onion` and `tor` endpoints": onEndpoint(`{"type": "onion", "port": 8080, "private_key_file": "onion.key", "tor_control_endpoint": {"type": "unix", "path": "/tmp/tor"}}`),
	"Connecting endpoints (TCP, TLS, Unix)": worker(`{"type": "container", "components": [` +
		classComponent(`{"type": "websocket", "url": "wss://router.example.com/ws", "endpoint": {"type": "tcp", "host": "router.example.com", "port": 443, "tls": {"hostname": "router.example.com"}}}`) + `, ` +
		classComponent(`{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"}, "serializer": "cbor"}`) + `]}`),
	"Anonymous authentication":                      withAuth(`{"anonymous": {"type": "static", "role": "anonymous", "authid": "guest"}}`),
	"Ticket authentication":                         withAuth(`{"ticket": {"type": "static", "principals": {"alice": {"ticket": "secret", "role": "anonymous"}}}}`),
	"WAMP-CRA authentication (with `salt`)":         withAuth(`{"wampcra": {"type": "static", "users": {"bob": {"secret": "pw", "role": "anonymous", "salt": "salt", "iterations": 100, "keylen": 32}}}}`),
	"Cryptosign authentication":                     withAuth(`{"cryptosign": {"type": "static", "principals": {"dev": {"authorized_keys": ["` + strings.Repeat("ab", 32) + `"], "role": "anonymous", "realm": "realm1"}}}}`),
	"Dynamic authentication":                        withAuth(`{"ticket": {"type": "dynamic", "authenticator": "com.example.authenticate"}, "anonymous": {"type": "dynamic", "authenticator": "com.example.authenticate"}}`),
	"Function authentication":                       withAuth(`{"ticket": {"type": "function", "create": "myapp.auth.create", "config": {"n": 1}}}`),
	"TLS client certificate authentication (`tls`)": withAuth(`{"tls": {"type": "static", "principals": {"client1": {"certificate-sha1": "` + strings.Repeat("AB:", 19) + `AB", "role": "anonymous"}}}}`),
	"SCRAM authentication (`scram`)": withAuth(`{"scram": {"type": "static", "principals": {"alice": {"kdf": "argon2id-13", "iterations": 4096, "memory": 512,
		"salt": "3bc3ca01dd1d501ca1c22e1c5d7d16fe", "stored-key": "` + strings.Repeat("e7", 32) + `", "server-key": "` + strings.Repeat("8d", 32) + `", "role": "anonymous"}}}}`),
	"Cookie authentication (`cookie`)": onTransport(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 8080},
		"cookie": {"store": {"type": "memory"}}, "auth": {"cookie": {}, "anonymous": {"type": "static"}}}`),
	"Proxy authentication (`anonymous-proxy`, `cryptosign-proxy`)": onTransport(`{"type": "rawsocket", "endpoint": {"type": "unix", "path": "router.sock"},
		"auth": {"anonymous-proxy": {"type": "static"}, "cryptosign-proxy": {"type": "static", "principals": {
			"proxy1": {"realm": "realm1", "role": "anonymous", "authorized_keys": ["` + strings.Repeat("ab", 32) + `"]}}}}}`),
	"`static` path":                     onWeb(`{"type": "static", "directory": "../web", "options": {"enable_directory_listing": true, "cache_timeout": null, "mime_types": {".wasm": "application/wasm"}}}`),
	"`static` `package` and `resource`": onWeb(`{"type": "static", "package": "myapp", "resource": "web"}`),
	"`redirect` path":                   onWeb(`{"type": "redirect", "url": "https://example.com/"}`),
	"`json` path":                       onWeb(`{"type": "json", "value": {"a": 1}, "options": {"prettify": true}}`),
	"`nodeinfo` path":                   onWeb(`{"type": "nodeinfo"}`),
	"`path` (nested paths)":             onWeb(`{"type": "path", "paths": {"/": {"type": "nodeinfo"}, "v1": {"type": "json", "value": []}}}`),
	"`websocket` path":                  onWeb(`{"type": "websocket", "serializers": ["json"], "auth": {"anonymous": {"type": "static", "role": "anonymous"}}, "options": {"auto_ping_interval": 10000}}`),
	"`caller`, `publisher`, `webhook` paths": onWeb(`{"type": "path", "paths": {
		"call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
		"publish": {"type": "publisher", "realm": "realm1", "role": "anonymous"},
		"hook": {"type": "webhook", "realm": "realm1", "role": "anonymous", "options": {"topic": "com.example.hook"}}}}`),
	"`reverseproxy` path":                     onWeb(`{"type": "reverseproxy", "host": "127.0.0.1", "port": 8000, "path": "/app"}`),
	"`websocket-reverseproxy` path":           onWeb(`{"type": "websocket-reverseproxy", "backend": {"type": "websocket", "endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 9000}, "url": "ws://127.0.0.1:9000/ws"}}`),
	"`longpoll` path":                         onWeb(`{"type": "longpoll", "options": {"request_timeout": 10, "session_timeout": 30}}`),
	"`archive` path":                          onWeb(`{"type": "archive", "archive": "web.zip", "origin": "https://example.com/web.zip", "download": true, "default_object": "index.html", "hashes": ["` + strings.Repeat("0", 64) + `"]}`),
	"`wsgi` path":                             onWeb(`{"type": "wsgi", "module": "app", "object": "app"}`),
	"`resource` path":                         onWeb(`{"type": "resource", "classname": "myapp.Resource"}`),
	"`wap` path":                              onWeb(`{"type": "wap", "templates": "templates", "routes": [{"path": "/<name>", "method": "GET", "call": "com.example.page", "render": "page.html"}], "wamp": {"realm": "realm1"}}`),
	"`cgi` path":                              onWeb(`{"type": "cgi", "directory": "cgi-bin", "processor": "/usr/bin/python3"}`),
	"`upload` and `fileupload` paths":         onWeb(`{"type": "path", "paths": {"a": {"type": "upload"}, "b": {"type": "fileupload"}}}`),
	"`none` path":                             onWeb(`{"type": "none"}`),
	"Python class components, in a router":    worker(`{"type": "router", "realms": [` + realm1 + `], ` + pythonComponent(`, "role": "anonymous"`) + `}`),
	"Python class components, in a container": worker(`{"type": "container", ` + pythonComponent(`, "transport": `+wsConnect) + `}`),
	"REST bridge components (`RESTCallee`, `MessageForwarder`)": worker(`{"type": "router", "realms": [` + realm1 + `], "components": [
		{"type": "class", "classname": "crossbar.bridge.rest.RESTCallee", "realm": "realm1", "extra": {"procedure": "com.example.api", "baseurl": "https://api.example.com/"}},
		{"type": "class", "classname": "crossbar.bridge.rest.MessageForwarder", "realm": "realm1", "extra": {"subscriptions": [{"topic": "com.example.t", "url": "https://example.com/t"}]}}]}`),
	"`function` components": worker(`{"type": "router", "realms": [` + realm1 + `], "components": [{"type": "function", "realm": "realm1", "callbacks": {"join": "myapp.join"}}]}`),
}

// The pieces the configurations above are made of.
const (
	anonymousRole = `{"name": "anonymous", "permissions": [{"uri": "", "match": "prefix",
		"allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}`
	realm1       = `{"name": "realm1", "roles": [` + anonymousRole + `]}`
	wsConnect    = `{"type": "websocket", "url": "ws://127.0.0.1:8080/ws", "endpoint": {"type": "tcp", "host": "127.0.0.1", "port": 8080}}`
	sharedRouter = `{"type": "router", "realms": [` + realm1 + `], "transports": [{"type": "websocket", "endpoint": {"type": "tcp", "port": 8080, "shared": true}}]}`
)

func worker(workers string) string { return `{"version": 2, "workers": [` + workers + `]}` }

// onRealm is a router with realm1, extended by more keys of the realm.
func onRealm(more string) string {
	return worker(`{"type": "router", "realms": [{"name": "realm1", "roles": [` + anonymousRole + `]` + more + `}]}`)
}

func onTransport(transport string) string {
	return worker(`{"type": "router", "realms": [` + realm1 + `], "transports": [` + transport + `]}`)
}

func onWeb(service string) string {
	return onTransport(`{"type": "web", "endpoint": {"type": "tcp", "port": 8080}, "paths": {"x": ` + service + `}}`)
}

func onEndpoint(endpoint string) string {
	return onTransport(`{"type": "websocket", "endpoint": ` + endpoint + `}`)
}

func withAuth(auth string) string {
	return onTransport(`{"type": "websocket", "endpoint": {"type": "tcp", "port": 8080}, "auth": ` + auth + `}`)
}

func pythonComponent(more string) string {
	return `"components": [{"type": "class", "classname": "hello.Hello", "realm": "realm1"` + more + `}]`
}

func classComponent(transport string) string {
	return `{"type": "class", "classname": "hello.Hello", "realm": "realm1", "transport": ` + transport + `}`
}

// featureEnv is the environment of the configurations.
func featureEnv(name string) (string, bool) {
	v, ok := map[string]string{"PORT": "8080", "ALICE_TICKET": "x"}[name]
	return v, ok
}

// featureRow is a row of the table.
type featureRow struct{ feature, status, notes string }

var markdownLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)]*)\)`)

// featureRows returns the rows of the table in configuration.md.
func featureRows(t *testing.T) []featureRow {
	t.Helper()
	page := readPage(t, "configuration.md")
	_, section, ok := strings.Cut(page, "\n"+featuresTitle+"\n")
	if !ok {
		t.Fatalf("configuration.md has no %q section", featuresTitle)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []featureRow
	for line := range strings.Lines(section) {
		cells := tableCells(line)
		if len(cells) != 3 || cells[0] == "Feature" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, featureRow{markdownLink.ReplaceAllString(cells[0], "$1"), cells[1], cells[2]})
	}
	if len(rows) == 0 {
		t.Fatal("the features table has no rows")
	}
	return rows
}

// tableCells splits a markdown table row into its trimmed cells; a line
// that is not a row has none.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

func TestCrossbarFeatures(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range featureRows(t) {
		if seen[row.feature] {
			t.Errorf("feature %q: two rows", row.feature)
		}
		seen[row.feature] = true
		t.Run(row.feature, func(t *testing.T) { checkFeature(t, row) })
	}
	for feature := range featureConfigs {
		if !seen[feature] {
			t.Errorf("feature %q has a configuration but no row in configuration.md", feature)
		}
	}
}

func checkFeature(t *testing.T, row featureRow) {
	text, ok := featureConfigs[row.feature]
	if !ok {
		t.Fatalf("no configuration in featureConfigs for this row")
	}
	format := config.YAML
	if strings.HasPrefix(text, "{") {
		format = config.JSON
	}
	_, warns, err := config.Loader{LookupEnv: featureEnv}.Parse([]byte(text), format)
	switch row.status {
	case supported:
		if err != nil || len(warns) > 0 {
			t.Errorf("supported, but: %v, warnings %v", err, warns)
		}
	case withDiffs:
		if err != nil {
			t.Errorf("supported with differences, but: %v", err)
		}
	case refused:
		checkRefused(t, err)
	default:
		t.Errorf("status %q, want %q, %q or %q", row.status, supported, withDiffs, refused)
	}
	if row.status != supported && row.notes == "" {
		t.Errorf("status %q without notes", row.status)
	}
}

// checkRefused checks that err refuses the feature, and nothing else.
func checkRefused(t *testing.T, err error) {
	t.Helper()
	var errs config.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("refused, but it loads (err %v)", err)
	}
	for _, e := range errs {
		if !strings.Contains(e.Msg, "not supported") {
			t.Errorf("refused, but an error is not \"not supported\": %v", e)
		}
	}
}

// TestCrossbarFeaturesLinks checks that the links of the table to
// configuration.md's sections name a heading.
func TestCrossbarFeaturesLinks(t *testing.T) {
	page := readPage(t, "configuration.md")
	anchors := headingAnchors(page)
	_, section, _ := strings.Cut(page, "\n"+featuresTitle+"\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, m := range markdownLink.FindAllStringSubmatch(section, -1) {
		if anchor, ok := strings.CutPrefix(m[2], "#"); ok && !slices.Contains(anchors, anchor) {
			t.Errorf("link %s: configuration.md has no such heading", m[0])
		}
	}
}

// headingAnchors returns the anchors GitHub gives the page's headings.
func headingAnchors(page string) []string {
	var anchors []string
	count := map[string]int{}
	for line := range strings.Lines(page) {
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		a := anchorOf(strings.TrimSpace(title))
		if n := count[a]; n > 0 {
			anchors = append(anchors, a+"-"+string(rune('0'+n)))
		} else {
			anchors = append(anchors, a)
		}
		count[a]++
	}
	return anchors
}

// anchorOf is GitHub's anchor of a heading: lower case, spaces to
// hyphens, punctuation but hyphens and underscores dropped.
func anchorOf(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
