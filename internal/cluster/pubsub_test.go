package cluster_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
	"github.com/nats-io/nats.go/jetstream"
)

// testCluster is routers on the nodes of a cluster, linked by Fabrics.
type testCluster struct {
	nodes   []*cluster.Node
	fabrics []*cluster.Fabric
	routers []*router.Router
}

// startRouters starts n nodes with a router each serving realm1 and
// realm2 (and "here", kept local).
func startRouters(t *testing.T, n int, opts ...clustertest.Option) *testCluster {
	t.Helper()
	tc := &testCluster{nodes: clustertest.Start(t, n, opts...)}
	for _, nd := range tc.nodes {
		f := cluster.NewFabric(nd, slog.New(slog.DiscardHandler))
		r, err := router.New(router.Options{Fabric: f, Realms: []router.RealmOptions{
			{Name: "realm1"}, {Name: "realm2"}, {Name: "here", Local: true}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			r.Close()
			f.Close()
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = f.Start(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		tc.fabrics, tc.routers = append(tc.fabrics, f), append(tc.routers, r)
	}
	return tc
}

// waitInterest waits until node i's mirror has want members interested
// in topic of realm, and returns how long that took.
func (tc *testCluster) waitInterest(t *testing.T, i int, realm, topic wamp.URI, want int) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(10 * time.Second)
	for {
		changed := cluster.InterestChanged(tc.fabrics[i])
		if got := cluster.Interested(tc.fabrics[i], realm, topic); len(got) == want {
			return time.Since(start)
		}
		select {
		case <-changed:
		case <-deadline:
			got := cluster.Interested(tc.fabrics[i], realm, topic)
			t.Fatalf("node %d: %d members interested in %s, want %d", i+1, len(got), topic, want)
		}
	}
}

// sent is the number of envelopes node i has sent.
func (tc *testCluster) sent(i int) uint64 { return tc.nodes[i].Stats().Sent }

// markerOf is a test's marker topic, which no pattern of the tests
// matches.
func markerOf(t *testing.T) wamp.URI {
	return wamp.URI("zz." + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "_")))
}

// expectMarker checks that the next message of c is the EVENT of the
// marker subscription: nothing came twice before it (one publisher's
// events keep their order).
func expectMarker(c *wireSession, sub wamp.ID) {
	c.t.Helper()
	if ev := expect[*wamp.Event](c); ev.Subscription != sub {
		c.t.Fatalf("session %d: EVENT %+v, want the marker", c.id, ev)
	}
}

// TestPubSub runs the PubSub tests on one cluster of three nodes; each
// uses its own topics.
func TestPubSub(t *testing.T) {
	tc := startRouters(t, 3)
	for _, tt := range []struct {
		name string
		fn   func(*testing.T, *testCluster)
	}{
		{"Matching", testMatching},
		{"Overlapping", testOverlapping},
		{"InterestOnly", testInterestOnly},
		{"ExcludeMe", testExcludeMe},
		{"Exclusion", testExclusion},
		{"DisclosureAndAck", testDisclosureAndAck},
		{"PublisherOrder", testPublisherOrder},
		{"RawPayload", testRawPayload},
		{"Realms", testRealms},
		{"InterestWindow", testInterestWindow},
		{"Retained", testRetained},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, tc) })
	}
}

// testMatching: an event published on node 1 reaches the subscribers of
// every matching exact, prefix and wildcard subscription on nodes 2 and
// 3 exactly once.
func testMatching(t *testing.T, tc *testCluster) {
	marker := markerOf(t)
	subs := []struct {
		node    int
		pattern wamp.URI
		match   string
		want    bool
	}{
		{1, "match.a.b", "exact", true},
		{2, "match.a", "prefix", true},
		{2, "match.a.bc", "exact", false},
		{1, "match..b", "wildcard", true},
		{2, "match..c", "wildcard", false},
		{1, "match.ab", "prefix", false},
	}
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	var clients []*wireSession
	for _, s := range subs {
		c := connect(t, tc.routers[s.node], "realm1", codec.Msgpack)
		c.subscribe(s.pattern, wamp.Dict{"match": s.match})
		clients = append(clients, c)
	}
	markers := make([]wamp.ID, len(clients))
	for i, c := range clients {
		markers[i] = c.subscribe(marker, nil)
	}
	tc.waitInterest(t, 0, "realm1", "match.a.b", 2)
	tc.waitInterest(t, 0, "realm1", marker, 2)
	pub.publish("match.a.b", nil, "hi")
	pub.publish(marker, nil)
	for i, c := range clients {
		if subs[i].want {
			if ev := expect[*wamp.Event](c); !slices.Equal(ev.Args, wamp.List{"hi"}) {
				t.Errorf("%s %s: EVENT %+v", subs[i].match, subs[i].pattern, ev)
			}
		}
		expectMarker(c, markers[i])
	}
}

// testOverlapping: one envelope per publication and interested node; the
// node delivers it once per matching subscription, as one node would.
func testOverlapping(t *testing.T, tc *testCluster) {
	marker := markerOf(t)
	all := connect(t, tc.routers[1], "realm1", codec.JSON)
	ids := []wamp.ID{
		all.subscribe("over.a.b", nil),
		all.subscribe("over.a", wamp.Dict{"match": "prefix"}),
		all.subscribe("over..b", wamp.Dict{"match": "wildcard"}),
	}
	one := connect(t, tc.routers[1], "realm1", codec.JSON)
	one.subscribe("over.a.b", nil)
	local := connect(t, tc.routers[0], "realm1", codec.JSON)
	local.subscribe("over", wamp.Dict{"match": "prefix"})
	ma, mo := all.subscribe(marker, nil), one.subscribe(marker, nil)
	tc.waitInterest(t, 0, "realm1", "over.a.b", 1)
	tc.waitInterest(t, 0, "realm1", marker, 1)
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	before := tc.sent(0)
	pub.publish("over.a.b", nil)
	var got []wamp.ID
	for _, ev := range all.events(3) {
		got = append(got, ev.Subscription)
	}
	slices.Sort(got)
	slices.Sort(ids)
	if !slices.Equal(got, ids) {
		t.Errorf("events on %v, want one on each of %v", got, ids)
	}
	one.events(1)
	local.events(1)
	if n := tc.sent(0) - before; n != 1 {
		t.Errorf("%d envelopes for one publication to one node, want 1", n)
	}
	pub.publish(marker, nil)
	expectMarker(all, ma)
	expectMarker(one, mo)
}

// testInterestOnly: events travel only to nodes with a matching
// subscription; an unsubscribe, or the subscriber leaving, withdraws the
// node's interest.
func testInterestOnly(t *testing.T, tc *testCluster) {
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	before := tc.sent(0)
	pub.publish("only.t", wamp.Dict{"acknowledge": true})
	expect[*wamp.Published](pub)
	if n := tc.sent(0) - before; n != 0 {
		t.Errorf("%d envelopes with no subscriber anywhere", n)
	}
	sub := connect(t, tc.routers[2], "realm1", codec.JSON)
	id := sub.subscribe("only.t", nil)
	other := connect(t, tc.routers[2], "realm1", codec.JSON)
	other.subscribe("only", wamp.Dict{"match": "prefix"})
	tc.waitInterest(t, 0, "realm1", "only.t", 1)
	before = tc.sent(0)
	pub.publish("only.t", nil)
	sub.events(1)
	other.events(1)
	if n := tc.sent(0) - before; n != 1 {
		t.Errorf("%d envelopes to the one interested node, want 1", n)
	}
	sub.unsubscribe(id)
	other.send(&wamp.Goodbye{Reason: wamp.ErrCloseRealm, Details: wamp.Dict{}})
	expect[*wamp.Goodbye](other)
	tc.waitInterest(t, 0, "realm1", "only.t", 0)
	before = tc.sent(0)
	pub.publish("only.t", wamp.Dict{"acknowledge": true})
	expect[*wamp.Published](pub)
	if n := tc.sent(0) - before; n != 0 {
		t.Errorf("%d envelopes after the interest was withdrawn", n)
	}
}

// testExcludeMe: exclude_me (the default) keeps a publication from the
// publisher's own subscription; false gives it one, once.
func testExcludeMe(t *testing.T, tc *testCluster) {
	marker := markerOf(t)
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	pub.subscribe("me.t", nil)
	pm := pub.subscribe(marker, nil)
	remote := connect(t, tc.routers[1], "realm1", codec.JSON)
	remote.subscribe("me.t", nil)
	rm := remote.subscribe(marker, nil)
	tc.waitInterest(t, 0, "realm1", "me.t", 1)
	tc.waitInterest(t, 0, "realm1", marker, 1)
	pub.publish("me.t", nil, 1)
	pub.publish("me.t", wamp.Dict{"exclude_me": false}, 2)
	pub.publish(marker, wamp.Dict{"exclude_me": false})
	if ev := expect[*wamp.Event](pub); !slices.Equal(ev.Args, wamp.List{int64(2)}) {
		t.Errorf("publisher got %v, want only the event without exclude_me", ev.Args)
	}
	expectMarker(pub, pm)
	remote.events(2)
	expectMarker(remote, rm)
}

// testExclusion: exclude/eligible by session ID, authid and authrole
// select the receivers on every node.
func testExclusion(t *testing.T, tc *testCluster) {
	marker := markerOf(t)
	// a and b on node 2, c on node 3, all anonymous.
	cs := map[string]*wireSession{
		"a": connect(t, tc.routers[1], "realm1", codec.JSON),
		"b": connect(t, tc.routers[1], "realm1", codec.JSON),
		"c": connect(t, tc.routers[2], "realm1", codec.Msgpack),
	}
	markers := map[string]wamp.ID{}
	for name, c := range cs {
		c.subscribe("excl.t", nil)
		markers[name] = c.subscribe(marker, nil)
	}
	tc.waitInterest(t, 0, "realm1", "excl.t", 2)
	tc.waitInterest(t, 0, "realm1", marker, 2)
	id := func(n string) any { return uint64(cs[n].id) }
	authid := func(n string) any { return cs[n].wel.Details["authid"] }
	tests := []struct {
		name string
		opts wamp.Dict
		want []string
	}{
		{"none", wamp.Dict{}, []string{"a", "b", "c"}},
		{"exclude session", wamp.Dict{"exclude": []any{id("a"), id("c")}}, []string{"b"}},
		{"eligible session", wamp.Dict{"eligible": []any{id("c")}}, []string{"c"}},
		{"eligible empty", wamp.Dict{"eligible": []any{}}, nil},
		{"exclude authid", wamp.Dict{"exclude_authid": []any{authid("b")}}, []string{"a", "c"}},
		{"eligible authid", wamp.Dict{"eligible_authid": []any{authid("a"), authid("c")}}, []string{"a", "c"}},
		{"exclude authrole", wamp.Dict{"exclude_authrole": []any{"anonymous"}}, nil},
		{"eligible authrole", wamp.Dict{"eligible_authrole": []any{"anonymous"}}, []string{"a", "b", "c"}},
		{"eligible authrole other", wamp.Dict{"eligible_authrole": []any{"admin"}}, nil},
		{"eligible role minus session", wamp.Dict{"eligible_authrole": []any{"anonymous"}, "exclude": []any{id("b")}}, []string{"a", "c"}},
	}
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	for _, tt := range tests {
		pub.publish("excl.t", tt.opts, tt.name)
		pub.publish(marker, nil)
		for name, c := range cs {
			if slices.Contains(tt.want, name) {
				if ev := expect[*wamp.Event](c); !slices.Equal(ev.Args, wamp.List{tt.name}) {
					t.Errorf("%s: %s got %v", tt.name, name, ev.Args)
				}
			}
			expectMarker(c, markers[name])
		}
	}
}

// testDisclosureAndAck: the publisher's identity reaches the other nodes
// when disclosed, and only then; PUBLISHED answers an acknowledged
// publication.
func testDisclosureAndAck(t *testing.T, tc *testCluster) {
	sub := connect(t, tc.routers[2], "realm1", codec.Msgpack)
	sub.subscribe("disc", wamp.Dict{"match": "prefix"})
	tc.waitInterest(t, 0, "realm1", "disc.t", 1)
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	req := pub.publish("disc.t", wamp.Dict{"disclose_me": true, "acknowledge": true})
	if p := expect[*wamp.Published](pub); p.Request != req {
		t.Errorf("PUBLISHED %+v for request %d", p, req)
	}
	ev := expect[*wamp.Event](sub)
	d := ev.Details
	if n, _ := wamp.AsInt(d["publisher"]); wamp.ID(n) != pub.id || d["publisher_authrole"] != "anonymous" ||
		d["publisher_authid"] != pub.wel.Details["authid"] || d["topic"] != "disc.t" {
		t.Errorf("details %v", d)
	}
	pub.publish("disc.t", nil)
	if d := expect[*wamp.Event](sub).Details; len(d) != 1 {
		t.Errorf("undisclosed: details %v, want the topic only", d)
	}
}

// testPublisherOrder: one publisher's events reach subscribers on the
// other nodes in publication order, none missing.
func testPublisherOrder(t *testing.T, tc *testCluster) {
	const n = 2000
	subs := []*wireSession{connect(t, tc.routers[1], "realm1", codec.Msgpack), connect(t, tc.routers[2], "realm1", codec.JSON)}
	for _, c := range subs {
		c.subscribe("order.t", nil)
	}
	tc.waitInterest(t, 0, "realm1", "order.t", 2)
	pub := connect(t, tc.routers[0], "realm1", codec.Msgpack)
	go func() {
		for i := range n {
			b, _ := pub.p.c.Encode(&wamp.Publish{Request: wamp.ID(i + 1), Options: wamp.Dict{}, Topic: "order.t", Args: wamp.List{i}})
			select {
			case pub.p.in <- b:
			case <-pub.p.closed:
				return
			}
		}
	}()
	for _, c := range subs {
		for i := range n {
			ev := expect[*wamp.Event](c)
			if got, _ := wamp.AsInt(ev.Args[0]); got != int64(i) {
				t.Fatalf("session %d: event %d carries %v", c.id, i, ev.Args)
			}
		}
	}
}

// testRawPayload: a payload crosses as received: a subscriber with the
// publisher's serializer on another node gets its bytes unchanged (1.50
// stays 1.50, the keys in their order), one with another serializer the
// same values.
func testRawPayload(t *testing.T, tc *testCluster) {
	same := connect(t, tc.routers[1], "realm1", codec.JSON)
	same.subscribe("raw.t", nil)
	other := connect(t, tc.routers[2], "realm1", codec.CBOR)
	other.subscribe("raw.t", nil)
	tc.waitInterest(t, 0, "realm1", "raw.t", 2)
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	const payload = `[1.50,"x",{"z":1,"a":[]}],{"k":"v","b":true}`
	select {
	case pub.p.in <- []byte(`[16,1,{},"raw.t",` + payload + `]`):
	case <-time.After(10 * time.Second):
		t.Fatal("publisher blocked")
	}
	if b := same.recvBytes(); !strings.Contains(string(b), payload) {
		t.Errorf("EVENT %s, want the payload %s unchanged", b, payload)
	}
	ev := expect[*wamp.Event](other)
	if ev.Args[0] != 1.5 || ev.Args[1] != "x" || len(ev.Kwargs) != 2 {
		t.Errorf("CBOR EVENT %+v", ev)
	}
}

// testRealms: a realm's events never reach another realm's sessions, and
// a realm kept local ("cluster": false) stays on its node.
func testRealms(t *testing.T, tc *testCluster) {
	marker := markerOf(t)
	r2 := connect(t, tc.routers[1], "realm2", codec.JSON)
	r2.subscribe("realms.t", nil)
	m2 := r2.subscribe(marker, nil)
	here := connect(t, tc.routers[1], "here", codec.JSON)
	here.subscribe("realms.t", nil)
	r1 := connect(t, tc.routers[1], "realm1", codec.JSON)
	r1.subscribe("realms.t", nil)
	tc.waitInterest(t, 0, "realm1", "realms.t", 1)
	tc.waitInterest(t, 0, "realm2", "realms.t", 1)
	tc.waitInterest(t, 0, "realm2", marker, 1)
	if got := cluster.Interested(tc.fabrics[0], "here", "realms.t"); len(got) != 0 {
		t.Errorf("local realm's interest announced: %v", got)
	}
	connect(t, tc.routers[0], "realm1", codec.JSON).publish("realms.t", nil, "realm1")
	connect(t, tc.routers[0], "here", codec.JSON).publish("realms.t", nil, "here")
	p2 := connect(t, tc.routers[0], "realm2", codec.JSON)
	p2.publish("realms.t", nil, "realm2")
	p2.publish(marker, nil)
	if ev := expect[*wamp.Event](r1); ev.Args[0] != "realm1" {
		t.Errorf("realm1 subscriber got %v", ev.Args)
	}
	if ev := expect[*wamp.Event](r2); ev.Args[0] != "realm2" {
		t.Errorf("realm2 subscriber got %v", ev.Args)
	}
	expectMarker(r2, m2)
	hm := here.subscribe(marker, nil)
	connect(t, tc.routers[1], "here", codec.JSON).publish(marker, nil)
	expectMarker(here, hm) // nothing from the other node's "here" before
}

// testInterestWindow measures the window in which a new subscription on
// one node may miss events published on another: from SUBSCRIBED until
// the publisher's node has the interest in its mirror.
func testInterestWindow(t *testing.T, tc *testCluster) {
	const rounds = 20
	var took []time.Duration
	sub := connect(t, tc.routers[2], "realm1", codec.JSON)
	for i := range rounds {
		topic := wamp.URI(fmt.Sprintf("window.t%d", i))
		id := sub.subscribe(topic, nil)
		took = append(took, tc.waitInterest(t, 0, "realm1", topic, 1))
		sub.unsubscribe(id)
	}
	slices.Sort(took)
	t.Logf("interest window over %d subscriptions: median %v, max %v", rounds, took[rounds/2], took[rounds-1])
}

// waitRetained waits until node i's mirror of the ret table has
// publication id as topic's retained event, and returns how long that
// took.
func (tc *testCluster) waitRetained(t *testing.T, i int, topic wamp.URI, id wamp.ID) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(10 * time.Second)
	for {
		changed := cluster.InterestChanged(tc.fabrics[i])
		if cluster.RetainedID(tc.fabrics[i], "realm1", topic) == id {
			return time.Since(start)
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("node %d: retained event of %s is %d, want %d", i+1, topic,
				cluster.RetainedID(tc.fabrics[i], "realm1", topic), id)
		}
	}
}

// testRetained: an event published with retain on one node is the
// retained event on every node (get_retained), with its publication ID
// and disclosure; a later one published on another node replaces it
// everywhere.
func testRetained(t *testing.T, tc *testCluster) {
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	pub.publish("ret.t", wamp.Dict{"retain": true, "acknowledge": true, "disclose_me": true}, "first")
	first := expect[*wamp.Published](pub).Publication
	var took []time.Duration
	for i := 1; i < 3; i++ {
		took = append(took, tc.waitRetained(t, i, "ret.t", first))
	}
	t.Logf("retained event on the other nodes after %v", took)
	sub := connect(t, tc.routers[1], "realm1", codec.Msgpack)
	sub.subscribe("ret", wamp.Dict{"match": "prefix", "get_retained": true})
	ev := expect[*wamp.Event](sub)
	if ev.Publication != first || ev.Details["retained"] != true || ev.Details["publisher_authrole"] != "anonymous" ||
		!slices.Equal(ev.Args, wamp.List{"first"}) {
		t.Errorf("retained EVENT %+v", ev)
	}

	tc.waitInterest(t, 2, "realm1", "ret.t", 1)
	other := connect(t, tc.routers[2], "realm1", codec.JSON)
	other.publish("ret.t", wamp.Dict{"retain": true, "acknowledge": true}, "second")
	second := expect[*wamp.Published](other).Publication
	if ev := expect[*wamp.Event](sub); ev.Publication != second || ev.Details["retained"] != nil {
		t.Errorf("live EVENT %+v", ev)
	}
	for i := range 2 {
		tc.waitRetained(t, i, "ret.t", second)
	}
	late := connect(t, tc.routers[0], "realm1", codec.JSON)
	late.subscribe("ret.t", wamp.Dict{"get_retained": true})
	if ev := expect[*wamp.Event](late); ev.Publication != second || !slices.Equal(ev.Args, wamp.List{"second"}) {
		t.Errorf("retained EVENT on the first node %+v, want the second publication", ev)
	}
}

// TestPubSubMemberLost: a node killed without goodbye loses its interest
// on the others within its lease (events no longer go to it) and its
// records leave the table; the others' events flow on.
func TestPubSubMemberLost(t *testing.T) {
	tc := startRouters(t, 3)
	doomed := connect(t, tc.routers[2], "realm1", codec.JSON)
	doomed.subscribe("lost.t", nil)
	alive := connect(t, tc.routers[1], "realm1", codec.JSON)
	alive.subscribe("lost.t", nil)
	tc.waitInterest(t, 0, "realm1", "lost.t", 2)
	dead := tc.nodes[2].Self()
	clustertest.Kill(tc.nodes[2])
	took := tc.waitInterest(t, 0, "realm1", "lost.t", 1)
	t.Logf("interest of the killed node gone after %v", took)
	waitNoRecords(t, tc.nodes[0], dead)
	pub := connect(t, tc.routers[0], "realm1", codec.JSON)
	before := tc.sent(0)
	pub.publish("lost.t", nil, "after")
	if ev := expect[*wamp.Event](alive); ev.Args[0] != "after" {
		t.Errorf("EVENT %v", ev.Args)
	}
	if n := tc.sent(0) - before; n != 1 {
		t.Errorf("%d envelopes, want 1 (to the live subscriber's node only)", n)
	}
	// A subscription made after the loss reaches the others: the table's
	// watchers watch anew (their consumer may have lived on the killed
	// node's server, and would stall for seconds).
	alive.subscribe("lost.new", nil)
	took = tc.waitInterest(t, 0, "realm1", "lost.new", 1)
	t.Logf("a new interest seen after the loss in %v", took)
}

// waitNoRecords waits until the sub table holds no record of member m.
func waitNoRecords(t *testing.T, nd *cluster.Node, m cluster.Member) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := nd.KV(ctx, "sub")
	if err != nil {
		t.Fatal(err)
	}
	w, err := kv.Watch(ctx, cluster.Token(m.Name)+"."+strconv.FormatUint(m.Epoch, 16)+".*")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	keys := map[string]bool{}
	loaded := false
	for {
		select {
		case e := <-w.Updates():
			switch {
			case e == nil:
				loaded = true
			case e.Operation() == jetstream.KeyValuePut:
				keys[e.Key()] = true
			default:
				delete(keys, e.Key())
			}
		case <-ctx.Done():
			t.Fatalf("the sub table still holds %d records of %s", len(keys), m)
		}
		if loaded && len(keys) == 0 {
			return
		}
	}
}
