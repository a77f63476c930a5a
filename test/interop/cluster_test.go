package interop_test

import (
	"fmt"
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
)

// clusterConfig is nodeConfig as node i (0-based) of the cluster
// "interop" whose nodes' embedded NATS servers accept routes on addrs.
func clusterConfig(i int, addrs []string) obj {
	var routes []string
	for j, a := range addrs {
		if j != i {
			routes = append(routes, "nats://"+a)
		}
	}
	cfg := nodeConfig()
	cfg["controller"] = obj{"cluster": obj{"name": "interop", "node": fmt.Sprintf("node-%d", i+1),
		"nats": obj{"embedded": obj{"listen": addrs[i], "routes": routes}}}}
	return cfg
}

// clusterWarnings are the warnings a node of a cluster logs in a
// healthy run: its NATS server's while the routes and the JetStream
// leader are not yet there, or its JetStream not yet current with that
// leader (all nodes start at once), and its snapshot
// as it stops, and, as the test's end stops the nodes one after the
// other, the cluster's for a node whose goodbye did not reach the others
// before its connection closed (a clean leave is "member left", info).
var clusterWarnings = []string{
	"Waiting for routing to be established...",
	"JetStream has not established contact with a meta leader",
	"JetStream is not current with the meta leader",
	"Metalayer blocking snapshot*",
	"cluster: member lost",
}

// startCluster starts n binaries as the nodes of one cluster, each with
// nodeConfig's realm and transports, and waits until each has started
// and sees all the others (its log's "cluster: member up" lines).
func startCluster(t *testing.T, n int) []*node {
	t.Helper()
	addrs := nodeproc.FreeAddrs(t, n)
	paths := make([]string, n)
	opts := make([]nodeproc.Options, n)
	for i := range n {
		paths[i] = nodeproc.WriteConfig(t, clusterConfig(i, addrs))
		opts[i] = nodeproc.Options{Name: fmt.Sprintf("node-%d", i+1), AllowedWarnings: clusterWarnings}
	}
	procs := harness.StartAll(t, paths, opts)
	nodes := make([]*node, n)
	for i, p := range procs {
		p.WaitLog(t, "every other node up", n-1, nodeproc.MsgIs("cluster: member up"))
		nodes[i] = nodeOf(t, p)
	}
	return nodes
}

// TestCluster runs the scenario across the nodes of a three-node
// cluster, each node its own junction process: autobahn-python's callee
// and subscriber on one node serve autobahn-js's caller and publisher on
// another, and the other way round, each with its own serializer and
// transport: calls (with progressive results and an application error)
// and an event cross between the nodes. The caller starts once the
// callee has its registrations and subscription (REGISTERED and
// SUBSCRIBED); a registration is found from every node as soon as it is
// acknowledged, a subscription once its interest has reached the
// publisher's node (docs/cluster.md, "The interest window": a few
// milliseconds at most, against the caller's start-up of a new Node.js
// or Python process and its three calls before it publishes). The last
// case does it in passthru mode (two autobahn-python sessions with a
// payload codec): the passthru payloads and their options cross the
// cluster's envelopes.
func TestCluster(t *testing.T) {
	harness.RequireDeps(t)
	nodes := startCluster(t, 3)
	cases := []struct {
		name           string
		callee, caller client
		calleeArgs     scenarioArgs
		callerArgs     scenarioArgs
	}{
		{
			name: "python-callee-node1/js-caller-node2", callee: pyClient, caller: jsClient,
			calleeArgs: argsFor(nodes[0].url("websocket", ticket), "cbor", ticket),
			callerArgs: argsFor(nodes[1].url("websocket", anonymous), "msgpack", anonymous),
		},
		{
			name: "js-callee-node3/python-caller-node1", callee: jsClient, caller: pyClient,
			calleeArgs: argsFor(nodes[2].url("rawsocket", anonymous), "json", anonymous),
			callerArgs: argsFor(nodes[0].url("rawsocket", wampcra), "msgpack", wampcra),
		},
		{
			name: "js-callee-node2/python-caller-node3", callee: jsClient, caller: pyClient,
			calleeArgs: argsFor(nodes[1].url("websocket", cryptosign), "json", cryptosign),
			callerArgs: argsFor(nodes[2].url("websocket", anonymous), "json", anonymous),
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runPair(t, "com.interop.cluster"+string(rune('a'+i)), tc.callee, tc.calleeArgs, tc.caller, tc.callerArgs)
		})
	}
	t.Run("python-passthru-node3/python-passthru-node2", func(t *testing.T) {
		t.Parallel()
		runPassthruPair(t, "com.interop.clusterpassthru",
			argsFor(nodes[2].url("websocket", anonymous), "msgpack", anonymous), argsFor(nodes[1].url("rawsocket", anonymous), "json", anonymous))
	})
}
