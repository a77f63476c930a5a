package apiroute

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// specs decodes a JSON list of {"method", "path", "args", "kwargs"}.
func specs(t *testing.T, js string) []Spec {
	t.Helper()
	var raw []struct {
		Method, Path string
		Args         []any
		Kwargs       map[string]any
	}
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		t.Fatal(err)
	}
	var out []Spec
	for _, r := range raw {
		out = append(out, Spec{r.Method, r.Path, r.Args, r.Kwargs})
	}
	return out
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		routes string
		want   []string
	}{
		{`[{"method": "GET", "path": "/users/{id}", "args": ["{uid}"]}]`,
			[]string{`[0].args[0]: {uid} is not a parameter of the path "/users/{id}" (known: {id})`}},
		{`[{"method": "GET", "path": "/users", "kwargs": {"x": "{id}"}}]`,
			[]string{`[0].kwargs.x: {id} is not a parameter of the path "/users" (known: none)`}},
		{`[{"method": "GET", "path": "/u/{id}"}, {"method": "GET", "path": "/u/{name}"}]`,
			[]string{`[1]: GET /u/{name}: the same method and path shape as routes[0]`}},
		{`[{"method": "GET", "path": "/u/{id}"}, {"method": "DELETE", "path": "/u/{name}"}]`,
			[]string{`[1].path: /u/{name} has the shape of routes[0]'s /u/{id}: name the parameters the same`}},
		{`[{"method": "GET", "path": "/u/{id}", "args": ["{x}"]}, {"method": "GET", "path": "/u/{id}"}]`,
			[]string{`[0].args[0]: {x} is not a parameter`, `[1]: GET /u/{id}: the same method and path shape as routes[0]`}},
		{`[{"method": "FETCH", "path": "/u"}]`, []string{`[0].method: "FETCH" is not one of GET, POST, PUT, PATCH, DELETE`}},
		{`[{"method": "get", "path": "/u"}]`, []string{`[0].method: "get" is not one of`}},
		{`[{"method": "GET", "path": "u"}]`, []string{`[0].path: path "u": must start with "/"`}},
		{`[{"method": "GET", "path": "/openapi.json"}]`, []string{`[0].path: GET /openapi.json is the service's OpenAPI document`}},
		{`[{"method": "GET", "path": "/u", "args": ["{body}"]}]`, []string{`[0].args[0]: {body}: a GET request has no body`}},
		{`[{"method": "POST", "path": "/u", "args": [{"a": ["{x"]}]}]`, []string{`[0].args[0].a[0]: template "{x": an unclosed "{"`}},
		{`[{"method": "GET", "path": "/a"}, {"method": "POST", "path": "/a"}, {"method": "GET", "path": "/{x}"}]`, nil},
	}
	for _, tt := range tests {
		_, err := Compile(specs(t, tt.routes))
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tt.routes, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error", tt.routes)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %s", tt.routes, err, w)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	tbl, err := Compile(specs(t, `[
		{"method": "GET", "path": "/users/{id}"},
		{"method": "DELETE", "path": "/users/{id}"},
		{"method": "GET", "path": "/users/me"},
		{"method": "POST", "path": "/users"}]`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method, path string
		index        int // -1: none
		values       []string
		allow        []string
	}{
		{"GET", "/users/42", 0, []string{"42"}, nil},
		{"DELETE", "/users/42", 1, []string{"42"}, nil},
		{"GET", "/users/me", 2, nil, nil},
		{"DELETE", "/users/me", 1, []string{"me"}, nil},
		{"POST", "/users", 3, nil, nil},
		{"GET", "/users", -1, nil, []string{"POST"}},
		{"PUT", "/users/1", -1, nil, []string{"DELETE", "GET"}},
		{"GET", "/nope", -1, nil, nil},
	}
	for _, tt := range tests {
		segs, _ := Split(tt.path)
		r, values, allow := tbl.Lookup(tt.method, segs)
		index := -1
		if r != nil {
			index = r.Index
		}
		if index != tt.index || !slices.Equal(values, tt.values) || !slices.Equal(allow, tt.allow) {
			t.Errorf("%s %s = route %d %q allow %q", tt.method, tt.path, index, values, allow)
		}
	}
}

// BenchmarkLookup splits a request path and finds its route among a
// dozen.
func BenchmarkLookup(b *testing.B) {
	var ss []Spec
	for _, p := range []string{"/users", "/users/{id}", "/users/me", "/users/{id}/posts", "/users/{id}/posts/{post}", "/orders",
		"/orders/{id}", "/orders/{id}/items", "/health", "/a/b/c", "/a/{x}/c", "/{x}/y"} {
		ss = append(ss, Spec{Method: "GET", Path: p, Args: []any{"{query.q}"}})
	}
	tbl, err := Compile(ss)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		segs, _ := Split("/users/42/posts/7")
		if r, _, _ := tbl.Lookup("GET", segs); r == nil {
			b.Fatal("no route")
		}
	}
}
