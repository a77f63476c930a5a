package e2e_test

import (
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
)

// harness is the binary and the client dependencies (autobahn-js, curl),
// or why they are not usable; filled once by TestMain before any test
// runs.
var harness = new(nodeproc.Harness)

// startNode writes cfg into a new temp dir, starts the binary on it and
// waits for the log line "node started". When the test ends the node is
// stopped (see nodeproc.Node.Stop) unless the test stopped it already.
// name names it in reports ("router", "container"); allowed are the WARN
// messages it may log (any other warning fails the test).
func startNode(t *testing.T, name string, cfg obj, allowed ...string) *nodeproc.Node {
	t.Helper()
	opts := nodeproc.Options{Name: name, AllowedWarnings: allowed}
	return harness.Start(t, nodeproc.WriteConfig(t, cfg), opts)
}

// listenAddr is the address of n's transport N of worker 0.
func listenAddr(t *testing.T, n *nodeproc.Node, transport int) string {
	t.Helper()
	name := nodeproc.Transport(0, transport)
	a := n.Addr(name)
	if a == "" {
		t.Fatalf("no listening line for %s\n%s", name, n.Log())
	}
	return a
}
