// Package soak holds the soak tests: each runs the junction binary, built
// once for the package, under a load or an attack far past what the unit
// tests do, and checks that the node comes back, or stays within bounds.
//
// They are slow and stress the machine, so `make test` does not run them:
// their files carry the build tag soak, and `make soak` runs them
// (go test -tags soak ./test/soak). Under go test -short each skips with a
// message.
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
// for clients (joinRaw, joinWS, httpGet, openConns) and for waiting on log
// lines (Node.WaitLog) are in harness_test.go.
package soak
