// Package junction runs a Junction node inside a Go program: a WAMP
// router configured as Crossbar.io is, with its transports, HTTP bridge
// services and components, as the junction command runs it.
//
// A node starts from a configuration: a file (LoadConfig), bytes
// (ParseConfig), or RouterConfig, an embedded router with the given realms
// and no listener. Run blocks until its context ends, then stops the node
// gracefully; Start returns the running Node, whose Listeners give the
// addresses its transports listen on (port 0 included) and whose Stop
// stops it.
//
// A program that carries its own router joins it with Node.Join: an
// in-process session (package client's Session) over no socket, which
// calls, registers, publishes and subscribes with the node's other
// sessions, in-process or over the network alike.
//
// # Stability
//
// Before v1, this package, client, wamp and wamp/codec are the public API:
// what docs/library.md lists as stable changes only with a note in the
// changelog; everything under internal/ may change at any time.
package junction
