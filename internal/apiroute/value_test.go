package apiroute

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fakeRequest is a Request from maps.
type fakeRequest struct {
	path, query map[string]string
	body        any // nil: no body
}

func (f *fakeRequest) Path(n string) (string, bool)  { v, ok := f.path[n]; return v, ok }
func (f *fakeRequest) Query(n string) (string, bool) { v, ok := f.query[n]; return v, ok }
func (f *fakeRequest) Body() (any, bool)             { return f.body, f.body != nil }
func (f *fakeRequest) Field(path []string) (any, bool) {
	v := f.body
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestParseValueErrors(t *testing.T) {
	tests := []struct {
		in, at, err string
	}{
		{`"{"`, "", `unclosed "{"`},
		{`"}"`, "", `lone "}"`},
		{`"{}"`, "", "not a placeholder"},
		{`"{query.}"`, "", "needs a name"},
		{`"{body.}"`, "", "no empty name"},
		{`"{body.a..b}"`, "", "no empty name"},
		{`"{1}"`, "", "not a placeholder"},
		{`"{headers.x}"`, "", "not a placeholder"},
		{`[1, "{x"]`, "[1]", "unclosed"},
		{`{"a": {"b": ["}"]}}`, ".a.b[0]", "lone"},
	}
	for _, tt := range tests {
		var v any
		if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
			t.Fatal(err)
		}
		_, err := ParseValue(v)
		e, ok := err.(*Error)
		if !ok || e.At != tt.at || !strings.Contains(e.Msg, tt.err) {
			t.Errorf("ParseValue(%s) = %v, want at %q: %q", tt.in, err, tt.at, tt.err)
		}
	}
}

func TestValueFill(t *testing.T) {
	req := &fakeRequest{
		path:  map[string]string{"id": "42"},
		query: map[string]string{"fields": "name,email"},
		body:  map[string]any{"name": "alice", "n": 3.0, "deep": map[string]any{"x": true}},
	}
	tests := []struct {
		tmpl string
		want any
		ok   bool
	}{
		{`"{id}"`, "42", true},
		{`"{query.fields}"`, "name,email", true},
		{`"{query.none}"`, nil, false},
		{`"{body}"`, req.body, true},
		{`"{body.n}"`, 3.0, true},
		{`"{body.deep.x}"`, true, true},
		{`"{body.nope}"`, nil, false},
		{`"user-{id}-{body.n}-{query.none}"`, "user-42-3-", true},
		{`"{{literal}} {id}"`, "{literal} 42", true},
		{`"{{}}"`, "{}", true},
		{`"plain"`, "plain", true},
		{`""`, "", true},
		{`7`, 7.0, true},
		{`null`, nil, true},
		{`["{id}", "{query.none}", 1]`, []any{"42", nil, 1.0}, true},
		{`{"id": "{id}", "f": "{query.none}", "b": "{body.deep}"}`, map[string]any{"id": "42", "b": map[string]any{"x": true}}, true},
	}
	for _, tt := range tests {
		var raw any
		if err := json.Unmarshal([]byte(tt.tmpl), &raw); err != nil {
			t.Fatal(err)
		}
		v, err := ParseValue(raw)
		if err != nil {
			t.Fatalf("ParseValue(%s): %v", tt.tmpl, err)
		}
		got, ok := v.Fill(req)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Fill(%s) = %#v, %v; want %#v, %v", tt.tmpl, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRefs(t *testing.T) {
	var raw any
	json.Unmarshal([]byte(`{"a": ["{id}", "x{query.q}y"], "b": "{body}", "c": "{body.m.n}"}`), &raw)
	v, err := ParseValue(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{PathParam, "id"}, {QueryParam, "q"}, {Body, ""}, {BodyField, "m.n"}}
	if got := v.Refs(); !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %v, want %v", got, want)
	}
	var names []string
	for _, r := range want {
		names = append(names, r.String())
	}
	if s := strings.Join(names, " "); s != "{id} {query.q} {body} {body.m.n}" {
		t.Errorf("Ref strings: %s", s)
	}
}
