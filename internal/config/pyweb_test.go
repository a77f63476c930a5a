package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// pywebDoc is a document with one path "svc" of the members given.
func pywebDoc(members string) string { return web(`{"svc": {` + members + `}}`) }

const svcPath = t0 + ".paths.svc"

// pythonWebRuleTests are the wsgi and resource paths' rules, with the
// path and a substring of the one error each gives.
var pythonWebRuleTests = []ruleTest{
	{"wsgi module missing", pywebDoc(`"type": "wsgi", "object": "app"`), svcPath + ".module", "required"},
	{"wsgi object missing", pywebDoc(`"type": "wsgi", "module": "app"`), svcPath + ".object", "required"},
	{"wsgi module type", pywebDoc(`"type": "wsgi", "module": 1, "object": "app"`), svcPath + ".module", "must be a string"},
	{"wsgi module name", pywebDoc(`"type": "wsgi", "module": "my-app", "object": "app"`), svcPath + `.module`, `invalid Python module name "my-app"`},
	{"wsgi module dots", pywebDoc(`"type": "wsgi", "module": "a..b", "object": "app"`), svcPath + `.module`, `invalid Python module name "a..b"`},
	{"wsgi object name", pywebDoc(`"type": "wsgi", "module": "m", "object": "a.b"`), svcPath + `.object`, `invalid Python name "a.b"`},
	{"wsgi maxthreads zero", pywebDoc(`"type": "wsgi", "module": "m", "object": "app", "maxthreads": 0`), svcPath + ".maxthreads", "must be in 1..2147483647, not 0"},
	{"wsgi maxthreads type", pywebDoc(`"type": "wsgi", "module": "m", "object": "app", "maxthreads": "4"`), svcPath + ".maxthreads", "must be an integer"},
	{"wsgi minthreads negative", pywebDoc(`"type": "wsgi", "module": "m", "object": "app", "minthreads": -1`), svcPath + ".minthreads", "must be in 0..2147483647, not -1"},
	{"wsgi min over max", pywebDoc(`"type": "wsgi", "module": "m", "object": "app", "minthreads": 5, "maxthreads": 4`), svcPath + ".minthreads", "must be <= maxthreads (4), not 5"},
	{"wsgi min over default max", pywebDoc(`"type": "wsgi", "module": "m", "object": "app", "minthreads": 21`), svcPath + ".minthreads", "must be <= maxthreads (20), not 21"},
	{"wsgi unknown key", pywebDoc(`"type": "wsgi", "module": "m", "object": "app", "maxthread": 4`), svcPath + `.maxthread`, `unknown key (did you mean "maxthreads"?)`},
	{"wsgi id", pywebDoc(`"type": "wsgi", "module": "m", "object": "app", "id": "X"`), svcPath + `.id`, `invalid id "X"`},
	{"resource classname missing", pywebDoc(`"type": "resource"`), svcPath + ".classname", "required"},
	{"resource classname one name", pywebDoc(`"type": "resource", "classname": "MyResource"`), svcPath + `.classname`, `invalid Python class name "MyResource" (want package.module.Class)`},
	{"resource classname type", pywebDoc(`"type": "resource", "classname": ["a.B"]`), svcPath + ".classname", "must be a string"},
	{"resource unknown key", pywebDoc(`"type": "resource", "classname": "a.B", "extras": {}`), svcPath + `.extras`, `unknown key (did you mean "extra"?)`},
	{"resource extra variable", pywebDoc(`"type": "resource", "classname": "a.B", "extra": {"k": ["${JUNCTION_TEST_UNSET_VARIABLE}"]}`), svcPath + `.extra.k[0]`, `environment variable JUNCTION_TEST_UNSET_VARIABLE is not set`},
}

func TestPythonWebRules(t *testing.T) {
	for _, tt := range pythonWebRuleTests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 || errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %v, want one error at %s: ...%s...", errs, tt.path, tt.msg)
			}
		})
	}
}

func TestPythonWebServices(t *testing.T) {
	tests := []struct {
		name, members string
		want          PathService
	}{
		{"wsgi defaults", `"type": "wsgi", "module": "myapp", "object": "app"`,
			&WSGIService{Module: "myapp", Object: "app", MinThreads: 0, MaxThreads: 20}},
		{"wsgi dotted, threads", `"type": "wsgi", "id": "web1", "module": "django_project.wsgi", "object": "application", "minthreads": 2, "maxthreads": 2`,
			&WSGIService{Module: "django_project.wsgi", Object: "application", MinThreads: 2, MaxThreads: 2}},
		{"resource without extra", `"type": "resource", "classname": "myresource.MyResource"`,
			&ResourceService{Classname: "myresource.MyResource", Extra: map[string]any{}}},
		{"resource extra object", `"type": "resource", "classname": "a.b.C", "extra": {"n": 1, "s": ["x"]}`,
			&ResourceService{Classname: "a.b.C", Extra: map[string]any{"n": json.Number("1"), "s": []any{"x"}}}},
		{"resource extra not an object", `"type": "resource", "classname": "a.C", "extra": [1, "two"]`,
			&ResourceService{Classname: "a.C", Extra: []any{json.Number("1"), "two"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := svc(t, pywebDoc(tt.members))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}
