// Package browsertest drives headless Chromium (Debian's chromium, which
// scripts/install-test-deps.sh installs) for the tests that check a page
// in a real browser: the dashboard's (internal/node) and the README
// tour's (docs). Only tests import it (internal/archtest holds it so),
// and it waits on the DOM, never on time.
package browsertest

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeout bounds each wait on the page.
const Timeout = 10 * time.Second

// Browser is a headless Chromium tab and the console messages of its page
// that are errors.
type Browser struct {
	// Ctx is the tab's context, for chromedp.Run.
	Ctx context.Context

	mu       sync.Mutex
	problems []string
}

// path returns the headless browser's path, or fails the test saying how
// to install it.
func path(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run make deps (scripts/install-test-deps.sh installs the Debian package chromium)")
	return ""
}

// New starts Chromium (as root it needs --no-sandbox, and /dev/shm may be
// small in containers) with one tab; it is stopped when the test ends.
func New(t *testing.T) *Browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path(t)), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &Browser{Ctx: ctx}
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

// Navigate opens url in the tab.
func (b *Browser) Navigate(t *testing.T, url string) {
	t.Helper()
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate to %s: %v", url, err)
	}
}

// ConsoleErrors returns the errors the page wrote to its console so far.
func (b *Browser) ConsoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// WaitText waits until the text of the element sel is want: the page
// changes it when an update arrives, and the wait is on the DOM.
func (b *Browser) WaitText(t *testing.T, sel, want string) {
	t.Helper()
	b.wait(t, sel, fmt.Sprintf(`%s === %s`, textOf(sel), strconv.Quote(want)), fmt.Sprintf("%q", want))
}

// WaitContains waits until the text of the element sel contains want.
func (b *Browser) WaitContains(t *testing.T, sel, want string) {
	t.Helper()
	b.wait(t, sel, fmt.Sprintf(`%s.includes(%s)`, textOf(sel), strconv.Quote(want)), fmt.Sprintf("one with %q", want))
}

// Poll waits until the JavaScript expression js is true, re-evaluating it
// on every change of the DOM.
func (b *Browser) Poll(t *testing.T, js string) {
	t.Helper()
	if err := b.poll(js); err != nil {
		t.Fatalf("waiting for %s: %v", js, err)
	}
}

// wait polls js and, when it never holds, fails saying what sel's text is.
func (b *Browser) wait(t *testing.T, sel, js, want string) {
	t.Helper()
	if err := b.poll(js); err != nil {
		got, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](textOf(sel)))
		t.Fatalf("%s: text %q, want %s: %v", sel, got, want, err)
	}
}

// poll waits up to Timeout for js to be true.
func (b *Browser) poll(js string) error {
	ctx, cancel := context.WithTimeout(b.Ctx, Timeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(Timeout)))
	return err
}

// textOf is the JavaScript for the text of the element sel ("" when there
// is none).
func textOf(sel string) string {
	return fmt.Sprintf(`String((document.querySelector(%s) || {}).textContent || "")`, strconv.Quote(sel))
}
