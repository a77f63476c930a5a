package node

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// linkRole allows everything and discloses callers and publishers, as the
// roles of Crossbar's rlinks examples do (a link forwards only what names
// its publisher or caller).
func linkRole(name string) string {
	return `{"name": "` + name + `", "permissions": [{"uri": "", "match": "prefix",
		"allow": {"call": true, "register": true, "publish": true, "subscribe": true},
		"disclose": {"caller": true, "publisher": true}, "cache": true}]}`
}

// linkNodeDoc is a node with realm1 and a RawSocket transport where
// anonymous clients, the ticket principal "hidden" and the other node
// (cryptosign principal "peer" with the key peerPub, role router2router:
// peerRole) join; rlinks is the realm's "rlinks" ("" for none).
func linkNodeDoc(peerPub, peerRole, rlinks string) string {
	if rlinks != "" {
		rlinks = `, "rlinks": ` + rlinks
	}
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [` + linkRole("anonymous") + `, ` + peerRole + `]` + rlinks + `}],
		"transports": [{"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"serializers": ["json", "msgpack", "cbor"],
			"auth": {"anonymous": {"type": "static", "role": "anonymous"},
				"ticket": {"type": "static", "principals": {"hidden": {"ticket": "secret", "role": "anonymous"}}},
				"cryptosign": {"type": "static", "principals": {
					"peer": {"realm": "realm1", "role": "router2router", "authorized_keys": ["` + peerPub + `"]}}}}}]}]}`
}

// linkPair is node A, and node B whose router link goes to A through a
// proxy that holds the connection until open is called, so that a test
// sets up both sides before the link starts forwarding.
type linkPair struct {
	a, b   *Node
	aLog   *watchedLog // A's log
	bLog   *watchedLog // B's log
	open   func()
	cut    func() // closes the link's connections
	aAddr  string
	bAddr  string
	linkTo string // the proxy's address
}

// startLinkPair starts A, then B with a link to A; options are more keys
// of B's link ("" for none). Each node lists the other's node key.
func startLinkPair(t *testing.T, options string) *linkPair {
	t.Helper()
	return startLinkPairAs(t, linkRole("router2router"), options)
}

// startLinkPairAs is startLinkPair with the role the link gets on A.
func startLinkPairAs(t *testing.T, peerRole, options string) *linkPair {
	t.Helper()
	dirA, dirB := t.TempDir(), t.TempDir()
	pubA, pubB := nodePub(t, dirA), nodePub(t, dirB)
	p := &linkPair{}
	var aLogger, bLogger *slog.Logger
	p.aLog, aLogger = newWatchedLogger(t)
	p.a = startWith(t, parse(t, linkNodeDoc(pubB, peerRole, ""), nil), Options{Dir: dirA, Logger: aLogger})
	p.aAddr = address(t, p.a, "workers[0].transports[0]")
	p.linkTo, p.open, p.cut = gatedProxy(t, p.aAddr)
	host, port, _ := net.SplitHostPort(p.linkTo)
	if options != "" {
		options = ", " + options
	}
	link := fmt.Sprintf(`[{"id": "rlink_b_a", "realm": "realm1", "transport": {"type": "rawsocket",
		"endpoint": {"type": "tcp", "host": %q, "port": %s}, "url": "rs://%s", "serializer": "cbor"}%s}]`, host, port, p.linkTo, options)
	p.bLog, bLogger = newWatchedLogger(t)
	p.b = startWith(t, parse(t, linkNodeDoc(pubA, linkRole("router2router"), link), nil), Options{Dir: dirB, Logger: bLogger})
	p.bAddr = address(t, p.b, "workers[0].transports[0]")
	return p
}

// forward opens the link and waits until it forwards.
func (p *linkPair) forward(t *testing.T) {
	t.Helper()
	p.open()
	if err := p.b.WaitComponents(testCtx(t)); err != nil {
		t.Fatalf("link: %v", err)
	}
}

// nodePub makes the node key of dir (as a node does) and returns its
// public key.
func nodePub(t *testing.T, dir string) string {
	t.Helper()
	k, err := loadNodeKey(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(k.Public().(ed25519.PublicKey))
}

// gatedProxy forwards TCP connections to target once open is called;
// until then it holds them. cut closes those it has.
func gatedProxy(t *testing.T, target string) (addr string, open, cut func()) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	var once sync.Once
	open = func() { once.Do(func() { close(gate) }) }
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	cut = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
		conns = nil
	}
	t.Cleanup(func() { ln.Close(); open(); cut(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { pipe(c, target, gate) })
		}
	})
	return ln.Addr().String(), open, cut
}

func pipe(c net.Conn, target string, gate <-chan struct{}) {
	defer c.Close()
	<-gate
	u, err := net.Dial("tcp4", target)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(u, c); done <- struct{}{} }()
	go func() { io.Copy(c, u); done <- struct{}{} }()
	<-done
	c.Close()
	u.Close()
	<-done
}

func anon(t *testing.T, addr string) *client.Session {
	return mustRaw(t, "tcp4", addr, client.Config{Realm: "realm1"})
}

// collect subscribes s to topic; the events' first arguments arrive on
// the channel.
func collect(t *testing.T, s *client.Session, topic wamp.URI) <-chan any {
	t.Helper()
	ch := make(chan any, 64)
	if _, err := s.Subscribe(testCtx(t), topic, func(ev *client.Event) { ch <- ev.Args[0] }, nil); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return ch
}

func publish(t *testing.T, s *client.Session, topic wamp.URI, arg any) {
	t.Helper()
	if _, err := s.Publish(testCtx(t), topic, wamp.List{arg}, nil, wamp.Dict{"acknowledge": true}); err != nil {
		t.Fatalf("publish %s: %v", topic, err)
	}
}

// receiveN takes n events from ch.
func receiveN(t *testing.T, ch <-chan any, n int) []any {
	t.Helper()
	var got []any
	for range n {
		select {
		case v := <-ch:
			got = append(got, v)
		case <-testCtx(t).Done():
			t.Fatalf("got %v, want %d events", got, n)
		}
	}
	return got
}

// TestRouterLinkEvents: events published on either node reach the
// subscribers of both, each once (nothing comes back over the link).
func TestRouterLinkEvents(t *testing.T) {
	p := startLinkPair(t, "")
	onA := collect(t, anon(t, p.aAddr), "com.t")
	onB := collect(t, anon(t, p.bAddr), "com.t")
	p.forward(t)
	pa, pb := anon(t, p.aAddr), anon(t, p.bAddr)
	publish(t, pa, "com.t", "a1")
	publish(t, pb, "com.t", "b1")
	publish(t, pa, "com.t", "a2")
	publish(t, pb, "com.t", "b2")
	want := []any{"a1", "a2", "b1", "b2"}
	for name, ch := range map[string]<-chan any{"A": onA, "B": onB} {
		got := receiveN(t, ch, 4)
		slices.SortFunc(got, func(x, y any) int { return strings.Compare(x.(string), y.(string)) })
		if !slices.Equal(got, want) {
			t.Errorf("subscriber on %s got %v, want %v", name, got, want)
		}
	}
	// An echo of a1 or b1 would have come back before a marker that
	// crosses the link after them on the same path.
	publish(t, pb, "com.t", "end")
	publish(t, pa, "com.t", "end")
	for name, ch := range map[string]<-chan any{"A": onA, "B": onB} {
		if got := receiveN(t, ch, 2); got[0] != "end" || got[1] != "end" {
			t.Errorf("subscriber on %s got %v after the four events, want the two markers only", name, got)
		}
	}
}

// TestRouterLinkEmptyPrefix: a subscription to every topic (the prefix
// "", MQTT's "#") on one node is mirrored like any other and gets the
// events published on the other node, but not the other router's own
// wamp.* meta events, which the link neither forwards nor warns about.
func TestRouterLinkEmptyPrefix(t *testing.T) {
	p := startLinkPair(t, "")
	events := make(chan *client.Event, 1024)
	if _, err := anon(t, p.aAddr).Subscribe(testCtx(t), "", func(ev *client.Event) { events <- ev }, wamp.Dict{"match": "prefix"}); err != nil {
		t.Fatal(err)
	}
	p.forward(t)
	pb := anon(t, p.bAddr)
	want := map[wamp.URI]any{"com.t": "b1", "org.example.x": "b2"}
	for topic, arg := range want {
		publish(t, pb, topic, arg)
	}
	for len(want) > 0 {
		ev := next(t, events)
		if strings.HasPrefix(string(ev.Topic), "wamp.") && ev.Details[wamp.OptForwardFor] != nil {
			t.Errorf("B's meta event %s %v reached A", ev.Topic, ev.Args)
		}
		if arg, ok := want[ev.Topic]; ok && len(ev.Args) == 1 && ev.Args[0] == arg {
			delete(want, ev.Topic)
		}
	}
	for i, log := range []*watchedLog{p.aLog, p.bLog} {
		if n, _ := log.count("router link: event not forwarded"); n > 0 {
			t.Errorf("node %c: %d events not forwarded", 'A'+i, n)
		}
		if n, _ := log.count("router link: cannot"); n > 0 {
			t.Errorf("node %c: the link could not mirror", 'A'+i)
		}
	}
}

// TestRouterLinkCalls: procedures registered on either node are called
// from the other; the callee sees the original caller and forward_for.
func TestRouterLinkCalls(t *testing.T) {
	p := startLinkPair(t, "")
	invs := make(chan wamp.Dict, 1)
	ca := anon(t, p.aAddr)
	if _, err := ca.Register(testCtx(t), "com.a.echo", func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		invs <- inv.Details
		return &client.Result{Args: inv.Args}, nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	echo(t, anon(t, p.bAddr), "com.b.echo")
	p.forward(t)
	callerB := anon(t, p.bAddr)
	callEcho(t, callerB, "com.a.echo")
	callEcho(t, anon(t, p.aAddr), "com.b.echo")
	d := <-invs
	ff, _ := d["forward_for"].([]any)
	if id, _ := wamp.AsInt(d["caller"]); wamp.ID(id) != callerB.ID() || d["caller_authrole"] != "anonymous" || len(ff) != 2 || dict(ff[1])["authid"] != "peer" {
		t.Errorf("INVOCATION details on A %v: want the caller on B and forward_for through the link (authid peer)", d)
	}
	if _, err := callerB.Call(testCtx(t), "com.nowhere", nil, nil); wampURIOf(err) != wamp.ErrNoSuchProcedure {
		t.Errorf("call of an unregistered procedure: %v", err)
	}
}

// TestRouterLinkExcludeAuthID: events forwarded to the other router skip
// its sessions with an excluded authid.
func TestRouterLinkExcludeAuthID(t *testing.T) {
	p := startLinkPair(t, `"exclude_authid": ["hidden"]`)
	hidden := mustRaw(t, "tcp4", p.aAddr, client.Config{Realm: "realm1", AuthID: "hidden", Auth: []client.Authenticator{client.Ticket("secret")}})
	hiddenAll := make(chan any, 8)
	for _, topic := range []wamp.URI{"com.x", "com.end"} {
		if _, err := hidden.Subscribe(testCtx(t), topic, func(ev *client.Event) { hiddenAll <- ev.Args[0] }, nil); err != nil {
			t.Fatal(err)
		}
	}
	onA := collect(t, anon(t, p.aAddr), "com.x")
	p.forward(t)
	publish(t, anon(t, p.bAddr), "com.x", "x")
	if got := receiveN(t, onA, 1); got[0] != "x" {
		t.Errorf("anonymous subscriber got %v", got)
	}
	// A's broker queued x for every receiver at once: had hidden been one,
	// x would come before this marker, published on A after it.
	publish(t, anon(t, p.aAddr), "com.end", "end")
	if got := receiveN(t, hiddenAll, 1); got[0] != "end" {
		t.Errorf("the excluded authid got %v first, want only the marker", got)
	}
}

// TestRouterLinkForwardOptions: each forward_* option off stops that
// mirroring, and only that.
func TestRouterLinkForwardOptions(t *testing.T) {
	// Which mirrors exist once the link forwards: the subscription and
	// registration of B's clients on A (local), and A's on B (remote).
	type mirrors struct{ localEvents, remoteEvents, localInvocations, remoteInvocations bool }
	tests := []struct {
		options string
		want    mirrors
	}{
		{"", mirrors{true, true, true, true}},
		{`"forward_local_events": false`, mirrors{false, true, true, true}},
		{`"forward_remote_events": false`, mirrors{true, false, true, true}},
		{`"forward_local_invocations": false`, mirrors{true, true, false, true}},
		{`"forward_remote_invocations": false`, mirrors{true, true, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.options, func(t *testing.T) {
			p := startLinkPair(t, tt.options)
			a, b := anon(t, p.aAddr), anon(t, p.bAddr)
			collect(t, a, "com.a.t")
			collect(t, b, "com.b.t")
			echo(t, a, "com.a.p")
			echo(t, b, "com.b.p")
			p.forward(t)
			got := mirrors{
				localEvents:       lookup(t, a, "wamp.subscription.lookup", "com.b.t"),
				remoteEvents:      lookup(t, b, "wamp.subscription.lookup", "com.a.t"),
				localInvocations:  lookup(t, a, "wamp.registration.lookup", "com.b.p"),
				remoteInvocations: lookup(t, b, "wamp.registration.lookup", "com.a.p"),
			}
			if got != tt.want {
				t.Errorf("mirrors %+v, want %+v", got, tt.want)
			}
		})
	}
}

// lookup reports whether the meta API of s's router finds uri.
func lookup(t *testing.T, s *client.Session, proc, uri wamp.URI) bool {
	t.Helper()
	res, err := s.Call(testCtx(t), proc, wamp.List{string(uri)}, nil)
	if err != nil {
		t.Fatalf("%s(%s): %v", proc, uri, err)
	}
	return len(res.Args) > 0 && res.Args[0] != nil
}

// TestRouterLinkReconnects: a link whose connection is lost connects
// again and forwards both ways as before.
func TestRouterLinkReconnects(t *testing.T) {
	p := startLinkPair(t, "")
	sa, sb := anon(t, p.aAddr), anon(t, p.bAddr)
	onA, onB := collect(t, sa, "com.t"), collect(t, sb, "com.t")
	p.forward(t)
	mirroredA := subscribed(t, anon(t, p.aAddr), "com.t", sa.ID())
	mirroredB := subscribed(t, anon(t, p.bAddr), "com.t", sb.ID())
	p.cut()
	waitFor(t, mirroredA, "the link's subscription on A again")
	waitFor(t, mirroredB, "the link's subscription on B again")
	publish(t, anon(t, p.aAddr), "com.t", "a")
	publish(t, anon(t, p.bAddr), "com.t", "b")
	for name, ch := range map[string]<-chan any{"A": onA, "B": onB} {
		got := receiveN(t, ch, 2)
		slices.SortFunc(got, func(x, y any) int { return strings.Compare(x.(string), y.(string)) })
		if !slices.Equal(got, []any{"a", "b"}) {
			t.Errorf("subscriber on %s got %v", name, got)
		}
	}
}

// TestReadinessRouterLink: a router link keeps its node not ready until
// it is joined to the other router and forwards, and again from the loss
// of that connection until it is back.
func TestReadinessRouterLink(t *testing.T) {
	p := startLinkPair(t, "")
	away := []string{"workers[0].realms[0].rlinks[0]: router link not joined"}
	if r := p.b.Readiness(); r.Ready || !slices.Equal(r.NotReady, away) {
		t.Errorf("before the link connects: %+v", r)
	}
	p.forward(t)
	if r := p.b.Readiness(); !r.Ready {
		t.Errorf("link forwarding: %+v", r)
	}
	if err := p.a.Stop(testCtx(t)); err != nil { // the link reconnects in vain
		t.Fatal(err)
	}
	p.bLog.wait(t, 1, `msg="router link lost"`)
	if r := p.b.Readiness(); r.Ready || !slices.Equal(r.NotReady, away) {
		t.Errorf("link lost: %+v", r)
	}
}

// subscribed returns a channel closed once obs's router announces a
// subscription to topic by a session other than not.
func subscribed(t *testing.T, obs *client.Session, topic wamp.URI, not wamp.ID) <-chan struct{} {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	_, err := obs.Subscribe(testCtx(t), "wamp.subscription.on_subscribe", func(ev *client.Event) {
		if len(ev.Args) < 2 {
			return
		}
		if s, _ := wamp.AsInt(ev.Args[0]); wamp.ID(s) == not {
			return
		}
		res, err := obs.Call(testCtx(t), "wamp.subscription.get", wamp.List{ev.Args[1]}, nil)
		if d, _ := wamp.AsDict(firstArg(res)); err == nil && d["uri"] == string(topic) {
			once.Do(func() { close(ch) })
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-testCtx(t).Done():
		t.Fatalf("no %s", what)
	}
}

// TestRouterLinkWithoutMetaAPI: a link whose role on the other router may
// not use the meta API says so (and forwards what it could set up).
func TestRouterLinkWithoutMetaAPI(t *testing.T) {
	role := `{"name": "router2router", "permissions": [{"uri": "com.", "match": "prefix",
		"allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}`
	p := startLinkPairAs(t, role, "")
	p.open()
	err := p.b.WaitComponents(testCtx(t))
	if err == nil || !strings.Contains(err.Error(), "rlinks[0]") || !strings.Contains(err.Error(), string(wamp.ErrNotAuthorized)) {
		t.Errorf("WaitComponents: %v, want the link's path and %s", err, wamp.ErrNotAuthorized)
	}
}
