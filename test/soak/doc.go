// Package soak holds the soak tests: each runs the junction binary, built
// once for the package, under a load or an attack far past what the unit
// tests do, and checks that the node comes back, or stays within bounds.
//
// They are slow and stress the machine, so `make test` does not run them:
// their files carry the build tag soak, and `make soak` runs them
// (go test -tags soak ./test/soak). Under go test -short each skips with a
// message.
//
// The scenarios, one file each:
//
//   - burst_test.go: connection bursts past the descriptor limit, within
//     the connection caps and past them; every listener serves again.
//   - idle_test.go: 10,000 connections (WebSocket and RawSocket) that
//     never send HELLO, three times: each is closed by join_timeout, a
//     normal client joins meanwhile, the node's descriptors come back and
//     its memory stays within a bound per connection.
//   - login_test.go: 1,000 wrong logins from one address: the CHALLENGEs
//     come spaced as the login throttle's documentation says, the rest are
//     refused at once, and other clients and the attacked authid still log
//     in.
//   - memory_test.go: retained events and testaments past every default
//     limit: each refusal is junction.error.limit_exceeded and the node's
//     memory stays within a bound derived from the limits; and retained
//     events dense in small values (lists of empty objects), which must
//     count for what they cost decoded, not for their size on the wire.
//
// The node's descriptors and memory are read from /proc (proc_test.go), so
// the scenarios that check them need Linux. Their memory bounds are for
// the binary as shipped: run them without -race, as make soak does (with
// it, the node is built with the race detector too, which multiplies its
// memory). The idle scenario holds some
// 10,000 descriptors in the test process: it raises its own limit when it
// may, and otherwise fails saying what ulimit -Hn it needs.
//
// To add a scenario, add a file NAME_test.go beginning with
//
//	//go:build soak
//
// with one Test function per scenario that calls requireSoak(t) first,
// then startNode with a nodeSpec: the config (see routerConfig and the
// transport helpers), an optional descriptor limit (NoFile) and the
// warnings the node may log. The node runs in a temporary directory and is
// stopped at the end of the test (SIGTERM, exit status 0, no other warning
// or error in its log; see package test/internal/nodeproc). The helpers
// for clients (joinRaw, joinWS, joinRawAs and joinWSAs with withTicket,
// httpGet, openConns) and inParallel, which runs a step for many clients
// a few at a time, are in harness_test.go, those that read the node's
// usage (readUsage, sample) in proc_test.go; Node.WaitLog waits for log
// lines.
package soak
