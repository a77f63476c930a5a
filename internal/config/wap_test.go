package config

import (
	"reflect"
	"strings"
	"testing"
)

// wapDoc is a document with one wap path "svc": templates "t", the
// routes given and the wamp object given.
func wapDoc(routes, wamp string) string {
	return pywebDoc(`"type": "wap", "templates": "t", "routes": ` + routes + `, "wamp": ` + wamp)
}

const wapRealm = `{"realm": "realm1"}`

// wapRuleTests are the wap path's rules, with the path and a substring
// of the one error each gives.
var wapRuleTests = []ruleTest{
	{"templates missing", pywebDoc(`"type": "wap", "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".templates", "required"},
	{"templates empty", pywebDoc(`"type": "wap", "templates": "", "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".templates", "must not be empty"},
	{"templates type", pywebDoc(`"type": "wap", "templates": 1, "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".templates", "must be an object, not a number"},
	{"templates package missing", pywebDoc(`"type": "wap", "templates": {"resource": "t"}, "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".templates.package", "required"},
	{"templates resource missing", pywebDoc(`"type": "wap", "templates": {"package": "p"}, "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".templates.resource", "required"},
	{"templates package name", pywebDoc(`"type": "wap", "templates": {"package": "my-pkg", "resource": "t"}, "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".templates.package", `invalid Python module name "my-pkg"`},
	{"templates unknown key", pywebDoc(`"type": "wap", "templates": {"package": "p", "resource": "t", "packages": "q"}, "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".templates.packages", `unknown key (did you mean "package"?)`},
	{"routes missing", pywebDoc(`"type": "wap", "templates": "t", "wamp": {"realm": "realm1"}`), svcPath + ".routes", "required"},
	{"routes not a list", wapDoc(`{}`, wapRealm), svcPath + ".routes", "must be an array"},
	{"route not an object", wapDoc(`["/x"]`, wapRealm), svcPath + ".routes[0]", "must be an object"},
	{"route path missing", wapDoc(`[{"render": "a.html"}]`, wapRealm), svcPath + ".routes[0].path", "required"},
	{"route path empty", wapDoc(`[{"path": "", "render": "a.html"}]`, wapRealm), svcPath + ".routes[0].path", `invalid route ""`},
	{"route render missing", wapDoc(`[{"path": "/", "method": "GET"}]`, wapRealm), svcPath + ".routes[0].render", "required"},
	{"route render type", wapDoc(`[{"path": "/", "render": ["a.html"]}]`, wapRealm), svcPath + ".routes[0].render", "must be a string"},
	{"route method", wapDoc(`[{"path": "/", "method": "FETCH", "render": "a.html"}]`, wapRealm), svcPath + ".routes[0].method", `invalid HTTP method "FETCH"`},
	{"route call not a URI", wapDoc(`[{"path": "/", "call": "com example", "render": "a.html"}]`, wapRealm), svcPath + ".routes[0].call", `invalid procedure URI "com example"`},
	{"route call type", wapDoc(`[{"path": "/", "call": 1, "render": "a.html"}]`, wapRealm), svcPath + ".routes[0].call", "must be a string"},
	{"route unknown key", wapDoc(`[{"path": "/", "methods": "GET", "render": "a.html"}]`, wapRealm), svcPath + ".routes[0].methods", `unknown key (did you mean "method"?)`},
	{"wamp missing", pywebDoc(`"type": "wap", "templates": "t", "routes": []`), svcPath + ".wamp", "required"},
	{"wamp realm missing", wapDoc(`[]`, `{"authrole": "anonymous"}`), svcPath + ".wamp.realm", "required"},
	{"wamp realm invalid", wapDoc(`[]`, `{"realm": "realm 1"}`), svcPath + ".wamp.realm", `invalid realm URI "realm 1"`},
	{"wamp realm not in router", wapDoc(`[]`, `{"realm": "realm2"}`), svcPath + ".wamp.realm", `realm "realm2" is not defined in this router`},
	{"wamp authrole not in realm", wapDoc(`[]`, `{"realm": "realm1", "authrole": "admin"}`), svcPath + ".wamp.authrole", `role "admin" is not defined in realm "realm1"`},
	{"wamp unknown key", wapDoc(`[]`, `{"realm": "realm1", "role": "anonymous"}`), svcPath + ".wamp.role", "unknown key"},
	{"sandbox type", pywebDoc(`"type": "wap", "templates": "t", "sandbox": "yes", "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".sandbox", "must be a boolean"},
	{"unknown key", pywebDoc(`"type": "wap", "templates": "t", "route": [], "routes": [], "wamp": {"realm": "realm1"}`), svcPath + ".route", `unknown key (did you mean "routes"?)`},
}

func TestWAPRules(t *testing.T) {
	for _, tt := range wapRuleTests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 || errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %v, want one error at %s: ...%s...", errs, tt.path, tt.msg)
			}
		})
	}
}

func TestWAPService(t *testing.T) {
	tests := []struct {
		name, members string
		want          *WAPService
	}{
		{"defaults", `"templates": "../templates", "routes": [], "wamp": {"realm": "realm1"}`,
			&WAPService{Templates: WAPTemplates{Dir: "../templates"}, Sandbox: true, Routes: []WAPRoute{},
				Realm: "realm1", AuthRole: "anonymous"}},
		{"Crossbar's example", `"templates": "../templates", "sandbox": false, "routes": [
				{"path": "/greeting/<name>", "method": "GET", "call": "com.example.greeting", "render": "greeting.html"},
				{"path": "/form", "method": "post", "call": null, "render": "form.html"},
				{"path": "/", "render": "index.html"}],
			"wamp": {"realm": "realm1", "authrole": "trusted"}`,
			&WAPService{Templates: WAPTemplates{Dir: "../templates"}, Routes: []WAPRoute{
				{Path: "/greeting/<name>", Method: "GET", Call: "com.example.greeting", Render: "greeting.html"},
				{Path: "/form", Method: "POST", Render: "form.html"},
				{Path: "/", Method: "GET", Render: "index.html"}},
				Realm: "realm1", AuthRole: "trusted"}},
		{"package templates", `"id": "wap1", "templates": {"package": "myapp.web", "resource": "templates"}, "routes": [], "wamp": {"realm": "realm1"}`,
			&WAPService{Templates: WAPTemplates{Package: "myapp.web", Resource: "templates"}, Sandbox: true, Routes: []WAPRoute{},
				Realm: "realm1", AuthRole: "anonymous"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := svc(t, pywebDoc(`"type": "wap", `+tt.members))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}
