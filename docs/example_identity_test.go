package docs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// identityToken is the JWT identity.md shows: alice with role admin,
// issued by https://auth.example.com for audience junction, expiring in
// 2100, signed HS256 with the example's JWT_SECRET.
const identityToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJhdWQiOiJqdW5jdGlvbiIsImV4cCI6NDEwMjQ0NDgwMCwiaXNzIjoiaHR0cHM6Ly9hdXRoLmV4YW1wbGUuY29tIiwicm9sZSI6ImFkbWluIiwic3ViIjoiYWxpY2UifQ.D-8itduIyL-USLSLklgpbDYBJ5Y5hc6nqVz9Ob0TnP4"

// TestIdentityPage runs identity.md's commands against
// examples/identity.json, with the page's Go worker (ticket "worker")
// registering com.example.user.whoami and com.example.admin.whoami, which
// answer the caller's disclosed authid and authrole, and subscribed to
// com.example.user.news.
func TestIdentityPage(t *testing.T) {
	r := startExample(t, "identity.json")
	addr := r.addr(t, "workers[0].transports[0]")
	worker := must(t)(joinWS(t, "ws://"+addr+"/ws", client.Config{Realm: "realm1", AuthID: "worker",
		Auth: []client.Authenticator{client.Ticket(exampleEnv["WORKER_TICKET"])}}))
	whoami := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		return &client.Result{Args: wamp.List{inv.Details[wamp.OptCallerAuthID], inv.Details[wamp.OptCallerAuthRole]}}, nil
	}
	for _, p := range []wamp.URI{"com.example.user.whoami", "com.example.admin.whoami"} {
		if _, err := worker.Register(testCtx(t), p, whoami, nil); err != nil {
			t.Fatal(err)
		}
	}
	news := make(chan *client.Event, 1)
	if _, err := worker.Subscribe(testCtx(t), "com.example.user.news", func(ev *client.Event) { news <- ev }, nil); err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	for _, c := range []curlCase{
		{`curl -s http://127.0.0.1:8080/call -u alice:alice-ticket -H 'Content-Type: application/json' -d '{"procedure":"com.example.user.whoami"}'`,
			200, `{"args":["alice","user"]}`},
		{`curl -s http://127.0.0.1:8080/call -H 'Authorization: Bearer k-reports-7f3a' -H 'Content-Type: application/json' -d '{"procedure":"com.example.user.whoami"}'`,
			200, `{"args":["reports","user"]}`},
		{`curl -s http://127.0.0.1:8080/call -H 'Authorization: Bearer ` + identityToken + `' -H 'Content-Type: application/json' -d '{"procedure":"com.example.admin.whoami"}'`,
			200, `{"args":["alice","admin"]}`},
		{`curl -s http://127.0.0.1:8080/call -u alice:alice-ticket -H 'Content-Type: application/json' -d '{"procedure":"com.example.admin.whoami"}'`,
			403, `{"error":"wamp.error.not_authorized","args":["session is not authorized to call \"com.example.admin.whoami\""],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/call -u alice:alice-ticket -H 'Content-Type: application/json' -d '{"procedure":"com.example.user.nothing"}'`,
			404, `{"error":"wamp.error.no_such_procedure","args":["no callee registered for procedure \"com.example.user.nothing\""],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/call -u alice:wrong -H 'Content-Type: application/json' -d '{"procedure":"com.example.user.whoami"}'`,
			401, `{"error":"wamp.error.authentication_failed","args":["Invalid user name or password."],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/call -H 'Authorization: Bearer not.a.token' -H 'Content-Type: application/json' -d '{"procedure":"com.example.user.whoami"}'`,
			401, `{"error":"wamp.error.authentication_failed","args":["The access token is invalid or has expired."],"kwargs":{}}`},
	} {
		c.run(t, "identity.md", base)
	}
	resp, _ := curlCase{`curl -s -i http://127.0.0.1:8080/call -H 'Content-Type: application/json' -d '{"procedure":"com.example.user.whoami"}'`,
		401, `{"error":"wamp.error.authentication_failed","args":["Authentication required."],"kwargs":{}}`}.run(t, "identity.md", base)
	page := readPage(t, "identity.md")
	for _, h := range resp.Header.Values("WWW-Authenticate") {
		if !strings.Contains(page, "WWW-Authenticate: "+h+"\n") {
			t.Errorf("identity.md does not show the header WWW-Authenticate: %s", h)
		}
	}
	_, body := curlCase{cmd: `curl -s http://127.0.0.1:8080/publish -H 'X-API-Key: k-reports-7f3a' -H 'Content-Type: application/json' -d '{"topic":"com.example.user.news","args":["hello"]}'`,
		status: 200}.run(t, "identity.md", base)
	var res struct{ ID wamp.ID }
	if err := json.Unmarshal([]byte(body), &res); err != nil || body != fmt.Sprintf(`{"id":%d}`, res.ID) {
		t.Fatalf("publish answer %s", body)
	}
	ev := next(t, news, "event")
	if ev.Details[wamp.OptPublisherAuthID] != "reports" || ev.Details[wamp.OptPublisherAuthRole] != "user" {
		t.Fatalf("event details %v, want reports/user disclosed", ev.Details)
	}
}
