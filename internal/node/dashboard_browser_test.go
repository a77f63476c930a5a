package node

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
)

// dashboardScreenshot, when set, makes TestDashboardBrowser save a
// screenshot of the page there (docs/dashboard.png is made so):
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
		screenshot(t, b, addr, *dashboardScreenshot)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// screenshot fills the node with a few sessions and saves the page as a
// PNG at path.
func screenshot(t *testing.T, b *browser, addr, path string) {
	t.Helper()
	for i := range 4 {
		s := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
		switch i {
		case 0:
			echo(t, s, "com.example.echo")
		case 1:
			if _, err := s.Subscribe(testCtx(t), "com.example.", func(*client.Event) {}, map[string]any{"match": "prefix"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm2"})
	for range 3 {
		post(t, "http://"+addr+"/call", `{"procedure": "com.example.echo", "args": [1]}`, nil)
	}
	b.waitText(t, `#realms tr[data-realm="realm1"] td.sessions`, "5")
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
