package node

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/browsertest"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// dashboardScreenshot, when set, makes TestDashboardBrowser also run a node
// that looks in use (screenshotDoc) and save a screenshot of its page
// there (docs/dashboard.png is made so):
//
//	go test ./internal/node -run TestDashboardBrowser -args -dashboard.screenshot=$PWD/docs/dashboard.png
var dashboardScreenshot = flag.String("dashboard.screenshot", "", "save a PNG screenshot of the dashboard to this file")

// TestDashboardBrowser: the dashboard in a real browser. The page loads
// with no console error, shows realm1's session count, and the number on
// screen follows a WebSocket client that joins and leaves; on a node with
// a proxy worker, the worker's routes, its sessions by realm (following a
// client that joins through it) and its joins by authmethod.
func TestDashboardBrowser(t *testing.T) {
	b := browsertest.New(t)
	n := start(t, parse(t, dashboardDoc(""), nil), t.TempDir())
	addr := address(t, n, web0)
	count := `#realms tr[data-realm="realm1"] td.sessions`
	b.Navigate(t, "http://"+addr+"/")
	b.WaitText(t, count, "1") // the caller's own session
	b.WaitText(t, "#status-text", "live")

	s := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	b.WaitText(t, count, "2")
	b.WaitText(t, "#total-sessions", "2")
	b.WaitText(t, "#sessions tbody tr:last-child td:first-child", strconv.FormatUint(uint64(s.ID()), 10))
	s.Close()
	b.WaitText(t, count, "1")
	b.WaitText(t, "#proxies-empty", "No proxy worker in this node.")

	// A node with a proxy worker: its card follows a client too.
	proxyAddr := startProxyDashboard(t)
	b.Navigate(t, "http://"+proxyAddr+"/dash/")
	relayed := `.proxy[data-worker="workers[1]"] table.realms tr:first-child td.sessions`
	b.WaitText(t, relayed, "2") // realm1: the caller's and the dynamic authenticator's sessions
	b.WaitText(t, `.proxy table.routes tr:last-child td:last-child`, "remote")
	mustWS(t, "ws://"+proxyAddr+"/ws", websocket.DialOptions{}, alice)
	b.WaitText(t, relayed, "3")
	b.WaitText(t, `.proxy table.joins tr:nth-child(2) td:nth-child(2)`, "ticket")

	if *dashboardScreenshot != "" {
		screenshot(t, b, *dashboardScreenshot)
	}
	if errs := b.ConsoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// screenshotDoc is a node that looks like one in use: two realms, clients
// with ticket authids, the HTTP bridge and a Subscriber component
// forwarding to target.
func screenshotDoc(target string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "app", "roles": [{"name": "user", "allow-by-default": true}, {"name": "anonymous", "allow-by-default": true}]},
		           {"name": "iot", "roles": [{"name": "device", "allow-by-default": true}, {"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"/": {"type": "dashboard"},
			          "ws": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {
			              "alice": {"ticket": "a", "role": "user"}, "bob": {"ticket": "b", "role": "user"},
			              "sensor-17": {"ticket": "s", "role": "device"}, "sensor-42": {"ticket": "s", "role": "device"}}}}},
			          "call": {"type": "caller", "realm": "app", "role": "anonymous"},
			          "publish": {"type": "publisher", "realm": "iot", "role": "anonymous"}}}],
		"components": [{"type": "class", "classname": "crossbar.bridge.rest.MessageForwarder", "realm": "iot",
			"extra": {"subscriptions": [{"topic": "com.example.reading", "url": "` + target + `"}]}}]}]}`
}

// screenshot runs a node that looks in use, shows its dashboard in b and
// saves the page as a PNG at path.
func screenshot(t *testing.T, b *browsertest.Browser, path string) {
	t.Helper()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer target.Close()
	n := start(t, parse(t, screenshotDoc(target.URL+"/readings"), nil), t.TempDir())
	addr := address(t, n, web0)
	join := func(realm, authid, ticket string) *client.Session {
		return mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: wamp.URI(realm), AuthID: authid,
			Auth: []client.Authenticator{client.Ticket(ticket)}})
	}
	alice := join("app", "alice", "a")
	echo(t, alice, "com.example.add2")
	echo(t, alice, "com.example.profile.get")
	bob := join("app", "bob", "b")
	if _, err := bob.Subscribe(testCtx(t), "com.example.chat.", func(*client.Event) {}, wamp.Dict{"match": "prefix"}); err != nil {
		t.Fatal(err)
	}
	join("iot", "sensor-17", "s")
	join("iot", "sensor-42", "s")
	b.Navigate(t, "http://"+addr+"/?realm=app")
	traffic := func() {
		for range 6 {
			post(t, "http://"+addr+"/call", `{"procedure": "com.example.add2", "args": [2, 3]}`, nil)
		}
		post(t, "http://"+addr+"/call", `{"procedure": "com.example.add2", "args": [2, 3]`, nil) // cut short: 400
		for range 3 {
			post(t, "http://"+addr+"/publish", `{"topic": "com.example.reading", "args": [21.5]}`, nil)
		}
	}
	traffic()
	b.WaitText(t, `#realms tr[data-realm="app"] td.sessions`, "3") // alice, bob and the caller's session
	// Rates show once two samples a second apart exist.
	js := `document.querySelector("#bridge tbody tr:first-child td:nth-child(5)").textContent !== "–"`
	traffic()
	b.Poll(t, js)
	png, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
