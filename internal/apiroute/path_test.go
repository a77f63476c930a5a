package apiroute

import (
	"slices"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in, shape, openapi string
		params             []string
		err                string
	}{
		{in: "/", shape: "/", openapi: "/"},
		{in: "/users", shape: "/users", openapi: "/users"},
		{in: "/users/{id}", shape: "/users/{}", openapi: "/users/{id}", params: []string{"id"}},
		{in: "/a/{x}/b/{y_2}", shape: "/a/{}/b/{}", openapi: "/a/{x}/b/{y_2}", params: []string{"x", "y_2"}},
		{in: "/caf%C3%A9", shape: "/caf%C3%A9", openapi: "/caf%C3%A9"},
		{in: "users", err: `must start with "/"`},
		{in: "", err: `must start with "/"`},
		{in: "/users/", err: "segment 2: empty"},
		{in: "//x", err: "segment 1: empty"},
		{in: "/{id}/{id}", err: "parameter {id} appears twice"},
		{in: "/user-{id}", err: "a parameter is a whole segment"},
		{in: "/{id", err: "a parameter is a whole segment"},
		{in: "/{}", err: "a parameter is a whole segment"},
		{in: "/{1x}", err: "a parameter is a whole segment"},
		{in: "/{a-b}", err: "a parameter is a whole segment"},
		{in: "/x}", err: "a parameter is a whole segment"},
		{in: "/%zz", err: "invalid URL escape"},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParsePath(%q) = %v, want an error with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tt.in, err)
			continue
		}
		if p.Shape() != tt.shape || p.OpenAPI() != tt.openapi || !slices.Equal(p.Params(), tt.params) || p.String() != tt.in {
			t.Errorf("ParsePath(%q): shape %q openapi %q params %q", tt.in, p.Shape(), p.OpenAPI(), p.Params())
		}
	}
}

func TestPathMatch(t *testing.T) {
	tests := []struct {
		tmpl, path string
		want       []string
		ok         bool
	}{
		{"/", "", nil, true},
		{"/", "/", nil, true},
		{"/users", "/users", nil, true},
		{"/users", "/users/", nil, false},
		{"/users/{id}", "/users/42", []string{"42"}, true},
		{"/users/{id}", "/users/a%2Fb", []string{"a/b"}, true},
		{"/users/{id}", "/users/", nil, false},
		{"/users/{id}", "/users/1/x", nil, false},
		{"/a/{x}/b/{y}", "/a/1/b/2", []string{"1", "2"}, true},
		{"/a/{x}/b/{y}", "/a/1/c/2", nil, false},
		{"/caf%C3%A9", "/caf%c3%a9", nil, true},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		segs, ok := Split(tt.path)
		if !ok {
			t.Fatalf("Split(%q) failed", tt.path)
		}
		got, ok := p.Match(segs)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("%s matching %q = %q, %v; want %q, %v", tt.tmpl, tt.path, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := Split("/%zz"); ok {
		t.Error("Split of a bad escape succeeded")
	}
}

func TestCompare(t *testing.T) {
	me, _ := ParsePath("/users/me")
	id, _ := ParsePath("/users/{id}")
	long, _ := ParsePath("/users/{id}/x")
	if me.Compare(id) >= 0 || id.Compare(me) <= 0 || me.Compare(me) != 0 || id.Compare(long) >= 0 {
		t.Error("a literal segment is not tried before a parameter")
	}
}
