package corpus_test

import (
	"strings"
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
)

// corpusNode is one node of the corpus: the directory nodes/NAME and how
// the test proves it.
type corpusNode struct {
	name   string // the directory under nodes/
	proves string // the features it proves, logged by the subtest
	// client is the client in the node directory ("client.py" or
	// "client.js"), run with the address of the router's first transport;
	// "" for none.
	client string
	// static is a file of the web transport that the test GETs; zero for
	// none.
	static staticFile
	// check runs after the client: more checks in Go; nil for none.
	check func(t *testing.T, r *nodeRun)
	// warnings are the WARN messages the node may log, and junction check
	// may print; "{dir}" in one stands for the node directory.
	warnings []string
	// prepare runs on the node directory before junction check and start
	// (to put a file there the node needs, or start a server it uses); it
	// returns "KEY=value" entries added to their environment. nil for none.
	prepare func(t *testing.T, dir string) []string
}

// staticFile is a path of the router's first transport (a web transport)
// and the file of the node directory it must serve.
type staticFile struct {
	path, file string
}

// corpus is every node of nodes/, in the order of README.md.
var corpus = []corpusNode{
	{
		name: "hello-python",
		proves: "a container worker's Python component (pythonpath \"..\", a package) joined over WebSocket on a Unix socket: " +
			"it registers, subscribes, publishes on a timer and calls a client's procedure; static web files",
		client: "client.py",
		static: staticFile{"/", "web/index.html"},
	},
	{
		name: "calculator-rawsocket",
		proves: "a router-worker component with the default role (anonymous) and two containers' components over RawSocket " +
			"on a Unix socket (MessagePack, JSON): calls, progressive results and an application error, from autobahn-js",
		client: "client.js",
		// autobahn-python logs an ApplicationError raised by a procedure at
		// warn level (ApplicationSession.onUserError), as under Crossbar
		warnings: []string{`AppSession.onUserError(): "com.calc.division_by_zero: cannot divide 1 by zero"`},
	},
	{
		name:   "patternregs",
		proves: "a router-worker component's prefix and wildcard registrations (details.procedure), and exact > prefix > wildcard",
		client: "client.py",
		static: staticFile{"/", "index.html"},
	},
	{
		name:   "userconfig",
		proves: "a container component's extra (nested values) and extra.cbdir, the node's .crossbar directory",
		client: "client.py",
	},
	{
		name: "greeter-check-config",
		proves: "a router-worker component's check_config classmethod, its role, options.python (absolute), " +
			"two pythonpath entries and the worker's env vars",
		client:   "client.py",
		warnings: []string{`Greeter.onUserError(): "com.greeter.unknown: nobody called bob"`},
	},
	{
		name:   "restart-always",
		proves: "a container with restart-always: a component that leaves is started again, in the same worker process",
		client: "client.py",
		// autobahn-python warns in onLeave when the router's GOODBYE reason
		// is not wamp.close.normal: Junction answers a GOODBYE with
		// wamp.close.goodbye_and_out (Crossbar with wamp.close.normal)
		warnings: []string{"session closed with reason wamp.close.goodbye_and_out [None]"},
	},
	{
		name: "hello-nodejs",
		proves: "a Node.js guest worker (autobahn-js over WebSocket on the node's Unix socket) with arguments, workdir " +
			"and env vars, restarted by its watch when a file changes; static web files",
		client: "client.py",
		static: staticFile{"/", "web/index.html"},
		check:  watchRestart,
	},
	{
		name: "guest-shell",
		proves: "a YAML config; a /bin/sh guest worker given JSON on stdin and env vars (inherit a list, vars, " +
			"PYTHONUNBUFFERED), its stdout in the node log, publishing through the HTTP publisher on a Unix socket; " +
			"the guest exits and the node keeps running",
		client: "client.py",
		check: func(t *testing.T, r *nodeRun) {
			r.node.WaitLog(t, "the guest's stdout line", 1, mentions("announcing on com.example.announce as shell guest"))
			r.node.WaitLog(t, "the guest's exit", 1, mentions("guest exited"))
			joinGo(t, "ws://"+r.addr+"/ws", "realm1") // the node runs on
		},
		// Junction warns when a guest exits, even with status 0 (Crossbar
		// logs that at info level)
		warnings: []string{"guest exited; not restarted"},
	},
	{
		name: "ticket-dynamic",
		proves: "dynamic ticket authentication by a router-worker Python component: a right ticket, a wrong one and " +
			"an unknown principal (the authenticator's error is the ABORT reason); the role it gives bounds the session",
		client: "client.py",
		static: staticFile{"/", "web/index.html"},
		warnings: []string{joinRefused,
			`AuthenticatorSession.onUserError(): "com.example.invalid_ticket: invalid ticket for joe"`,
			`AuthenticatorSession.onUserError(): "com.example.no_such_user: no principal eve"`,
		},
	},
	{
		name: "wampcra-dynamic",
		proves: "dynamic WAMP-CRA authentication by a Python component: plain and salted secrets, a wrong secret, " +
			"an unknown principal",
		client:   "client.py",
		warnings: []string{joinRefused, `AuthenticatorSession.onUserError(): "com.example.no_such_user: no principal eve"`},
	},
	{
		name: "cryptosign-dynamic",
		proves: "dynamic cryptosign authentication by a Python component on its own authenticator-realm: the " +
			"principal by public key (authid, realm, role), extra in the WELCOME, an unknown key refused",
		client: "client.py",
		warnings: []string{joinRefused, `AuthenticatorSession.onUserError(): "com.example.no_such_user: no principal with public key ` +
			`17cb79fb2b4120f2b1ec65e4198d6e08b28e813feb01e4a400839b85e18080ce"`},
	},
	{
		name: "anonymous-dynamic",
		proves: "dynamic anonymous authentication (authenticator-role trusted, authenticator-realm): the role and " +
			"WELCOME extra it gives, the router's authid (never the client's), a refusal by the authenticator",
		client:   "client.py",
		static:   staticFile{"/", "index.html"},
		warnings: []string{joinRefused, `AuthenticatorSession.onUserError(): "com.example.banned: this client is banned"`},
	},
	{
		name: "realm-redirect",
		proves: "realm redirection by a dynamic ticket authenticator: users land in their tenant's realm whatever " +
			"realm they ask for, under their canonical authid; one component class per tenant realm",
		client:   "client.py",
		warnings: []string{joinRefused, `Authenticator.onUserError(): "com.example.invalid_login: invalid login for bob"`},
	},
	{
		name: "authorizer-router",
		proves: "a dynamic authorizer in the router worker deciding by authid, its dict results with cache: " +
			"cached per session, never across sessions, refusals too",
		client: "client.py",
	},
	{
		name: "authorizer-container",
		proves: "a dynamic authorizer in a container component that logs in by ticket itself (onConnect, " +
			"onChallenge), with bool results, authorizing another container component and a client",
		client: "client.py",
	},
	{
		name: "ticket-function",
		proves: "function authentication (ticket): the factory is called with the auth's config and returns the " +
			"authenticator; a right ticket with WELCOME extra, a wrong one and an unknown principal",
		client:   "client.py",
		static:   staticFile{"/", "web/index.html"},
		warnings: []string{joinRefused},
	},
	{
		name:   "patternsubs-yaml",
		proves: "a YAML config with a router-worker component's exact, prefix and wildcard subscriptions",
		client: "client.py",
		static: staticFile{"/", "index.html"},
	},
	{
		name: "rest-bridge",
		proves: "static web files, a router-worker Python backend, and the HTTP caller and publisher bridges " +
			"reaching it (results, an application error, events to the component and a WAMP subscriber)",
		client:   "client.py",
		static:   staticFile{"/", "web/index.html"},
		warnings: []string{`AppSession.onUserError(): "com.example.not_a_number: add2 adds numbers a 2"`},
	},
	{
		name:   "disclose",
		proves: "a container component that sees the caller and the publisher its role discloses",
		client: "client.py",
	},
	{
		name: "sharedregs",
		proves: "one procedure shared (invoke roundrobin) by five component instances: two in the router worker, " +
			"three in two containers",
		client: "client.py",
	},
	{
		name: "longpoll-votes",
		proves: "the votes demo over long-poll: a router-worker Python backend called and its events received by long-poll " +
			"clients (JSON; MessagePack batched) and WebSocket clients on one web transport; static web files",
		client: "client.py",
		static: staticFile{"/", "web/index.html"},
		check:  longpollVotes,
	},
	{
		name: "longpoll-counter",
		proves: "a long-poll service with its options (request_timeout, session_timeout, queue limits): a Python " +
			"component's counter events and a call over batched JSON long-poll, an idle receive answered empty",
		static: staticFile{"/", "index.html"},
		check:  longpollCounter,
	},
	{
		name: "longpoll-curl",
		proves: "the long-poll protocol by plain HTTP requests, as with curl: debug_transport_id, HELLO, SUBSCRIBE and " +
			"PUBLISH sent, WELCOME, SUBSCRIBED and the rest received, close, then 404",
		static: staticFile{"/", "index.html"},
		check:  longpollCurl,
	},
	{
		name: "universal-nodeinfo",
		proves: "a universal transport: RawSocket and WebSocket clients on one port calling and publishing to each " +
			"other, static files from the web part",
		client: "client.py",
		static: staticFile{"/", "web/index.html"},
	},
	{
		name: "universal-serializers",
		proves: "a universal transport whose parts name their type and serializers: RawSocket MessagePack and CBOR " +
			"(JSON refused), WebSocket JSON at one path and CBOR at another, a json document in the web part",
		client: "client.py",
		static: staticFile{"/", "index.html"},
	},
	{
		name: "event-history",
		proves: "a realm store's event histories (exact with a limit, prefix with the store's): events kept with no " +
			"subscriber, wamp.subscription.get_events newest first in Crossbar's item shape, history_unavailable",
		client: "client.py",
		static: staticFile{"/", "web/index.html"},
	},
	{
		name: "realm-stats",
		proves: "realm stats: wamp.session.on_stats at join (trigger_on_join) and at leave, with the session and " +
			"what it sent and received, to a monitoring client",
		client: "client.py",
	},
	{
		name:   "flashpolicy",
		proves: "a flashpolicy transport beside a web transport: the policy with allowed_domain and allowed_ports",
		static: staticFile{"/", "index.html"},
		check:  flashPolicy,
	},
	{
		name:   "json-paths",
		proves: "json path services with options (prettify, allow_cross_origin, discourage_caching) and in a nested path",
		client: "client.py",
		static: staticFile{"/", "index.html"},
	},
	{
		name: "missing-static-dir",
		proves: "static directories that do not exist: the node starts with a warning for each, they answer 404, " +
			"and the universal transport's RawSocket and WebSocket parts work",
		client: "client.py",
		warnings: []string{
			"config: {dir}/web does not exist: every request here gets 404 until it does",
			"config: {dir}/shared-web-resources does not exist: every request here gets 404 until it does",
		},
	},
	{
		name: "shared-workers",
		proves: "three identical router workers on one shared port (the benchmark shape) run as one router, " +
			"with the warnings that say so",
		static:  staticFile{"/", "index.html"},
		prepare: freePort,
		check:   sharedWorkers,
		warnings: []string{
			"config: ignored: Python-only",
			"config: ignored: SO_REUSEPORT is not set, so no other process can listen on this port",
			"config: identical to workers[0] and sharing its port: runs as one router with it " +
				"(Go uses every core in one process, where Crossbar starts a process per worker)",
		},
	},
	{
		name: "proxy",
		proves: "two identical proxy workers on a shared port (run as one) in front of a router worker on a Unix " +
			"socket (anonymous-proxy): clients authenticated by the proxy (anonymous, ticket) call and subscribe " +
			"through it, the backend sees their authid and authrole, an unrouted realm is refused, the proxy's " +
			"web paths (static, nodeinfo, a caller joined through the proxy) answer",
		client:  "client.py",
		static:  staticFile{"/", "web/index.html"},
		prepare: freePort,
		check:   proxyCaller,
		warnings: []string{joinRefused, // the unrouted realm, refused by the proxy
			"config: ignored: SO_REUSEPORT is not set, so no other process can listen on this port",
			"config: ignored: a WebSocket URL on a RawSocket connection (the endpoint says where to connect)",
			"config: identical to workers[0] and sharing its port: runs as one proxy with it " +
				"(Go uses every core in one process, where Crossbar starts a process per worker)",
		},
	},
	{
		name: "archive-local",
		proves: "an archive path: a ZIP in the node directory checked against its hash, served with object_prefix, " +
			"default_object, cache and mime_types",
		prepare: archiveLocal,
		check:   archiveServed,
	},
	{
		name: "archive-download",
		proves: "an archive path downloaded from its origin (a local HTTP server) at start, checked against one of " +
			"its hashes, kept in the node directory, served with default_object and options.default_file",
		prepare: archiveOrigin,
		check:   archiveDownloaded,
	},
	{
		name: "rlinks",
		proves: "a router link between two nodes: the node key made at start, the other node's cryptosign principal, " +
			"events and calls forwarded both ways over a Unix socket, no event forwarded back",
		check: routerLinks,
		// node2 starts after the link and stops before it
		warnings: []string{"client: connect failed", "router link lost"},
	},
	{
		name: "scram-static",
		proves: "static WAMP-SCRAM (argon2id-13, a principal made by autobahn's derive_scram_credential) from " +
			"autobahn-python: the role given, the server signature checked, the caller disclosed to a Python backend, " +
			"a wrong password and an unknown authid refused",
		client:   "client.py",
		static:   staticFile{"/", "web/index.html"},
		warnings: []string{joinRefused},
	},
	{
		name: "cookie-tracking",
		proves: "cookie tracking (file store) with cookie authentication: a ticket login gets a cbtid cookie, coming " +
			"back with it joins without a ticket as the same principal (authprovider cookie), logout ends that",
		client:   "client.py",
		static:   staticFile{"/", "web/index.html"},
		warnings: []string{joinRefused},
	},
	{
		name: "tls-client-cert",
		proves: "TLS client certificates from autobahn-python: a static principal by its SHA-1 fingerprint (from " +
			"the environment) with its role, a certificate no principal has and none at all refused, a ticket " +
			"login without a certificate; a Python dynamic authenticator reading the certificate's subject and issuer; " +
			"an untrusted CA's certificate failing the handshake",
		client:  "client.py",
		prepare: tlsClientCerts,
		warnings: []string{joinRefused,
			`Backend.onUserError(): "com.example.not_a_device: subject printer-1"`,
			`Backend.onUserError(): "com.example.no_certificate: a device logs in with its certificate"`,
		},
	},
	{
		name: "mqtt-native",
		proves: "MQTT 3.1.1 clients (paho) on an MQTT transport and inside a universal transport bridged to WAMP " +
			"both ways: native JSON and, by longest prefix, CBOR payload mappings, QoS 1, + and # filters; the " +
			"universal transport's web part",
		check: mqttNative,
	},
	{
		name: "mqtt-dynamic",
		proves: "a dynamic MQTT payload mapping: a router-worker Python codec on its own realm decodes MQTT payloads " +
			"into WAMP events and encodes WAMP events into MQTT payloads",
		static: staticFile{"/", "index.html"},
		check:  mqttDynamic,
	},
	{
		name: "mqtt-passthrough",
		proves: "the MQTT payload type passthrough: MQTT payloads (any bytes) reach WAMP subscribers (JSON, MessagePack) " +
			"as passthru payloads with enc_algo mqtt, and a WAMP passthru publication reaches MQTT subscribers byte for byte",
		check: mqttPassthrough,
	},
}

// joinRefused is the warning a node logs for every login it refuses
// (docs/operations.md, "Logging"): the nodes whose clients try a wrong
// secret or an unknown principal allow it.
const joinRefused = "join refused"

// mentions matches the log records with text in one of their string
// attributes (a line of a worker's output, whatever attribute holds it).
func mentions(text string) func(nodeproc.Record) bool {
	return func(r nodeproc.Record) bool {
		for _, v := range r {
			if s, ok := v.(string); ok && strings.Contains(s, text) {
				return true
			}
		}
		return false
	}
}
