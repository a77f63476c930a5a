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
// Junction is before v1: its Go API may still change in a minor release,
// and the CHANGELOG says when it does. Everything in this package is meant
// to stay; docs/library.md lists what is in the other public packages
// (client, wamp, wamp/codec). Nothing under internal/ is public.
package junction
