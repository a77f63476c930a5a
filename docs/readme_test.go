package docs

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/wamp"
)

// readme is the README's path from docs/.
const readme = "../README.md"

// TestReadmeTourBridge runs the README tour's curl commands against the
// embedded default configuration (examples/minimal.json, ports rewritten),
// with a WAMP client doing what the tour's browser page does.
func TestReadmeTourBridge(t *testing.T) {
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
	page := must(t)(joinWS(t, "ws://"+addr+"/ws", client.Config{Realm: "realm1"}))
	if _, err := page.Register(testCtx(t), "com.example.add2", add2, nil); err != nil {
		t.Fatal(err)
	}
	if got := tourSessions(t, base); got != 4 {
		t.Errorf("realm1 has %d sessions with the page, the README says 4", got)
	}
	events := make(chan *client.Event, 2)
	for _, topic := range []wamp.URI{"com.example.hello", "com.example.webhook"} {
		if _, err := page.Subscribe(testCtx(t), topic, func(ev *client.Event) { events <- ev }, nil); err != nil {
			t.Fatal(err)
		}
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
	if ev := next(t, events, "event"); ev.Topic != "com.example.hello" || ev.Args[0] != "hi from curl" {
		t.Errorf("event %s %v", ev.Topic, ev.Args)
	}
	curlCase{`curl -s http://127.0.0.1:8080/webhook -d 'something happened'`, 202, `OK`}.run(t, readme, base)
	ev := next(t, events, "webhook event")
	if d, _ := ev.Args[0].(wamp.Dict); ev.Topic != "com.example.webhook" || d["body"] != "something happened" {
		t.Errorf("webhook event %s %v", ev.Topic, ev.Args)
	}
	curlCase{`curl -s http://127.0.0.1:8080/healthz`, 200, `{"status":"ok"}`}.run(t, readme, base)
	curlCase{`curl -s http://127.0.0.1:8080/readyz`, 200, `{"ready":true,"state":"running"}`}.run(t, readme, base)
	const sessions = `junction_sessions{realm="realm1"} 4`
	if !strings.Contains(readPage(t, readme), "curl -s http://127.0.0.1:8080/metrics | grep '^junction_sessions{'\n# "+sessions+"\n") {
		t.Error("README does not show the metrics' session count")
	}
	if _, body := send(t, curlRequest(t, `curl -s http://127.0.0.1:8080/metrics`, base)); !strings.Contains(body, "\n"+sessions+"\n") {
		t.Errorf("/metrics lacks %s", sessions)
	}
	for _, log := range []string{"`event: hi from curl`", "`webhook: something happened`", `log("webhook:", args[0].body)`} {
		if !strings.Contains(readPage(t, readme), log) {
			t.Errorf("README does not show %s", log)
		}
	}
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
