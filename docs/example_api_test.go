package docs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// apiCallees registers api.md's com.example.user.get and
// com.example.hello, as its autobahn-js snippet does.
func apiCallees(t *testing.T, ex *bridgeExample) {
	t.Helper()
	procs := map[wamp.URI]client.InvocationHandler{
		"com.example.user.get": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			fields, ok := inv.Kwargs.Get("fields")
			if !ok {
				fields = "all"
			}
			return &client.Result{Args: wamp.List{wamp.Object{{Key: "id", Value: inv.Args[0]}, {Key: "fields", Value: fields}}}}, nil
		},
		"com.example.hello": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: wamp.List{wamp.Object{{Key: "code", Value: 200},
				{Key: "headers", Value: wamp.Object{{Key: "Content-Type", Value: "text/html; charset=utf-8"}}},
				{Key: "content", Value: "<p>Hello, " + inv.Args[0].(string) + "!</p>"}}}}, nil
		},
	}
	for uri, h := range procs {
		if _, err := ex.session.Register(testCtx(t), uri, h, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBridgeExampleAPI runs api.md's commands against examples/bridge.json's
// api service.
func TestBridgeExampleAPI(t *testing.T) {
	ex := startBridgeExample(t)
	apiCallees(t, ex)
	for _, c := range []curlCase{
		{`curl -s 'http://127.0.0.1:8080/api/users/42?fields=name,email'`, 200, `{"id":"42","fields":"name,email"}`},
		{`curl -s http://127.0.0.1:8080/api/users/42`, 200, `{"id":"42","fields":"all"}`},
		{`curl -s http://127.0.0.1:8080/api/sum -H 'Content-Type: application/json' -d '{"a":2,"b":3}'`, 200, `5`},
		{`curl -s http://127.0.0.1:8080/api/sum/2/3`, 400, `{"error":"com.example.error.not_a_number","args":["add2 takes two numbers"],"kwargs":{}}`},
		{`curl -s http://127.0.0.1:8080/api/hello/Ada`, 200, `<p>Hello, Ada!</p>`},
		{`curl -s http://127.0.0.1:8080/api/users`, 404, `{"error":"No route for GET /users.","args":[],"kwargs":{}}`},
		{`curl -s -X DELETE http://127.0.0.1:8080/api/users/42`, 405, `{"error":"Method not allowed. (DELETE not allowed, only GET,OPTIONS)","args":[],"kwargs":{}}`},
	} {
		c.run(t, "api.md", ex.base)
	}
	resp, body := curlCase{`curl -s http://127.0.0.1:8080/api/openapi.json`, 200, ""}.run(t, "api.md", ex.base)
	var doc struct {
		OpenAPI string
		Info    struct{ Title string }
		Paths   map[string]map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("openapi.json: %v %s", err, body)
	}
	var paths []string
	for p, ops := range doc.Paths {
		for m := range ops {
			paths = append(paths, strings.ToUpper(m)+" "+p)
		}
	}
	page := readPage(t, "api.md")
	for _, p := range paths {
		if !strings.Contains(page, "`"+p+"`") {
			t.Errorf("api.md does not list the operation `%s` of the document", p)
		}
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Title != "Example API" || len(paths) != 4 {
		t.Errorf("openapi.json: %s %q %v", doc.OpenAPI, doc.Info.Title, paths)
	}
}
