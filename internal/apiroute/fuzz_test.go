package apiroute

import (
	"strings"
	"testing"
)

// FuzzTemplates: parsing a path or a value template never panics; a path
// that parses matches the request path made from it (each parameter a
// value), and its shape and OpenAPI form parse again to the same shape;
// a value that parses fills without panicking, and a text template
// without placeholders fills to its text with the escapes undone.
func FuzzTemplates(f *testing.F) {
	for _, s := range []string{"/", "/users/{id}", "/a/{x}/b/{y}", "/{{", "/x}", "{body.a.b}", "user-{id}-{query.q}",
		"{{literal}}", "{", "}", "{query.}", "/caf%C3%A9/{id}", "/%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := ParsePath(s); err == nil {
			checkPath(t, p)
		}
		v, err := ParseValue(s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("ParseValue(%q): error %T", s, err)
			}
			return
		}
		req := &fakeRequest{path: map[string]string{}, query: map[string]string{}}
		got, _ := v.Fill(req)
		if len(v.Refs()) == 0 && got != strings.NewReplacer("{{", "{", "}}", "}").Replace(s) {
			t.Fatalf("Fill(%q) = %q", s, got)
		}
	})
}

func checkPath(t *testing.T, p *Path) {
	path := p.OpenAPI()
	for _, name := range p.Params() {
		path = strings.Replace(path, "{"+name+"}", "v", 1)
	}
	segs, ok := Split(path)
	if !ok {
		t.Fatalf("%q: Split(%q) failed", p, path)
	}
	if _, ok := p.Match(segs); !ok {
		t.Fatalf("%q does not match %q", p, path)
	}
	q, err := ParsePath(p.OpenAPI())
	if err != nil || q.Shape() != p.Shape() {
		t.Fatalf("%q: OpenAPI form %q parses to %v, %v", p, p.OpenAPI(), q, err)
	}
}
