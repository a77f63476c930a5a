package node

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// apiDoc is a node with an api service at /v1 (role "bridge": may call
// below com.example.; API keys: k-alice is alice with role "user", who
// may call below com.user.) and the callees' WebSocket at /backend.
const apiDoc = `{"version": 2, "workers": [{"type": "router",
	"realms": [{"name": "realm1", "roles": [
		{"name": "bridge", "permissions": [{"uri": "com.example.", "match": "prefix", "allow": {"call": true}}]},
		{"name": "user", "permissions": [{"uri": "com.user.", "match": "prefix", "allow": {"call": true}, "disclose": {"caller": true}}]},
		{"name": "backend", "allow-by-default": true}]}],
	"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
		"backend": {"type": "websocket", "auth": {"anonymous": {"type": "static", "role": "backend"}}},
		"v1": {"type": "api", "realm": "realm1", "role": "bridge",
			"options": {"auth": {"api_keys": {"k-alice": {"authid": "alice", "authrole": "user"}}, "required": false},
				"error_status": {"com.example.error.not_found": 404}, "openapi": {"title": "Users"}},
			"routes": [
				{"method": "GET", "path": "/users/{id}", "procedure": "com.example.user.get", "args": ["{id}"],
					"kwargs": {"fields": "{query.fields}", "limit": 10}},
				{"method": "POST", "path": "/users", "procedure": "com.example.user.create", "kwargs": {"user": "{body}"}, "status": 201},
				{"method": "GET", "path": "/me", "procedure": "com.user.whoami"},
				{"method": "GET", "path": "/page", "procedure": "com.example.page", "result": "response"}]}}}]}]}`

// TestAPIEndToEnd: the node's api service maps requests to a real
// callee's procedures: path and query parameters and the body become
// args and kwargs, the results come back as JSON or as a response, WAMP
// errors with their statuses, the request's identity decides, and the
// OpenAPI document describes the routes.
func TestAPIEndToEnd(t *testing.T) {
	n := start(t, parse(t, apiDoc, nil), t.TempDir())
	addr := address(t, n, web0)
	backend := mustWS(t, "ws://"+addr+"/backend", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	procs := map[wamp.URI]client.InvocationHandler{
		"com.example.user.get": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			if inv.Args[0] == "0" {
				return nil, &wamp.RequestError{URI: "com.example.error.not_found", Args: wamp.List{"no user 0"}}
			}
			return &client.Result{Args: wamp.List{wamp.Object{{Key: "id", Value: inv.Args[0]}, {Key: "kwargs", Value: inv.Kwargs}}}}, nil
		},
		"com.example.user.create": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
		},
		"com.user.whoami": func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: wamp.List{inv.Details[wamp.OptCallerAuthID]}}, nil
		},
		"com.example.page": func(context.Context, *client.Invocation) (*client.Result, error) {
			return &client.Result{Args: wamp.List{wamp.Dict{"code": 200, "headers": wamp.Dict{"Content-Type": "text/html"}, "content": "<h1>hi</h1>"}}}, nil
		},
	}
	for uri, h := range procs {
		if _, err := backend.Register(testCtx(t), uri, h, nil); err != nil {
			t.Fatal(err)
		}
	}
	base := "http://" + addr + "/v1"
	for _, tt := range []struct {
		name, method, path, body, key string
		status                        int
		want, ctype                   string
	}{
		{"path, query and a literal", "GET", "/users/7?fields=name", "", "", 200, `{"id":"7","kwargs":{"fields":"name","limit":10}}`, "application/json; charset=utf-8"},
		{"body", "POST", "/users", `{"name":"bob"}`, "", 201, `{"kwargs":{"user":{"name":"bob"}}}`, ""},
		{"mapped application error", "GET", "/users/0", "", "", 404, `{"error":"com.example.error.not_found","args":["no user 0"],"kwargs":{}}`, ""},
		{"response result", "GET", "/page", "", "", 200, `<h1>hi</h1>`, "text/html"},
		{"identity allowed", "GET", "/me", "", "k-alice", 200, `"alice"`, ""},
		{"no credentials: the path's role, refused", "GET", "/me", "", "", 403, `{"error":"wamp.error.not_authorized"`, ""},
		{"wrong key", "GET", "/me", "", "k-eve", 401, `{"error":"wamp.error.authentication_failed"`, ""},
		{"no route", "GET", "/nope", "", "", 404, `{"error":"No route for GET /nope."`, ""},
		{"wrong method", "DELETE", "/users/7", "", "", 405, `{"error":"Method not allowed. (DELETE not allowed, only GET,OPTIONS)"`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(testCtx(t), tt.method, base+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Origin", "https://app.example")
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if tt.key != "" {
				req.Header.Set("Authorization", "Bearer "+tt.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.HasPrefix(string(body), tt.want) {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, body, tt.status, tt.want)
			}
			if tt.ctype != "" && resp.Header.Get("Content-Type") != tt.ctype {
				t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
				t.Errorf("CORS: %v", resp.Header)
			}
		})
	}
	resp, err := http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Info       struct{ Title string }
		Servers    []struct{ URL string }
		Paths      map[string]map[string]any
		Security   []map[string][]string
		Components struct{ SecuritySchemes map[string]any }
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("openapi.json: %d %v", resp.StatusCode, err)
	}
	// auth: API keys as bearer tokens, not required.
	if len(doc.Security) != 2 || doc.Security[0]["bearer"] == nil || len(doc.Security[1]) != 0 || doc.Components.SecuritySchemes["bearer"] == nil {
		t.Errorf("openapi.json security: %v %v", doc.Security, doc.Components.SecuritySchemes)
	}
	if doc.Info.Title != "Users" || len(doc.Servers) != 1 || doc.Servers[0].URL != "/v1" || doc.Paths["/users/{id}"]["get"] == nil {
		t.Errorf("openapi.json: %+v", doc)
	}
}

// TestAPIStats: the api service's requests are counted as a service of
// type "api".
func TestAPIStats(t *testing.T) {
	n := start(t, parse(t, apiDoc, nil), t.TempDir())
	resp, err := http.Get("http://" + address(t, n, web0) + "/v1/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eventually(t, func() []string {
		for _, s := range n.Stats().Services {
			if s.Type == metrics.ServiceAPI && s.URL == "/v1" && s.Requests.Requests() == 1 {
				return nil
			}
		}
		return []string{fmt.Sprintf("no api service with one request in %+v", n.Stats().Services)}
	})
}
