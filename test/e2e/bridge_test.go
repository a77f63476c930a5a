package e2e_test

import (
	"testing"
)

// bridgeEnv is one node with the bridge's path services, and its peers.
type bridgeEnv struct {
	base string // http://ADDR
	addr string // ADDR of the web transport
	gp   *goPeer
	js   *jsPeer
	up   *upstream
}

// peerPrefixes are the procedure prefixes of the Go and autobahn-js
// callees.
var peerPrefixes = []string{"com.e2e.go", "com.e2e.js"}

// TestBridge runs the Caller, Publisher, Webhook, signed requests, curl
// and reverse proxy cases against one node, with a Go and an autobahn-js
// callee and subscriber. The groups run one after another, the cases of a
// group in parallel; "slow" runs last, since it leaves calls canceled
// behind.
func TestBridge(t *testing.T) {
	harness.RequireBinary(t)
	harness.RequireDeps(t)
	up := newUpstream(t)
	host, port := up.hostPort(t)
	paths := bridgePaths()
	paths["proxy"] = obj{"type": "reverseproxy", "host": host, "port": port, "path": "/base"}
	n := startNode(t, "router", routerConfig(0, paths), "bridge: webhook refused")
	addr := listenAddr(t, n, 0)
	env := &bridgeEnv{base: "http://" + addr, addr: addr, up: up}
	env.gp = startGoPeer(t, "ws://"+addr+"/ws", "com.e2e.go")
	env.js = startJSPeer(t, "ws://"+addr+"/ws", "com.e2e.js", "msgpack")

	t.Run("caller", func(t *testing.T) { testCaller(t, env) })
	t.Run("publisher", func(t *testing.T) { testPublisher(t, env) })
	t.Run("webhook", func(t *testing.T) { testWebhook(t, env) })
	t.Run("signed", func(t *testing.T) { testSigned(t, env) })
	t.Run("curl", func(t *testing.T) { testCurl(t, env) })
	t.Run("reverseproxy", func(t *testing.T) { testReverseProxy(t, env) })
	t.Run("slow", func(t *testing.T) { testSlow(t, env) })
}
