package archtest

// rule says which packages of the module a package may import directly.
// The standard library is always allowed, and so is a third-party module
// unless stdOnly is set (go.mod is where a new dependency is asked for).
//
// A pattern in allowed, as a key of rules, is a package path under the
// module: "wamp" is that package alone, "internal/transport/..."
// the package and every package below it.
type rule struct {
	allowed []string
	stdOnly bool
	// importers, when set, are the only packages of the module that may
	// import this one (their tests included).
	importers []string
	// tests holds the package's _test.go files to the rule too. Set for
	// packages that are nothing but tests; elsewhere a test may import any
	// package of the module (the bridge's tests assemble a real router,
	// as the node does).
	tests bool
	// testHelper marks a package made for tests: it may import the
	// testOnly modules, and only _test.go files (or another testHelper)
	// may import it, so that it is never linked into the binary either.
	testHelper bool
}

// rules is the import rule of every package: the one whose key matches
// most specifically (an exact key before a "/..." one, a longer one before
// a shorter one), so the order of the entries means nothing. A package
// that no key matches fails TestImportRules: a new package states its rule
// here, one line, the day it is created.
var rules = map[string]rule{
	// The message model every other package shares: a leaf.
	"wamp": {stdOnly: true},
	// Serializers turn messages into bytes and back, nothing more.
	"wamp/codec": {allowed: []string{"wamp"}},
	// A pure matching index (no I/O), fuzzed against a naive matcher.
	"internal/uriindex": {stdOnly: true},
	// The api service's route templates: parsing and matching only (the
	// config validates with it, the bridge serves with it), a leaf.
	"internal/apiroute": {stdOnly: true},
	// Authenticators; role permissions compile into a uriindex.
	"internal/auth": {allowed: []string{"wamp", "internal/uriindex"}},
	// The router is tested without sockets or JSON: it never reaches a
	// transport, the web, the bridge, a client, the config or the node.
	// Transports reach it through the Attacher interface they declare.
	// meter: the counters it keeps for the operator are its own atomics.
	// loginguard: the login throttle and handshake reading it shares with
	// the proxy's entries.
	// unsent: what to do with a message a peer refused, shared with the
	// proxy's relay.
	"internal/router": {allowed: []string{"wamp", "internal/uriindex", "internal/auth", "internal/lograte", "internal/meter", "internal/loginguard", "internal/unsent"}},
	// What the router and the proxy's relay do with a message a peer's
	// Send refused (too long, not encodable): URIs, texts, the plainer
	// forms, the rate-limited log. It knows neither of them.
	"internal/unsent": {allowed: []string{"wamp", "internal/lograte"}},
	// The guard of outside clients' logins (throttle, the handshake's
	// reads, the refusal log) that the router and the proxy share: it
	// runs authenticators (auth) and logs (lograte), and knows neither.
	"internal/loginguard": {allowed: []string{"wamp", "internal/auth", "internal/lograte"}},
	// Transports carry messages: they encode with the codec and share the
	// outbox, keepalive and idle reader among themselves; never the router.
	"internal/transport/...": {allowed: []string{"wamp", "wamp/codec", "internal/transport/...", "internal/lograte", "internal/wsupgrade"}},
	// MQTT bridged to WAMP: its own packet codec, payloads in the WAMP
	// codecs, packets through the outbox; sessions reach the router through
	// its Attacher.
	"internal/transport/mqtt": {allowed: []string{"wamp", "wamp/codec", "internal/transport/outbox", "internal/transport/tlsconn", "internal/lograte"}},
	// The poller that idle connections park in (epoll on Linux): system
	// calls only, a leaf.
	"internal/transport/idlepoll": {stdOnly: true},
	// The TLS connection under a connection's wrappers (the universal
	// transport's), for the transports and the web server: a leaf.
	"internal/transport/tlsconn": {stdOnly: true},
	// Connection caps under every listener: counting and rate-limited
	// refusal warnings, nothing of WAMP.
	"internal/transport/connlimit": {allowed: []string{"internal/lograte"}, stdOnly: true},
	// A client session runs over any wamp.Peer its caller dials; Dial
	// makes one from a URL with the network transports (their client
	// halves; neither imports client, so nothing cycles). auth signs its
	// challenges. Never the router: embedded sessions get a peer pair.
	"client": {allowed: []string{"wamp", "internal/auth", "internal/ctxwait", "internal/transport/websocket", "internal/transport/rawsocket", "internal/transport/longpoll"}},
	// The bridge's embedded sessions are clients on a peer the node makes,
	// never the router itself. The codec is for its plain-JSON bodies (the
	// Caller's and Publisher's hot path, with no reflection), not for WAMP.
	"internal/bridge/...": {allowed: []string{"wamp", "wamp/codec", "client", "internal/ctxwait", "internal/auth", "internal/bridge/webhooksig", "internal/bridge/httpauth", "internal/lograte", "internal/dotsegment", "internal/meter", "internal/apiroute", "internal/transport/connlimit"}},
	// Who an HTTP request comes from (JWT, API key, Basic): the identity
	// is a wamp.Identity, failures are logged with lograte, JWTs verified
	// by go-jose; it knows no session, service or router.
	"internal/bridge/httpauth": {allowed: []string{"wamp", "internal/lograte"}},
	// Webhook providers' signature schemes: HMACs over the standard library.
	"internal/bridge/webhooksig": {stdOnly: true},
	// A proxy worker's relay: it authenticates clients (auth) and relays
	// their messages to backend routers over peers the node dials; it
	// never reaches a router, a transport or the config.
	// loginguard throttles its clients' logins as the router's; lograte
	// limits the lines its clients cause.
	// unsent: what to do with a message its client's peer refused, as
	// the router does.
	"internal/proxy": {allowed: []string{"wamp", "internal/auth", "internal/loginguard", "internal/lograte", "internal/unsent"}},
	// Counters (a lock-free histogram, HTTP requests by status) that the
	// router, the bridge and the web proxies keep in their own structs:
	// atomics and the standard library, no Prometheus type.
	"internal/meter": {stdOnly: true},
	// The Prometheus collector over the node's counters: the only package
	// that imports client_golang (with the node, which mounts it).
	"internal/metrics": {allowed: []string{"internal/router", "internal/proxy", "internal/meter"}},
	// Rate-limited warnings, usable on any hot path: a leaf.
	"internal/lograte": {stdOnly: true},
	// Captures a logger's records for the tests that check log lines: a
	// leaf.
	"internal/logtest": {stdOnly: true},
	// An in-memory net.Listener for the web servers' tests in synctest
	// bubbles: tests only.
	"internal/pipenet": {stdOnly: true, testHelper: true},
	// Headless Chromium for the tests that check a page in a real browser
	// (the dashboard's, the README tour's): tests only.
	"internal/browsertest": {testHelper: true, importers: []string{"internal/node", "docs"}},
	// The config is data and validation only (uriindex for match types):
	// the node translates it, so no package but the node depends on it.
	// apiroute checks the api service's route templates.
	"internal/config": {allowed: []string{"wamp", "internal/uriindex", "internal/apiroute"}},
	// The web transport serves HTTP paths with handlers the node gives it
	// (the WebSocket and bridge services included); nothing that routes.
	// h1 is its HTTP/1.1 engine below the handlers (ServerOptions.Engine);
	// the loop engine runs on epoll.
	"internal/web": {allowed: []string{"wamp", "internal/lograte", "internal/wsupgrade", "internal/dotsegment", "internal/transport/tlsconn", "internal/web/h1", "internal/httpsyntax", "internal/epoll"}},
	// Linux's epoll and sockets out of Go's netpoller, for the web
	// transport's loop engine: the standard library only, and only web
	// runs loops on it.
	"internal/epoll": {stdOnly: true, importers: []string{"internal/web"}},
	// The HTTP/1.1 server engine under the web transport: net/http's
	// parser and types, rate-limited accept warnings; only web serves
	// with it.
	"internal/web/h1": {allowed: []string{"internal/lograte", "internal/httpsyntax"}, importers: []string{"internal/web"}},
	// HTTP/1.1 message syntax (tokens, field values, blanks, path bytes, a
	// plain Content-Length, a body of that length) that the engines'
	// request parsers and the proxy's answer parser read: a leaf.
	"internal/httpsyntax": {stdOnly: true, importers: []string{"internal/web", "internal/web/h1"}},
	// The WebSocket opening handshake as the WAMP endpoint (transport) and
	// the proxies (web) both read it: a leaf.
	"internal/wsupgrade": {stdOnly: true},
	// What an upstream could read as a dot segment in a path, as the
	// Callee (bridge/rest) and the reverse proxy (web) both check it: a
	// leaf.
	"internal/dotsegment": {stdOnly: true},
	// A wait that a context ends, the pause of retry loops: a leaf.
	"internal/ctxwait": {stdOnly: true},
	// Child processes (guest workers, the Python runner): the standard
	// library only, and the node alone starts them.
	"internal/process": {stdOnly: true, importers: []string{"internal/node"}},
	// The Python runner's program (embedded) and the node's end of its
	// control channel: the standard library only. It spawns nothing (the
	// node starts the runner with process) and no package but the node
	// uses it.
	"internal/pyrunner": {stdOnly: true, importers: []string{"internal/node"}},
	// The Python web server's program (embedded) for the "wsgi" and
	// "resource" paths, and the node's ends of its socket and ready pipe:
	// the standard library only, spawning nothing, used by the node alone.
	"internal/pyweb": {stdOnly: true, importers: []string{"internal/node"}},
	// The cluster's links between nodes over NATS (the only package that
	// imports it): it implements the router's Fabric, so it may reach the
	// router and the message model, never the config, a transport or the
	// node.
	"internal/cluster": {allowed: []string{"internal/router", "wamp", "wamp/codec", "internal/uriindex", "internal/lograte"}},
	// Clusters of nodes in one test process, for tests only.
	"internal/cluster/clustertest": {testHelper: true, allowed: []string{"internal/cluster", "internal/logtest"}, importers: []string{"internal/cluster", "internal/node", "docs"}},
	// The composition root: config -> routers, transports, web, bridges.
	"internal/node": {allowed: []string{"internal/...", "wamp/...", "client"}},
	// The public entry (package junction): a node from a config, and
	// in-process sessions on its routers; like the command, it wraps
	// config and node, and hands out the public client's sessions.
	root: {allowed: []string{"internal/...", "wamp/...", "client"}},
	// The command: flags, logging and signals around config and node.
	"cmd/junction": {allowed: []string{"internal/...", "wamp/...", "client"}},
	// This test: go list and the standard library.
	"internal/archtest": {stdOnly: true, tests: true},
	// The docs' tests load every example config and start nodes from them,
	// as the command does.
	"docs": {allowed: []string{"internal/...", "wamp/...", "client"}, tests: true},
	// One suite over every transport x serializer, in process: the router
	// as a library with real transports and clients; no config or node.
	"test/integration": {allowed: []string{"wamp/...", "internal/auth", "internal/router", "client", "internal/transport/..."}, tests: true},
	// Router benchmarks, in process: the router with real transports and
	// clients, as test/integration.
	"test/bench": {allowed: []string{"wamp/...", "internal/router", "client", "internal/transport/..."}, tests: true},
	// The router process of the idle-memory measurements: the router and
	// its two stream transports, nothing of the client.
	"test/bench/idlerouter": {allowed: []string{"wamp/...", "internal/router", "internal/transport/..."}},
	// The load generator is a client process: it never links the router.
	"test/bench/loadpeer": {allowed: []string{"wamp/...", "client", "internal/transport/..."}},
	// The base-vs-head load generator is a client process too, the same
	// binary driving both builds' routers over the wire.
	"test/bench/loadgen": {allowed: []string{"wamp/...", "client", "internal/transport/..."}},
	// End-to-end tests drive the built binary over the wire: clients and
	// nodeproc, never the node, the router or the config in process.
	"test/e2e": {allowed: []string{"wamp/...", "client", "internal/transport/...", "test/internal/nodeproc"}, tests: true},
	// Soak tests (build tag soak, listed with it): the binary under load
	// and floods, over the wire, as test/e2e.
	"test/soak": {allowed: []string{"wamp/...", "client", "internal/transport/...", "test/internal/nodeproc"}, tests: true},
	// Interop tests: the reference clients (autobahn-js, autobahn-python,
	// wampy) against the built binary, through nodeproc only.
	"test/interop": {allowed: []string{"test/internal/nodeproc"}, tests: true},
	// The corpus of Crossbar-shaped nodes: the built binary run in node
	// directories, their clients (and Go checks over the wire) as in
	// test/e2e.
	"test/corpus": {allowed: []string{"wamp/...", "client", "internal/transport/...", "test/internal/nodeproc"}, tests: true},
	// Builds, starts and stops the binary: it knows its command line and
	// its logs, none of its packages.
	"test/internal/nodeproc": {stdOnly: true},
}

// moduleImporters are the only packages of the module that may import a
// third-party module (any of its packages), their tests included. The
// Prometheus client stays out of the router, the transports and the
// bridge: they count with plain atomics (internal/meter), which
// internal/metrics reads at scrape time.
var moduleImporters = map[string][]string{
	"github.com/prometheus/client_golang": {"internal/metrics"},
	// NATS stays in internal/cluster: without controller.cluster no NATS
	// code runs, and the router knows only its Fabric interfaces.
	"github.com/nats-io/nats-server/v2": {"internal/cluster"},
	"github.com/nats-io/nats.go":        {"internal/cluster"},
}

// testOnly are the third-party modules that only _test.go files may
// import, so that they are never linked into the binary.
var testOnly = []string{
	// Drives headless Chromium in the browser tests (internal/browsertest,
	// a testHelper).
	"github.com/chromedp/",
	// The CBOR decoder the codec had before its own: its tests' reference.
	"github.com/fxamacker/cbor/",
	// Goroutine leak checks of the tests.
	"go.uber.org/goleak",
	// Validates the api service's OpenAPI document against the official
	// schema (internal/bridge's tests).
	"github.com/santhosh-tekuri/jsonschema/",
}
