package node

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/wamp"
)

// bridgeNodeDoc is node name of a cluster of three whose every node runs
// the same bridge: a signed Caller at /call (web transport 1), a
// MessageForwarder of com.example.fwd to target/fwd, and a RESTCallee of
// com.example.rest below target/<name>/ (so that a call's answer names
// the node whose copy served it).
func bridgeNodeDoc(name, listen, target string, routes ...string) string {
	var rs []string
	for _, r := range routes {
		rs = append(rs, fmt.Sprintf("%q", "nats://"+r))
	}
	return `{"version": 2, "controller": {"cluster": {"name": "t", "node": "` + name + `", "lease": 2,
		"nats": {"embedded": {"listen": "` + listen + `", "routes": [` + strings.Join(rs, ",") + `]}}}},
		"workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}},
			{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
				"call": {"type": "caller", "realm": "realm1", "role": "anonymous",
					"options": {"key": "k", "secret": "s", "timestamp_delta_limit": 60}}}}],
		"components": [
			{"type": "class", "classname": "crossbar.bridge.rest.MessageForwarder", "realm": "realm1",
				"extra": {"subscriptions": [{"topic": "com.example.fwd", "url": "` + target + `/fwd"}]}},
			{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
				"extra": {"procedure": "com.example.rest", "baseurl": "` + target + `/` + name + `/"}}]}]}`
}

// bridgeTarget is the HTTP target of the bridge nodes: it answers a
// callee's request with the path, and passes each forwarded event's body
// on.
type bridgeTarget struct {
	events chan string
}

func (f *bridgeTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/fwd" {
		b, _ := io.ReadAll(r.Body)
		f.events <- string(b)
		return
	}
	io.WriteString(w, r.URL.Path)
}

// startBridgeCluster starts three bridge nodes at once; they stop at the
// end of the test.
func startBridgeCluster(t *testing.T, target string) []*Node {
	nodes := startCluster(t, 3, func(addrs []string) []*Node {
		nodes := make([]*Node, 3)
		for i := range nodes {
			var routes []string
			for j, a := range addrs {
				if j != i {
					routes = append(routes, a)
				}
			}
			n, err := New(parse(t, bridgeNodeDoc(fmt.Sprintf("n%d", i+1), addrs[i], target, routes...), nil), Options{})
			if err != nil {
				t.Fatal(err)
			}
			nodes[i] = n
		}
		return nodes
	})
	members := []*cluster.Node{nodes[0].cluster, nodes[1].cluster, nodes[2].cluster}
	clustertest.WaitMembers(t, members, members...)
	return nodes
}

// TestClusterBridge: three nodes run the same bridge config. The
// RESTCallee's three copies all serve calls made on any node; a signed
// request accepted by one node is refused as a replay by the others; the
// MessageForwarder forwards each event once and in order, from the one
// node that holds its lock, and another node takes over when the holder
// dies.
func TestClusterBridge(t *testing.T) {
	target := &bridgeTarget{events: make(chan string, 1024)}
	srv := httptest.NewServer(target)
	defer srv.Close()
	nodes := startBridgeCluster(t, srv.URL)

	t.Run("Callee", func(t *testing.T) {
		for _, n := range nodes {
			c := mustRaw(t, "tcp", address(t, n, "workers[0].transports[0]"), client.Config{Realm: "realm1"})
			waitCallees(t, c, "com.example.rest", 3) // the other nodes' components may still be registering
			served := map[string]bool{}
			for range 3 { // roundrobin over the three nodes' callees
				res, err := c.Call(testCtx(t), "com.example.rest", nil, wamp.ObjectOf(wamp.Dict{"method": "GET"}))
				if err != nil {
					t.Fatal(err)
				}
				served[calleeNode(t, res)] = true
			}
			if len(served) != 3 {
				t.Errorf("three calls on one node were served by %v, want the three nodes' callees", served)
			}
		}
	})

	t.Run("Replay", func(t *testing.T) {
		body := `{"procedure": "com.example.rest", "kwargs": {"method": "GET"}}`
		query := func(nonce string) string {
			ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
			sig := base64.URLEncoding.EncodeToString(bridge.Sign("s", "k", ts, "1", nonce, []byte(body)))
			return "?key=k&timestamp=" + ts + "&seq=1&nonce=" + nonce + "&signature=" + url.QueryEscape(sig)
		}
		callURL := func(n *Node) string { return "http://" + address(t, n, "workers[0].transports[1]") + "/call" }
		// Until the replay table is open on n1 (in the background, while
		// the cluster's JetStream elects its leaders), a signed request
		// is refused with 503 and the advice to sign it again with a new
		// nonce: as a client would, each try has a nonce of its own.
		var q string
		tries := 0
		eventually(t, func() []string {
			tries++
			q = query(fmt.Sprint(4242 + 1000*tries))
			if code, got := post(t, callURL(nodes[0])+q, body, nil); code != http.StatusOK {
				return []string{fmt.Sprintf("signed POST on n1 = %d %s", code, got)}
			}
			return nil
		})
		for _, n := range nodes {
			if code, got := post(t, callURL(n)+q, body, nil); code != http.StatusUnauthorized || !strings.Contains(got, "nonce already used") {
				t.Errorf("the request replayed on a node = %d %s, want 401 nonce already used", code, got)
			}
		}
		if code, got := post(t, callURL(nodes[1])+query("4243"), body, nil); code != http.StatusOK { // 4243 is never one of n1's tries
			t.Errorf("another nonce on n2 = %d %s, want 200", code, got)
		}
	})

	t.Run("Subscriber", func(t *testing.T) {
		start := time.Now()
		holder := waitHolder(t, nodes, nil)
		t.Logf("a node holds the lock after %v", time.Since(start))
		other := nodes[(index(nodes, holder)+1)%3]
		publisher := mustRaw(t, "tcp", address(t, other, "workers[0].transports[0]"), client.Config{Realm: "realm1"})
		checkForwarded(t, publisher, target.events, "a")

		start = time.Now()
		clustertest.Kill(holder.cluster)
		next := waitHolder(t, nodes, holder)
		t.Logf("the lock was taken over %v after its holder died (lease 2s)", time.Since(start))
		// The new holder's node publishes: a subscription made on a node
		// just after another node was lost may take seconds to reach the
		// third node (its watch of the interest table may have lived on
		// the lost node's server), which is the PubSub's window, not the
		// lock's.
		publisher = mustRaw(t, "tcp", address(t, next, "workers[0].transports[0]"), client.Config{Realm: "realm1"})
		checkForwarded(t, publisher, target.events, "b")
	})
}

// calleeNode returns the node whose callee served a call: the first
// segment of the path the target echoed.
func calleeNode(t *testing.T, res *client.Result) string {
	t.Helper()
	var d wamp.Dict
	if len(res.Args) > 0 {
		d, _ = wamp.AsDict(res.Args[0])
	}
	content, _ := d["content"].(string)
	if content == "" {
		t.Fatalf("result %+v", res)
	}
	return strings.Split(strings.TrimPrefix(content, "/"), "/")[0]
}

// waitCallees waits until the session's node sees want callees of proc
// (the meta API answers for the cluster).
func waitCallees(t *testing.T, c *client.Session, proc wamp.URI, want int) {
	t.Helper()
	eventually(t, func() []string {
		res, err := c.Call(testCtx(t), "wamp.registration.lookup", wamp.List{string(proc)}, wamp.Object{})
		if err != nil || len(res.Args) == 0 || res.Args[0] == nil {
			return []string{fmt.Sprintf("lookup %s: %v %v", proc, res, err)}
		}
		res, err = c.Call(testCtx(t), "wamp.registration.count_callees", wamp.List{res.Args[0]}, wamp.Object{})
		if err != nil || len(res.Args) == 0 {
			return []string{fmt.Sprintf("count_callees %s: %v %v", proc, res, err)}
		}
		if n, _ := wamp.AsInt(res.Args[0]); n != int64(want) {
			return []string{fmt.Sprintf("%s has %v callees, want %d", proc, res.Args[0], want)}
		}
		return nil
	})
}

// waitHolder waits until one node other than gone runs the forwarder,
// and returns it.
func waitHolder(t *testing.T, nodes []*Node, gone *Node) *Node {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(3 * testTimeout)
	for {
		var holders []*Node
		for _, n := range nodes {
			if n != gone && forwarder(t, n).Holding() {
				holders = append(holders, n)
			}
		}
		if len(holders) > 1 {
			t.Fatalf("%d nodes run the forwarder at once", len(holders))
		}
		if len(holders) == 1 {
			return holders[0]
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("no node took the forwarder's lock")
		}
	}
}

// forwarder returns n's MessageForwarder unit.
func forwarder(t *testing.T, n *Node) *lockedComponent {
	t.Helper()
	for _, c := range n.snapshotComponents() {
		if l, ok := c.comp.(*lockedComponent); ok {
			return l
		}
	}
	t.Fatal("no locked component")
	return nil
}

// index is n's index in nodes, or -1.
func index(nodes []*Node, n *Node) int {
	for i, m := range nodes {
		if m == n {
			return i
		}
	}
	return -1
}

// checkForwarded publishes on p until an event marked run reaches the
// target (the forwarder's subscription may not have reached p's node
// yet), then 50 numbered events and an end mark: the target must get
// them once each, in order.
func checkForwarded(t *testing.T, p *client.Session, events chan string, run string) {
	t.Helper()
	publish := func(v string) {
		if _, err := p.Publish(testCtx(t), "com.example.fwd", wamp.List{v}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
	}
	receive := func() string {
		select {
		case e := <-events:
			return e
		case <-time.After(testTimeout):
			t.Fatal("no event forwarded")
			return ""
		}
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(testTimeout)
	start := time.Now()
	for warm := false; !warm; {
		publish(run + "-warm")
		select {
		case e := <-events:
			warm = strings.Contains(e, run+"-warm")
		case <-tick.C:
		case <-deadline:
			t.Fatal("no event forwarded")
		}
	}
	t.Logf("%s: the first event forwarded after %v", run, time.Since(start))
	for i := range 50 {
		publish(fmt.Sprintf("%s-%d", run, i))
	}
	publish(run + "-end")
	var got []string
	for e := receive(); !strings.Contains(e, run+"-end"); e = receive() {
		if !strings.Contains(e, run+"-warm") {
			got = append(got, e)
		}
	}
	if len(got) != 50 {
		t.Fatalf("%d events forwarded, want 50 once each: %q", len(got), got)
	}
	for i, e := range got {
		if want := fmt.Sprintf(`"%s-%d"`, run, i); !strings.Contains(e, want) {
			t.Fatalf("event %d forwarded: %s, want %s (once each, in order)", i, e, want)
		}
	}
}
