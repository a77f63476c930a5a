package cluster_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/cluster/clustertest"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// histLimit is the events the event history of TestSessions' realm keeps
// on each node (of topics under com.hist).
const histLimit = 4

func TestSessions(t *testing.T) {
	sites := startRealmSites(t, 3, router.RealmOptions{Name: "realm1",
		EventHistory: []router.EventHistory{{Topic: "com.hist", Match: wamp.MatchPrefix, Limit: histLimit}}})
	t.Run("ids", func(t *testing.T) { testSessionIDs(t, sites) })
	t.Run("count and list", func(t *testing.T) { testSessionCount(t, sites) })
	t.Run("get", func(t *testing.T) { testSessionGet(t, sites) })
	t.Run("subscriptions", func(t *testing.T) { testSubscriptionMeta(t, sites) })
	t.Run("subscription lookup and match", func(t *testing.T) { testSubscriptionLookup(t, sites) })
	t.Run("get_events", func(t *testing.T) { testGetEvents(t, sites) })
	t.Run("get_events too large", func(t *testing.T) { testGetEventsTooLarge(t, sites) })
	t.Run("meta events", func(t *testing.T) { testMetaEvents(t, sites) })
	t.Run("kill", func(t *testing.T) { testSessionKill(t, sites) })
	t.Run("kill by authid", func(t *testing.T) { testSessionKillBy(t, sites) })
	t.Run("revoked by a realm update", func(t *testing.T) { testRevokedOnUpdate(t, sites) })
}

// testSessionIDs: every node draws its session IDs in a slot of its own
// (the same residue modulo 4096), never another node's.
func testSessionIDs(t *testing.T, sites []*site) {
	owner := map[uint64]int{}
	for i, s := range sites {
		for range 8 {
			slot := (uint64(s.join(t).ID()) - 1) % 4096
			if o, ok := owner[slot]; ok && o != i {
				t.Fatalf("slot %d drawn by nodes %d and %d", slot, o, i)
			}
			owner[slot] = i
		}
	}
	if len(owner) != len(sites) {
		t.Errorf("slots %v: want one per node", owner)
	}
}

// metaCall calls a meta procedure and fails the test on an error.
func metaCall(t *testing.T, c *client.Session, proc wamp.URI, args ...any) wamp.List {
	t.Helper()
	res, err := c.Call(ctxFor(t), proc, wamp.List(args), nil)
	if err != nil {
		t.Fatalf("%s: %v", proc, err)
	}
	return res.Args
}

// ids reads a list of IDs.
func ids(v any) []wamp.ID {
	var out []wamp.ID
	l, _ := v.(wamp.List)
	for _, e := range l {
		n, _ := wamp.AsInt(e)
		out = append(out, wamp.ID(n))
	}
	return out
}

func testSessionCount(t *testing.T, sites []*site) {
	var mine []wamp.ID
	for _, s := range sites {
		mine = append(mine, s.join(t).ID(), s.join(t).ID())
	}
	for i, s := range sites {
		c := s.join(t)
		list := ids(metaCall(t, c, "wamp.session.list")[0])
		for _, id := range append(slices.Clone(mine), c.ID()) {
			if !slices.Contains(list, id) {
				t.Errorf("node %d: wamp.session.list %v lacks session %d", i, list, id)
			}
		}
		// The sessions of earlier tests may still be leaving: count and
		// list see at least this test's.
		n, _ := wamp.AsInt(metaCall(t, c, "wamp.session.count")[0])
		if int(n) < len(mine)+1 {
			t.Errorf("node %d: count %d, want at least %d", i, n, len(mine)+1)
		}
		if n, _ := wamp.AsInt(metaCall(t, c, "wamp.session.count", wamp.List{"nobody"})[0]); n != 0 {
			t.Errorf("node %d: count of role nobody %d", i, n)
		}
		l := ids(metaCall(t, c, "wamp.session.list", wamp.List{"anonymous"})[0])
		for _, id := range mine {
			if !slices.Contains(l, id) {
				t.Errorf("node %d: list of role anonymous %v lacks session %d", i, l, id)
			}
		}
	}
}

func testSessionGet(t *testing.T, sites []*site) {
	far, c := sites[2].join(t), sites[0].join(t)
	d, _ := metaCall(t, c, "wamp.session.get", uint64(far.ID()))[0].(wamp.Dict)
	if id, _ := wamp.AsInt(d["session"]); wamp.ID(id) != far.ID() || d["authrole"] != "anonymous" || d["transport"] == nil {
		t.Errorf("wamp.session.get of a session on another node: %v", d)
	}
	_, err := c.Call(ctxFor(t), "wamp.session.get", wamp.List{uint64(wamp.MaxID)}, nil)
	if !isError(err, wamp.ErrNoSuchSession) {
		t.Errorf("wamp.session.get of no session: %v", err)
	}
}

// testSubscriptionMeta: a subscription with subscribers on two nodes is
// listed once, with every subscriber, on the third (which has none).
func testSubscriptionMeta(t *testing.T, sites []*site) {
	a, b, c := sites[1].join(t), sites[2].join(t), sites[0].join(t)
	var subs []*client.Subscription
	for _, s := range []*client.Session{a, b} {
		sub, err := s.Subscribe(ctxFor(t), "com.meta.sub", func(*client.Event) {}, nil)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, sub)
	}
	id := subs[0].ID()
	if subs[1].ID() != id {
		t.Fatalf("subscription IDs %d and %d", id, subs[1].ID())
	}
	lists, _ := metaCall(t, c, "wamp.subscription.list")[0].(wamp.Dict)
	if exact := ids(lists["exact"]); slices.Index(exact, id) < 0 || len(slices.Compact(slices.Sorted(slices.Values(exact)))) != len(exact) {
		t.Errorf("wamp.subscription.list: exact %v, want %d once", exact, id)
	}
	d, _ := metaCall(t, c, "wamp.subscription.get", uint64(id))[0].(wamp.Dict)
	if d["uri"] != "com.meta.sub" || d["match"] != "exact" {
		t.Errorf("wamp.subscription.get: %v", d)
	}
	got := ids(metaCall(t, c, "wamp.subscription.list_subscribers", uint64(id))[0])
	slices.Sort(got)
	want := []wamp.ID{a.ID(), b.ID()}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("list_subscribers: %v, want %v", got, want)
	}
	if n, _ := wamp.AsInt(metaCall(t, c, "wamp.subscription.count_subscribers", uint64(id))[0]); n != 2 {
		t.Errorf("count_subscribers: %d, want 2", n)
	}
	_, err := c.Call(ctxFor(t), "wamp.subscription.get", wamp.List{uint64(wamp.MaxID)}, nil)
	if !isError(err, wamp.ErrNoSuchSubscription) {
		t.Errorf("wamp.subscription.get of none: %v", err)
	}
}

func subscribe(t *testing.T, c *client.Session, topic wamp.URI, opts wamp.Dict) wamp.ID {
	t.Helper()
	sub, err := c.Subscribe(ctxFor(t), topic, func(*client.Event) {}, opts)
	if err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return sub.ID()
}

// idOf reads a meta procedure's single result, an ID or null (0).
func idOf(v any) wamp.ID {
	n, _ := wamp.AsInt(v)
	return wamp.ID(n)
}

// testSubscriptionLookup: lookup and match find the subscriptions that
// only other nodes have, with the IDs their subscribers got, each once,
// and never one of a protected topic.
func testSubscriptionLookup(t *testing.T, sites []*site) {
	far, near, c := sites[2].join(t), sites[1].join(t), sites[0].join(t)
	exact := subscribe(t, far, "com.look.a.b", nil)
	if again := subscribe(t, near, "com.look.a.b", nil); again != exact {
		t.Fatalf("subscription IDs %d and %d", exact, again)
	}
	prefix := subscribe(t, near, "com.look.a", wamp.Dict{"match": wamp.MatchPrefix})
	wildcard := subscribe(t, far, "com.look..b", wamp.Dict{"match": wamp.MatchWildcard})
	subscribe(t, far, "wamp.session.on_leave", nil) // protected: anonymous does not see it
	lookups := []struct {
		topic wamp.URI
		match string
		want  wamp.ID
	}{
		{"com.look.a.b", "", exact},
		{"com.look.a", wamp.MatchPrefix, prefix},
		{"com.look.a", wamp.MatchExact, 0},
		{"com.look..b", wamp.MatchWildcard, wildcard},
		{"com.look.none", "", 0},
		{"wamp.session.on_leave", "", 0},
	}
	for i, caller := range []*client.Session{c, near} { // none here; some here, not all
		for _, l := range lookups {
			opts := wamp.Dict{}
			if l.match != "" {
				opts["match"] = l.match
			}
			if got := idOf(metaCall(t, caller, "wamp.subscription.lookup", string(l.topic), opts)[0]); got != l.want {
				t.Errorf("caller %d: lookup(%s, %q) = %d, want %d", i, l.topic, l.match, got, l.want)
			}
		}
		got := ids(metaCall(t, caller, "wamp.subscription.match", "com.look.a.b")[0])
		slices.Sort(got)
		want := []wamp.ID{exact, prefix, wildcard}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("caller %d: match(com.look.a.b) = %v, want %v, each once", i, got, want)
		}
		for _, topic := range []string{"com.look.none", "wamp.session.on_leave"} {
			if res := metaCall(t, caller, "wamp.subscription.match", topic); res[0] != nil {
				t.Errorf("caller %d: match(%s) = %v, want null", i, topic, res[0])
			}
		}
	}
}

// testGetEvents: get_events answers with the newest events of the
// subscription's history on every node, merged newest first, whichever
// node is called; its errors as on one node.
func testGetEvents(t *testing.T, sites []*site) {
	var pubs []*client.Session
	for _, s := range sites {
		pubs = append(pubs, s.join(t))
	}
	c := sites[0].join(t)
	hist := idOf(metaCall(t, c, "wamp.subscription.lookup", "com.hist", wamp.Dict{"match": wamp.MatchPrefix})[0])
	if hist == 0 {
		t.Fatal("the history's subscription is not found")
	}
	// Publications acknowledged one after the other, on every node in
	// turn: each is recorded by its node before the next is published.
	var order []string
	for i := range 2 * histLimit {
		arg := fmt.Sprintf("e%d", i)
		ack := wamp.Dict{"acknowledge": true}
		if _, err := pubs[i%len(pubs)].Publish(ctxFor(t), wamp.URI(fmt.Sprintf("com.hist.n%d", i%len(pubs))), wamp.List{arg}, nil, ack); err != nil {
			t.Fatal(err)
		}
		order = append(order, arg)
	}
	slices.Reverse(order) // newest first
	for i, s := range sites {
		caller := s.join(t)
		for _, limit := range []int{1, 3, histLimit, 100} {
			res := metaCall(t, caller, "wamp.subscription.get_events", uint64(hist), limit)
			// No node holds more than histLimit of them: all are kept.
			if got, want := eventArgs(t, res[0]), order[:min(limit, len(order))]; !slices.Equal(got, want) {
				t.Errorf("node %d: get_events(limit %d) = %v, want %v", i, limit, got, want)
			}
		}
	}
	other := subscribe(t, pubs[2], "com.nohist", nil)
	errs := []struct {
		id   wamp.ID
		want wamp.URI
	}{
		{other, "wamp.error.history_unavailable"},
		{wamp.MaxID, wamp.ErrNoSuchSubscription},
	}
	for _, e := range errs {
		if _, err := c.Call(ctxFor(t), "wamp.subscription.get_events", wamp.List{uint64(e.id)}, nil); !isError(err, e.want) {
			t.Errorf("get_events(%d): %v, want %s", e.id, err, e.want)
		}
	}
}

// testGetEventsTooLarge: a node whose events pass what one NATS message
// carries makes get_events an ERROR at once, never the other nodes'
// events alone; fewer of them are answered.
func testGetEventsTooLarge(t *testing.T, sites []*site) {
	c, pub := sites[0].join(t), sites[1].join(t)
	hist := idOf(metaCall(t, c, "wamp.subscription.lookup", "com.hist", wamp.Dict{"match": wamp.MatchPrefix})[0])
	big := strings.Repeat("x", 400<<10) // NATS carries 1 MiB: three do not go
	for range histLimit {
		if _, err := pub.Publish(ctxFor(t), "com.hist.big", wamp.List{big}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
	}
	// The member says its answer is too large (not silence: the
	// scatter-gather would wait 2 s and answer cluster_unavailable).
	_, err := c.Call(ctxFor(t), "wamp.subscription.get_events", wamp.List{uint64(hist), histLimit}, nil)
	if !isError(err, wamp.ErrLimitExceeded) || !strings.Contains(err.Error(), "passes the cluster's message size") {
		t.Errorf("get_events of %d events of 400 KiB on another node: %v, want %s", histLimit, err, wamp.ErrLimitExceeded)
	}
	res := metaCall(t, c, "wamp.subscription.get_events", uint64(hist), 2)
	if l, _ := res[0].(wamp.List); len(l) != 2 {
		t.Errorf("get_events of 2: %d events", len(l))
	}
}

// eventArgs reads the first argument of each event get_events returned.
func eventArgs(t *testing.T, v any) []string {
	t.Helper()
	l, ok := v.(wamp.List)
	if !ok {
		t.Fatalf("get_events: %#v, not a list", v)
	}
	var out []string
	for _, e := range l {
		var d wamp.Dict
		switch e := e.(type) {
		case wamp.Dict:
			d = e
		case wamp.Object:
			d = e.Dict()
		}
		args, _ := d["args"].(wamp.List)
		if len(args) != 1 || d["realm"] != "realm1" || d["topic"] == nil || d["session_id"] == nil {
			t.Fatalf("event %v", e)
		}
		s, _ := args[0].(string)
		out = append(out, s)
	}
	return out
}

// waitEnded waits until the router ended c.
func waitEnded(t *testing.T, c *client.Session) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(rpcWait):
		t.Fatalf("session %d was not killed", c.ID())
	}
}

func testSessionKill(t *testing.T, sites []*site) {
	far, c := sites[1].join(t), sites[0].join(t)
	metaCall(t, c, "wamp.session.kill", uint64(far.ID()), "com.reason", "go away")
	waitEnded(t, far)
	_, err := c.Call(ctxFor(t), "wamp.session.kill", wamp.List{uint64(far.ID())}, nil)
	if !isError(err, wamp.ErrNoSuchSession) {
		t.Errorf("wamp.session.kill of a killed session: %v", err)
	}
	_, err = c.Call(ctxFor(t), "wamp.session.kill", wamp.List{uint64(c.ID())}, nil)
	if !isError(err, wamp.ErrNoSuchSession) {
		t.Errorf("wamp.session.kill of the caller: %v", err)
	}
}

// testSessionKillBy kills the sessions of one authid on two nodes from
// the third.
func testSessionKillBy(t *testing.T, sites []*site) {
	a, b, c := sites[1].join(t), sites[2].join(t), sites[0].join(t)
	authid, _ := a.Details()["authid"].(string)
	res := ids(metaCall(t, c, "wamp.session.kill_by_authid", authid)[0])
	if !slices.Equal(res, []wamp.ID{a.ID()}) {
		t.Errorf("kill_by_authid %q: %v, want [%d]", authid, res, a.ID())
	}
	waitEnded(t, a)
	res = ids(metaCall(t, c, "wamp.session.kill_by_authrole", "anonymous")[0])
	if !slices.Contains(res, b.ID()) || slices.Contains(res, c.ID()) {
		t.Errorf("kill_by_authrole: %v, want %d and never the caller %d", res, b.ID(), c.ID())
	}
	waitEnded(t, b)
}

// TestSessionsMemberSilent: a live member that does not answer makes the
// session meta procedures an ERROR, never a partial answer; once it is
// lost, the others answer for themselves.
func TestSessionsMemberSilent(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(time.Second, 200*time.Millisecond))
	c, other := sites[0].join(t), sites[1].join(t)
	sites[2].join(t)
	sites[2].fabric.Close() // the node lives on; its fabric answers nothing
	calls := []struct {
		proc wamp.URI
		args wamp.List
	}{
		{"wamp.session.count", nil},
		{"wamp.subscription.lookup", wamp.List{"com.silent"}},
		{"wamp.subscription.match", wamp.List{"com.silent"}},
		{"wamp.subscription.get_events", wamp.List{1}},
	}
	var wg sync.WaitGroup
	want := []wamp.ID{c.ID(), other.ID()}
	for _, call := range calls { // at once, each waiting for the silent member
		caller := sites[0].join(t)
		want = append(want, caller.ID())
		wg.Go(func() {
			_, err := caller.Call(ctxFor(t), call.proc, call.args, nil)
			if !isError(err, wamp.ErrClusterUnavailable) {
				t.Errorf("%s with a silent member: %v, want %s", call.proc, err, wamp.ErrClusterUnavailable)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if n := sites[0].router.Stats().CallErrors[string(wamp.ErrClusterUnavailable)]; n != uint64(len(calls)) {
		t.Errorf("call errors %s: %d, want %d", wamp.ErrClusterUnavailable, n, len(calls))
	}
	clustertest.Kill(sites[2].node)
	clustertest.WaitMembers(t, []*cluster.Node{sites[0].node, sites[1].node}, sites[0].node, sites[1].node)
	list := ids(metaCall(t, c, "wamp.session.list")[0])
	slices.Sort(list)
	slices.Sort(want)
	if !slices.Equal(list, want) {
		t.Errorf("list once the silent member is lost: %v, want %v", list, want)
	}
}

// heard collects the first argument of the events of a subscription.
type heard chan string

func listen(t *testing.T, c *client.Session, topic wamp.URI) heard {
	t.Helper()
	h := make(heard, 64)
	_, err := c.Subscribe(ctxFor(t), topic, func(ev *client.Event) {
		s, _ := ev.Args[0].(string)
		h <- s
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// next returns the next event's argument that is not a probe.
func (h heard) next(t *testing.T) string {
	t.Helper()
	for {
		select {
		case s := <-h:
			if s != "probe" {
				return s
			}
		case <-time.After(rpcWait):
			t.Fatal("no event")
		}
	}
}

// probe publishes probes from pub until every one of hs heard one: the
// interest of their nodes reached pub's.
func probe(t *testing.T, pub *client.Session, topic wamp.URI, hs ...heard) {
	t.Helper()
	deadline := time.Now().Add(rpcWait)
	for _, h := range hs {
		for got := false; !got; {
			if time.Now().After(deadline) {
				t.Fatal("the subscribers' interest never reached the publisher's node")
			}
			if _, err := pub.Publish(ctxFor(t), topic, wamp.List{"probe"}, nil, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case s := <-h:
				got = s == "probe"
			case <-time.After(50 * time.Millisecond): // polling the interest with a deadline
			}
		}
	}
	for _, h := range hs { // the probes still on their way
		for len(h) > 0 {
			<-h
		}
	}
}

func addTestament(t *testing.T, c *client.Session, topic wamp.URI, arg string) {
	t.Helper()
	metaCall(t, c, "wamp.session.add_testament", string(topic), wamp.List{arg}, wamp.Dict{})
}

// TestTestamentsNodeLost: the testaments of a session whose node dies are
// published once, by one of the other nodes; those of a session that
// left or flushed them are not published again.
func TestTestamentsNodeLost(t *testing.T) {
	sites := startSites(t, 3, clustertest.Lease(time.Second, 200*time.Millisecond))
	const topic wamp.URI = "com.will"
	subs := []heard{listen(t, sites[0].join(t), topic), listen(t, sites[1].join(t), topic)}
	pubs := []*client.Session{sites[0].join(t), sites[1].join(t), sites[2].join(t)}
	for _, p := range pubs {
		probe(t, p, topic, subs...)
	}
	left, flushed, killed := sites[2].join(t), sites[2].join(t), sites[2].join(t)
	addTestament(t, left, topic, "left")
	addTestament(t, flushed, topic, "flushed")
	metaCall(t, flushed, "wamp.session.flush_testaments")
	addTestament(t, killed, topic, "killed")
	left.Close()
	for _, h := range subs {
		if got := h.next(t); got != "left" {
			t.Fatalf("first testament %q, want left", got)
		}
	}
	clustertest.Kill(sites[2].node)
	for _, h := range subs {
		if got := h.next(t); got != "killed" {
			t.Fatalf("testament %q, want killed", got)
		}
	}
	clustertest.WaitMembers(t, []*cluster.Node{sites[0].node, sites[1].node}, sites[0].node, sites[1].node)
	for i, p := range pubs[:2] {
		if _, err := p.Publish(ctxFor(t), topic, wamp.List{fmt.Sprint("end", i)}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range subs {
		for range 2 {
			if got := h.next(t); got != "end0" && got != "end1" {
				t.Errorf("after the testaments: %q", got)
			}
		}
	}
}

// metaSeen is what one watcher heard of the meta events: (topic, the
// session in the event) in the order heard.
type metaSeen chan [2]any

func watchMeta(t *testing.T, c *client.Session, topics ...wamp.URI) metaSeen {
	t.Helper()
	seen := make(metaSeen, 1024)
	for _, topic := range topics {
		_, err := c.Subscribe(ctxFor(t), topic, func(ev *client.Event) {
			id, _ := wamp.AsInt(ev.Args[0])
			switch d := ev.Args[0].(type) { // on_join's details
			case wamp.Dict:
				id, _ = wamp.AsInt(d["session"])
			case wamp.Object:
				id, _ = wamp.AsInt(d.Dict()["session"])
			}
			seen <- [2]any{topic, wamp.ID(id)}
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	return seen
}

// until reads the events heard until it has heard every event of want
// at least as many times as want says, and counts them by topic and
// session.
func (m metaSeen) until(t *testing.T, want map[[2]any]int, counts map[[2]any]int) {
	t.Helper()
	for {
		done := true
		for k, n := range want {
			done = done && counts[k] >= n
		}
		if done {
			return
		}
		select {
		case e := <-m:
			counts[e]++
		case <-time.After(rpcWait):
			t.Fatalf("heard %v, want %v", counts, want)
		}
	}
}

// hearJoins waits until every watcher hears a session joined on each
// node of sites: its interest in on_join reached them, and its events
// come through (interestEverywhere waits for the other topics). The
// watchers must watch wamp.session.on_join.
func hearJoins(t *testing.T, sites []*site, watchers []metaSeen) {
	t.Helper()
	for _, s := range sites {
		for _, w := range watchers {
			probes := map[wamp.ID]bool{}
			for heard := false; !heard; {
				p := s.join(t)
				probes[p.ID()] = true
				p.Close()
				wait := time.After(50 * time.Millisecond) // polling the interest with a deadline
				for waiting := true; waiting && !heard; {
					select {
					case e := <-w:
						heard = e[0] == wamp.URI("wamp.session.on_join") && probes[e[1].(wamp.ID)]
					case <-wait:
						waiting = false
					}
				}
			}
		}
	}
	for _, w := range watchers { // the probes still on their way
		for len(w) > 0 {
			<-w
		}
	}
}

// testMetaEvents: meta events reach the subscribers on every node once,
// whichever node the change was on.
func testMetaEvents(t *testing.T, sites []*site) {
	const (
		onJoin      wamp.URI = "wamp.session.on_join"
		onRegCreate wamp.URI = "wamp.registration.on_create"
		onRegister  wamp.URI = "wamp.registration.on_register"
		onSubCreate wamp.URI = "wamp.subscription.on_create"
		onSubscribe wamp.URI = "wamp.subscription.on_subscribe"
	)
	var watchers []metaSeen
	for _, s := range sites {
		watchers = append(watchers, watchMeta(t, s.join(t), onJoin, onRegCreate, onRegister, onSubCreate, onSubscribe))
	}
	interestEverywhere(t, sites, sites, onJoin, onRegCreate, onRegister, onSubCreate, onSubscribe)
	hearJoins(t, sites, watchers)
	joined := sites[2].join(t)
	r1 := sites[2].join(t)
	reg := register(t, r1, "com.meta.proc", answer("r1"), wamp.Dict{"invoke": wamp.InvokeRoundRobin})
	r2 := sites[1].join(t)
	waitCallees(t, r2, reg, 1)
	register(t, r2, "com.meta.proc", answer("r2"), wamp.Dict{"invoke": wamp.InvokeRoundRobin})
	s1, s2 := sites[1].join(t), sites[2].join(t)
	got := make(chan struct{}, 64)
	if _, err := s1.Subscribe(ctxFor(t), "com.meta.topic", func(*client.Event) { got <- struct{}{} }, nil); err != nil {
		t.Fatal(err)
	}
	for heard := false; !heard; { // s1's interest reached node 2
		s2.Publish(ctxFor(t), "com.meta.topic", nil, nil, nil)
		select {
		case <-got:
			heard = true
		case <-time.After(50 * time.Millisecond): // polling the interest with a deadline
		}
	}
	if _, err := s2.Subscribe(ctxFor(t), "com.meta.topic", func(*client.Event) {}, nil); err != nil {
		t.Fatal(err)
	}
	markers := []wamp.ID{sites[0].join(t).ID(), sites[1].join(t).ID(), sites[2].join(t).ID()}
	want := map[[2]any]int{
		{onJoin, joined.ID()}: 1, {onRegCreate, r1.ID()}: 1, {onRegister, r1.ID()}: 1, {onRegister, r2.ID()}: 1,
		{onSubCreate, s1.ID()}: 1, {onSubscribe, s1.ID()}: 1, {onSubscribe, s2.ID()}: 1,
	}
	for i, w := range watchers {
		counts := map[[2]any]int{}
		all := maps.Clone(want)
		for _, m := range markers {
			all[[2]any{onJoin, m}] = 1
		}
		w.until(t, all, counts)
		for k, n := range want {
			if counts[k] != n {
				t.Errorf("watcher on node %d: %s of session %d heard %d times, want %d", i, k[0], k[1], counts[k], n)
			}
		}
		if n := counts[[2]any{onSubCreate, s2.ID()}] + counts[[2]any{onRegCreate, r2.ID()}]; n != 0 {
			t.Errorf("watcher on node %d: on_create heard again from the second node (%d)", i, n)
		}
	}
}
