package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/browsertest"
)

// readme is the README's path from docs/.
const readme = "../README.md"

// TestReadmeTour runs the README tour as a user does: the embedded
// default configuration (examples/minimal.json, ports rewritten), the
// tour's page saved to a file and opened in headless Chromium (it needs no
// network but the node), and the tour's curl commands, whose answers and
// the page's log are the README's.
func TestReadmeTour(t *testing.T) {
	r := startExample(t, "minimal.json")
	addr := r.addr(t, "workers[0].transports[0]")
	base := "http://" + addr
	call := curlCase{cmd: `curl -s http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.add2","args":[2,3]}'`, status: 200}

	// Without the page: nobody registered com.example.add2.
	noCallee := `{"error":"wamp.error.no_such_procedure","args":["no callee registered for procedure \"com.example.add2\""],"kwargs":{}}`
	if _, body := call.run(t, readme, base); body != noCallee {
		t.Errorf("call without the page: %s", body)
	}
	if !strings.Contains(readPage(t, readme), "`"+noCallee+"`") {
		t.Error("README does not show the answer without the page")
	}

	// The dashboard counts the bridge's own sessions, as the tour says.
	if got := tourSessions(t, base); got != 3 {
		t.Errorf("realm1 has %d sessions before the page, the README says 3", got)
	}
	b := browsertest.New(t)
	b.Navigate(t, tourPage(t, addr))
	tourLog(t, b, "2 + 3 = 5")
	tourLog(t, b, "event: hi from the browser") // published once both subscriptions are made
	if got := tourSessions(t, base); got != 4 {
		t.Errorf("realm1 has %d sessions with the page, the README says 4", got)
	}

	call.want = `{"args":[5]}`
	call.run(t, readme, base)
	publish := curlCase{cmd: `curl -s http://127.0.0.1:8080/publish -H 'Content-Type: application/json' -d '{"topic":"com.example.hello","args":["hi from curl"]}'`, status: 200}
	if _, body := publish.run(t, readme, base); !regexp.MustCompile(`^\{"id":[0-9]+\}$`).MatchString(body) {
		t.Errorf("publish: %s", body)
	}
	if !strings.Contains(readPage(t, readme), publish.cmd+"\n# {\"id\":...}\n") {
		t.Error("README does not show the publish answer")
	}
	tourLog(t, b, "event: hi from curl")
	curlCase{`curl -s http://127.0.0.1:8080/webhook -d 'something happened'`, 202, `OK`}.run(t, readme, base)
	tourLog(t, b, "webhook: something happened")
	curlCase{`curl -s http://127.0.0.1:8080/healthz`, 200, `{"status":"ok"}`}.run(t, readme, base)
	curlCase{`curl -s http://127.0.0.1:8080/readyz`, 200, `{"ready":true,"state":"running"}`}.run(t, readme, base)
	const sessions = `junction_sessions{realm="realm1"} 4`
	if !strings.Contains(readPage(t, readme), "curl -s http://127.0.0.1:8080/metrics | grep '^junction_sessions{'\n# "+sessions+"\n") {
		t.Error("README does not show the metrics' session count")
	}
	if _, body := send(t, curlRequest(t, `curl -s http://127.0.0.1:8080/metrics`, base)); !strings.Contains(body, "\n"+sessions+"\n") {
		t.Errorf("/metrics lacks %s", sessions)
	}

	// Ctrl-C: the node says GOODBYE to the page.
	if err := r.node.Stop(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	tourLog(t, b, "the node said goodbye: wamp.close.system_shutdown")
	if errs := b.ConsoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// tourLog waits until the tour page's log shows line, and checks that the
// README quotes it.
func tourLog(t *testing.T, b *browsertest.Browser, line string) {
	t.Helper()
	if !strings.Contains(readPage(t, readme), "`"+line+"`") {
		t.Errorf("README does not show the page's log line %s", line)
	}
	b.WaitContains(t, "#log", line+"\n")
}

// tourPage saves the README tour's page, with addr in place of the
// default's 127.0.0.1:8080, as a file and returns its file:// URL (a page
// opened from a file sends "Origin: null", which the default accepts).
func tourPage(t *testing.T, addr string) string {
	t.Helper()
	_, page, ok := strings.Cut(readPage(t, readme), "```html\n")
	page, _, closed := strings.Cut(page, "```\n")
	if !ok || !closed || !strings.Contains(page, `"ws://127.0.0.1:8080/ws"`) {
		t.Fatal("README has no tour page connecting to ws://127.0.0.1:8080/ws")
	}
	path := filepath.Join(t.TempDir(), "tour.html")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(page, "127.0.0.1:8080", addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// tourSessions runs the tour's dashboard curl and returns realm1's session
// count, checking that the README shows the count it gives before a client
// joins.
func tourSessions(t *testing.T, base string) int {
	t.Helper()
	dash := curlCase{cmd: `curl -s -H 'Accept: application/json' http://127.0.0.1:8080/`, status: 200}
	_, body := dash.run(t, readme, base)
	var d struct {
		Realms []struct {
			Name     string `json:"name"`
			Sessions int    `json:"sessions"`
		} `json:"realms"`
	}
	if err := json.Unmarshal([]byte(body), &d); err != nil || len(d.Realms) != 1 || d.Realms[0].Name != "realm1" {
		t.Fatalf("dashboard JSON %s: %v", body, err)
	}
	if !strings.Contains(readPage(t, readme), `"realms":[{"name":"realm1","sessions":3,`) {
		t.Error("README does not show realm1's 3 sessions in the dashboard's JSON")
	}
	return d.Realms[0].Sessions
}
