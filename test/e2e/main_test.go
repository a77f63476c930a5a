// Package e2e_test proves the HTTP bridge end to end: the junction binary,
// started from a config file, serves curl-style HTTP requests that reach
// real WAMP clients (a Go client of client and autobahn-js), and
// its REST components call and notify real HTTP servers, across a restart
// of the router they connect to. See README.md.
package e2e_test

import (
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"go.uber.org/goleak"
)

// TestMain installs the dependencies (scripts/install-test-deps.sh, quick
// when they are present) and builds the junction binary once (with -race
// when the tests run with it); when either fails, every test that needs it
// fails with the reason. After the tests, no goroutine may be left.
func TestMain(m *testing.M) {
	nodeproc.Main(m, harness, func() error { return goleak.Find() })
}
