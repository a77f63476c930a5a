package interop_test

import (
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
)

// harness is the binary and the clients' dependencies (autobahn-js,
// autobahn-python), or why they are not usable; filled once by TestMain
// before any test runs.
var harness = new(nodeproc.Harness)

// node is a running junction binary: its transports' addresses.
type node struct {
	proc  *nodeproc.Node
	addrs [numTransports]string
}

// startNode starts the binary with the config of nodeConfig and waits
// until it listens (see nodeproc.Start: when the test ends the node is
// stopped with SIGTERM and must exit 0 with no warning in its log; when the
// test failed it is killed instead, and its log is added to the test's
// output).
func startNode(t *testing.T) *node {
	t.Helper()
	return startNodeWith(t, nodeproc.Options{})
}

// startNodeWith is startNode with opts.
func startNodeWith(t *testing.T, opts nodeproc.Options) *node {
	t.Helper()
	return nodeOf(t, harness.Start(t, nodeproc.WriteConfig(t, nodeConfig()), opts))
}

// nodeOf is the started node p of nodeConfig's transports (or a config
// built on it).
func nodeOf(t *testing.T, p *nodeproc.Node) *node {
	t.Helper()
	n := &node{proc: p}
	for i := range n.addrs {
		name := nodeproc.Transport(0, i)
		if n.addrs[i] = p.Addr(name); n.addrs[i] == "" {
			t.Fatalf("no listening line for %s", name)
		}
	}
	return n
}

// url is where a client authenticating with a reaches the node over
// transport tr ("websocket" or "rawsocket", or "universal-websocket" or
// "universal-rawsocket": the same on the universal transport's port).
func (n *node) url(tr string, a authCase) string {
	switch tr {
	case "websocket":
		return "ws://" + n.addrs[webTransport] + "/" + wsPaths[a.method]
	case "universal-websocket":
		return "ws://" + n.addrs[universalTransport] + "/" + wsPaths[a.method]
	case "universal-rawsocket":
		return "rs://" + n.addrs[universalTransport]
	}
	if a.method == anonymous.method {
		return "rs://" + n.addrs[rsAnonTransport]
	}
	return "rs://" + n.addrs[rsAuthTransport]
}
