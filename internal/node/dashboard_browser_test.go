package node

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/internal/wamp"
)

// dashboardScreenshot, when set, makes TestDashboardBrowser also run a node
// that looks in use (screenshotDoc) and save a screenshot of its page
// there (docs/dashboard.png is made so):
//
//	go test ./internal/node -run TestDashboardBrowser -args -dashboard.screenshot=$PWD/docs/dashboard.png
var dashboardScreenshot = flag.String("dashboard.screenshot", "", "save a PNG screenshot of the dashboard to this file")

// browserTimeout bounds each wait on the page.
const browserTimeout = 10 * time.Second

// chromium returns the headless browser's path, or fails the test saying
// how to install it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run make deps (scripts/install-test-deps.sh installs the Debian package chromium)")
	return ""
}

// browser is a headless Chromium tab and the console messages of its page
// that are errors.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

// newBrowser starts Chromium (as root it needs --no-sandbox, and
// /dev/shm may be small in containers) with one tab; it is stopped when
// the test ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // starts the browser and its tab
		cancel()
		cancelAlloc()
		t.Fatalf("chromium: %v", err)
	}
	done := make(chan struct{})
	messages := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.problems = append(b.problems, m.String()+" ("+m.URL+")")
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx)
		cancel()
		cancelAlloc()
		<-done
	})
	return b
}

// consoleErrors returns the errors the page wrote to its console so far.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// waitText waits until the text of the element sel is want: the page
// changes it when an update arrives, and the wait is on the DOM.
func (b *browser) waitText(t *testing.T, sel, want string) {
	t.Helper()
	js := fmt.Sprintf(`(document.querySelector(%s) || {}).textContent === %s`, strconv.Quote(sel), strconv.Quote(want))
	ctx, cancel := context.WithTimeout(b.ctx, browserTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(browserTimeout))); err != nil {
		got, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`String((document.querySelector(%s) || {}).textContent)`, strconv.Quote(sel))))
		t.Fatalf("%s: text %q, want %q: %v", sel, got, want, err)
	}
}

// TestDashboardBrowser: the dashboard in a real browser. The page loads
// with no console error, shows realm1's session count, and the number on
// screen follows a WebSocket client that joins and leaves.
func TestDashboardBrowser(t *testing.T) {
	b := newBrowser(t)
	n := start(t, parse(t, dashboardDoc(""), nil), t.TempDir())
	addr := address(t, n, web0)
	count := `#realms tr[data-realm="realm1"] td.sessions`
	if err := chromedp.Do(b.ctx, chromedp.Navigate("http://"+addr+"/")); err != nil {
		t.Fatal(err)
	}
	b.waitText(t, count, "1") // the caller's own session
	b.waitText(t, "#status-text", "live")

	s := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	b.waitText(t, count, "2")
	b.waitText(t, "#total-sessions", "2")
	b.waitText(t, "#sessions tbody tr:last-child td:first-child", strconv.FormatUint(uint64(s.ID()), 10))
	s.Close()
	b.waitText(t, count, "1")

	if *dashboardScreenshot != "" {
		screenshot(t, b, *dashboardScreenshot)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
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
func screenshot(t *testing.T, b *browser, path string) {
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
	if err := chromedp.Do(b.ctx, chromedp.Navigate("http://"+addr+"/?realm=app")); err != nil {
		t.Fatal(err)
	}
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
	b.waitText(t, `#realms tr[data-realm="app"] td.sessions`, "3") // alice, bob and the caller's session
	// Rates show once two samples a second apart exist.
	js := `document.querySelector("#bridge tbody tr:first-child td:nth-child(5)").textContent !== "–"`
	traffic()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(browserTimeout))); err != nil {
		t.Fatalf("no rate on the page: %v", err)
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
