package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// apiDoc is a document whose web path "svc" is an api service on realm1
// with role anonymous, with the routes (a JSON array) and options (none
// when "").
func apiDoc(routes, options string) string {
	members := `"type": "api", "realm": "realm1", "role": "anonymous"`
	if routes != "" {
		members += `, "routes": ` + routes
	}
	return bridgeDoc(members, options)
}

const rp = bp + ".routes"

var apiRuleTests = []struct {
	name, doc, path, msg string
}{
	{"routes required", apiDoc("", ""), rp, "required"},
	{"routes empty", apiDoc(`[]`, ""), rp, "must hold at least one route"},
	{"routes not a list", apiDoc(`{}`, ""), rp, "must be an array"},
	{"method required", apiDoc(`[{"path": "/x", "procedure": "a.b"}]`, ""), rp + "[0].method", "required"},
	{"method unknown", apiDoc(`[{"method": "FETCH", "path": "/x", "procedure": "a.b"}]`, ""), rp + "[0].method", `"FETCH" is not one of GET, POST, PUT, PATCH, DELETE`},
	{"path required", apiDoc(`[{"method": "GET", "procedure": "a.b"}]`, ""), rp + "[0].path", "required"},
	{"path relative", apiDoc(`[{"method": "GET", "path": "x", "procedure": "a.b"}]`, ""), rp + "[0].path", `must start with "/"`},
	{"path bad template", apiDoc(`[{"method": "GET", "path": "/u-{id}", "procedure": "a.b"}]`, ""), rp + "[0].path", "a parameter is a whole segment"},
	{"path doc", apiDoc(`[{"method": "GET", "path": "/openapi.json", "procedure": "a.b"}]`, ""), rp + "[0].path", "OpenAPI document"},
	{"procedure required", apiDoc(`[{"method": "GET", "path": "/x"}]`, ""), rp + "[0].procedure", "required"},
	{"procedure invalid", apiDoc(`[{"method": "GET", "path": "/x", "procedure": "a..b"}]`, ""), rp + "[0].procedure", `invalid procedure URI "a..b"`},
	{"unknown placeholder", apiDoc(`[{"method": "GET", "path": "/u/{id}", "procedure": "a.b", "args": ["{uid}"]}]`, ""),
		rp + "[0].args[0]", `{uid} is not a parameter of the path "/u/{id}" (known: {id})`},
	{"unknown placeholder in kwargs", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "kwargs": {"x": {"y": ["{id}"]}}}]`, ""),
		rp + "[0].kwargs.x.y[0]", `{id} is not a parameter`},
	{"bad template", apiDoc(`[{"method": "POST", "path": "/u", "procedure": "a.b", "args": ["{body"]}]`, ""), rp + "[0].args[0]", `an unclosed "{"`},
	{"body in GET", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "args": ["{body.x}"]}]`, ""), rp + "[0].args[0]", "a GET request has no body"},
	{"duplicate route", apiDoc(`[{"method": "GET", "path": "/u/{id}", "procedure": "a.b"}, {"method": "GET", "path": "/u/{name}", "procedure": "a.c"}]`, ""),
		rp + "[1]", "the same method and path shape as routes[0]"},
	{"args not a list", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "args": "x"}]`, ""), rp + "[0].args", "must be an array"},
	{"kwargs not an object", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "kwargs": []}]`, ""), rp + "[0].kwargs", "must be an object"},
	{"result unknown", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "result": "xml"}]`, ""), rp + "[0].result", `unknown result form "xml"`},
	{"status not a success", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "status": 404}]`, ""), rp + "[0].status", "must be in 200..299"},
	{"schema not an object", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "result_schema": "string"}]`, ""), rp + "[0].result_schema", "must be a JSON Schema object"},
	{"route unknown key", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b", "verb": "x"}]`, ""), rp + "[0].verb", "unknown key"},
	{"role unknown", bridgeDoc(`"type": "api", "realm": "realm1", "role": "x", "routes": [{"method": "GET", "path": "/u", "procedure": "a.b"}]`, ""),
		bp + ".role", `role "x" is not defined in realm "realm1"`},
	{"auth role unknown", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b"}]`, `"auth": {"api_keys": {"k": {"authid": "a", "authrole": "x"}}}`),
		bpOpts + ".auth.api_keys.k.authrole", `role "x" is not defined`},
	{"openapi unknown key", apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b"}]`, `"openapi": {"name": "x"}`), bpOpts + ".openapi.name", "unknown key"},
}

func TestAPIRules(t *testing.T) {
	for _, tt := range apiRuleTests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1 at %q:\n%v", len(errs), tt.path, errs)
			}
			if errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", errs[0].Error(), tt.path, tt.msg)
			}
		})
	}
}

func TestAPIWarnings(t *testing.T) {
	_, warns, errs := parseTest(t, apiDoc(`[{"method": "GET", "path": "/u", "procedure": "a.b"}]`, `"error_status": false`), JSON)
	if len(errs) != 0 || len(warns) != 1 || warns[0].Path != bpOpts+".error_status" || !strings.Contains(warns[0].Msg, "false is ignored") {
		t.Errorf("errors %v, warnings %v", errs, warns)
	}
}

func TestAPIDecode(t *testing.T) {
	doc := apiDoc(`[{"method": "PUT", "path": "/users/{id}", "procedure": "com.example.user.update", "args": ["{id}", 1],
		"kwargs": {"name": "{body.name}"}, "status": 202, "result": "response", "summary": "Update a user",
		"body_schema": {"type": "object"}}]`,
		`"call_timeout": 0, "cancel_mode": "skip", "error_status": {"com.example.error.not_found": 404}, "openapi": {"title": "Users", "version": "2"}`)
	got := svc(t, doc).(*APIService)
	want := APIService{
		BridgeService: BridgeService{Realm: "realm1", Role: "anonymous", PostBodyLimit: DefaultPostBodyLimit},
		Access:        Access{ErrorStatus: ErrorStatus{On: true, Statuses: map[string]int{"com.example.error.not_found": 404}}},
		CallTimeout:   -1, CancelMode: "skip", Title: "Users", Version: "2",
		Routes: []APIRoute{{Method: "PUT", Path: "/users/{id}", Procedure: "com.example.user.update", Args: []any{"{id}", json.Number("1")},
			Kwargs: map[string]any{"name": "{body.name}"}, Status: 202, Result: "response", Summary: "Update a user",
			BodySchema: map[string]any{"type": "object"}}},
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v,\nwant %+v", *got, want)
	}
	got = svc(t, apiDoc(`[{"method": "GET", "path": "/", "procedure": "a.b"}]`, "")).(*APIService)
	if got.CallTimeout != 30*time.Second || got.CancelMode != "killnowait" || got.Routes[0].Status != 200 || got.Routes[0].Result != "json" {
		t.Errorf("defaults: %+v", *got)
	}
}
