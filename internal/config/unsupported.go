package config

// What Junction refuses of Crossbar's configuration, with what each thing
// is and what to do instead: the messages of those errors.

// databaseConnections is the warning of a worker's or the controller's
// "connections": Crossbar's PostgreSQL connection pools. Crossbar 21.3.1
// checks them and never opens them (its node starts the connections of
// proxy workers alone, which are another thing), so Junction does not
// either.
const databaseConnections = ": database connections, which Crossbar 21.3.1 checks and never opens either; " +
	"a component or guest worker that needs a database opens it itself"

// unsupportedTransports are the listening transport types Junction does
// not have, with why.
var unsupportedTransports = map[string]string{
	"websocket.testee": "Crossbar's WebSocket echo server for the Autobahn test suite, as a router transport; " +
		"use a websocket-testee worker, the same echo server on a port of its own",
	"stream.testee": "Crossbar's TCP echo server for its tests; run an echo server as a guest worker",
}

// unsupportedEndpoints are the endpoint types Junction does not have,
// with why.
var unsupportedEndpoints = map[string]string{
	"twisted": "Python-only",
	"onion":   "a Tor onion service: run Tor beside the node and point its hidden service at a tcp endpoint",
	"tor":     "a connection through Tor: use a tcp endpoint, through a Tor gateway if needed",
}

// unsupportedWorkers are the worker types Junction does not have, with
// why.
var unsupportedWorkers = map[string]string{
	"xbrmm":       "Python-only (XBR market maker)",
	"hub":         "Python-only (Crossbar.io FX)",
	"marketplace": "Python-only (XBR)",
}

// Messages of an old configuration: a file without "version" is
// Crossbar's version 1, which Crossbar refuses as too old, asking for
// "crossbar upgrade".
const (
	upgradeHint    = "upgrade it with \"crossbar upgrade\" (Junction reads version 2)"
	missingVersion = "a file without \"version\" is in Crossbar's old format (version 1), which Crossbar refuses too: " +
		upgradeHint + ", or add \"version\": 2 if it already is in the current format"
)
