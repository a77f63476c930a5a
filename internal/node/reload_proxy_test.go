package node

import (
	"slices"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// TestReloadProxyWorker: a reload gives a running proxy worker its new
// routes, connections and static principals; the sessions whose route
// is gone, whose connection changed or whose principal changed get
// GOODBYE config_changed, the others keep running, and new clients take
// the new config.
func TestReloadProxyWorker(t *testing.T) {
	p := startProxyPair(t)
	top := t // the sessions kept from one step to the next are closed at its end
	doc := proxyNodeDoc(p.addrB)
	const routes = `"routes": {"realm1": {"anonymous": "local", "user": ["local"]}, "realm2": {"anonymous": "remote"}}`
	if !strings.Contains(doc, routes) || !strings.Contains(doc, `"serializer": "msgpack"`) || !strings.Contains(doc, `"ticket": "secret"`) {
		t.Fatal("proxyNodeDoc changed: update this test")
	}
	reloadA := func(t *testing.T, old, now string) ReloadReport {
		t.Helper()
		doc = strings.Replace(doc, old, now, 1)
		rep, err := p.a.Reload(testCtx(t), parse(t, doc, nil))
		if err != nil {
			t.Fatalf("Reload: %v", err)
		}
		return rep
	}
	anon1 := mustWS(t, p.ws, websocket.DialOptions{}, client.Config{Realm: "realm1"})
	anon2 := mustWS(t, p.ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
	user := mustWS(t, p.ws, websocket.DialOptions{}, alice)
	wantReport := func(t *testing.T, rep ReloadReport, applied, restart []string) {
		t.Helper()
		if got := paths(rep.Applied); !slices.Equal(got, applied) {
			t.Errorf("applied %v (%v), want %v", got, rep.Applied, applied)
		}
		if got := paths(rep.Restart); !slices.Equal(got, restart) {
			t.Errorf("restart %v (%v), want %v", got, rep.Restart, restart)
		}
	}

	t.Run("route removed", func(t *testing.T) {
		rep := reloadA(t, routes, `"routes": {"realm1": {"anonymous": "local"}, "realm2": {"anonymous": "remote"}}`)
		wantReport(t, rep, []string{"workers[1].routes"}, nil)
		endedWith(t, user, wamp.ErrConfigChanged)
		alive(t, anon1)
		alive(t, anon2)
		if _, err := joinWS(t, p.ws, websocket.DialOptions{}, alice); wampURIOf(err) != wamp.ErrNoSuchRole {
			t.Fatalf("join as a role no longer routed: %v, want ABORT %s", err, wamp.ErrNoSuchRole)
		}
	})
	t.Run("route added", func(t *testing.T) {
		rep := reloadA(t, `"routes": {"realm1": {"anonymous": "local"}, "realm2": {"anonymous": "remote"}}`, routes)
		wantReport(t, rep, []string{"workers[1].routes"}, nil)
		user = mustWS(top, p.ws, websocket.DialOptions{}, alice)
		alive(t, anon1)
		alive(t, anon2)
	})
	t.Run("connection changed", func(t *testing.T) {
		rep := reloadA(t, `"serializer": "msgpack"`, `"serializer": "cbor"`)
		wantReport(t, rep, []string{"workers[1].routes"}, nil)
		endedWith(t, anon2, wamp.ErrConfigChanged)
		alive(t, anon1)
		alive(t, user)
		anon2 = mustWS(top, p.ws, websocket.DialOptions{}, client.Config{Realm: "realm2"})
		alive(t, anon2)
	})
	t.Run("principal changed", func(t *testing.T) {
		rep := reloadA(t, `"ticket": "secret"`, `"ticket": "new-secret"`)
		wantReport(t, rep, []string{"workers[1].transports[0].paths.ws.auth"}, nil)
		endedWith(t, user, wamp.ErrConfigChanged)
		alive(t, anon1)
		if _, err := joinWS(t, p.ws, websocket.DialOptions{}, alice); wampURIOf(err) != wamp.ErrAuthenticationDenied {
			t.Fatalf("join with the old ticket: %v, want ABORT %s", err, wamp.ErrAuthenticationDenied)
		}
		mustWS(t, p.ws, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("new-secret")}})
	})
	t.Run("realm removed with a dynamic authenticator", func(t *testing.T) {
		rep := reloadA(t, `, "realm2": {"anonymous": "remote"}}`, `}`)
		wantReport(t, rep, nil, []string{"workers[1].routes"})
		alive(t, anon2)
	})
	t.Run("endpoint changed", func(t *testing.T) {
		rep := reloadA(t, `"serializers": ["json", "cbor"]`, `"serializers": ["json"]`)
		wantReport(t, rep, nil, []string{"workers[1].transports[0]"})
		alive(t, anon1)
	})
}
