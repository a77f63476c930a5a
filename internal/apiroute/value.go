package apiroute

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a placeholder stands for.
type Kind int

// The placeholders.
const (
	// PathParam "{name}": the decoded path segment, a string.
	PathParam Kind = iota + 1
	// QueryParam "{query.NAME}": the first value of the query parameter,
	// a string; absent when the request has none.
	QueryParam
	// Body "{body}": the request's JSON body, any JSON value; absent
	// when the request has no body.
	Body
	// BodyField "{body.NAME}" or "{body.A.B}": a member of the body (an
	// object), of any JSON type; absent when it is not there.
	BodyField
)

// Ref is one placeholder of a template.
type Ref struct {
	Kind Kind
	// Name is the parameter's name (PathParam, QueryParam) or the
	// member's dotted path (BodyField); "" for Body.
	Name string
}

func (r Ref) String() string {
	switch r.Kind {
	case PathParam:
		return "{" + r.Name + "}"
	case QueryParam:
		return "{query." + r.Name + "}"
	case Body:
		return "{body}"
	}
	return "{body." + r.Name + "}"
}

// Request is what a template is filled from.
type Request interface {
	// Path returns the value of a path parameter.
	Path(name string) (string, bool)
	// Query returns the first value of a query parameter.
	Query(name string) (string, bool)
	// Body returns the decoded JSON body (wamp.Object for an object).
	Body() (any, bool)
	// Field returns a member of the body, by its path.
	Field(path []string) (any, bool)
}

// Value is a compiled template of an arg or a kwarg: JSON as it was
// written, in which each string is literal text, one placeholder (which
// keeps its value's JSON type) or text with placeholders (a string).
// Immutable.
type Value struct {
	lit   any               // a literal JSON value with no string inside that has a placeholder
	parts []part            // a string with placeholders
	whole *Ref              // a string that is one placeholder
	list  []*Value          // a JSON array
	obj   map[string]*Value // a JSON object
	kind  int               // which of the above: see the kind constants
}

const (
	kindLit = iota
	kindParts
	kindWhole
	kindList
	kindObject
)

// part is literal text, or a placeholder when ref is set.
type part struct {
	text string
	ref  *Ref
}

// Error is a template error at a place inside the value: At is a JSON
// path suffix ("", "[0]", ".name").
type Error struct {
	At  string
	Msg string
}

func (e *Error) Error() string { return e.At + ": " + e.Msg }

// ParseValue compiles v, a value as encoding/json decodes it into any
// (map[string]any, []any, string, float64 or json.Number, bool, nil).
func ParseValue(v any) (*Value, error) {
	switch v := v.(type) {
	case string:
		return parseString(v)
	case []any:
		out := &Value{kind: kindList}
		for i, e := range v {
			ev, err := ParseValue(e)
			if err != nil {
				return nil, nest("["+strconv.Itoa(i)+"]", err)
			}
			out.list = append(out.list, ev)
		}
		return out, nil
	case map[string]any:
		out := &Value{kind: kindObject, obj: map[string]*Value{}}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			ev, err := ParseValue(v[k])
			if err != nil {
				return nil, nest("."+k, err)
			}
			out.obj[k] = ev
		}
		return out, nil
	}
	return &Value{lit: v}, nil
}

// nest prefixes the place of err with at.
func nest(at string, err error) error {
	if e, ok := err.(*Error); ok {
		return &Error{At: at + e.At, Msg: e.Msg}
	}
	return err
}

// parseString compiles a string: "{{" and "}}" stand for "{" and "}".
func parseString(s string) (*Value, error) {
	parts, err := parseParts(s)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("template %q: %v", s, err)}
	}
	switch {
	case len(parts) == 1 && parts[0].ref != nil:
		return &Value{kind: kindWhole, whole: parts[0].ref}, nil
	case len(parts) == 0:
		return &Value{lit: ""}, nil
	case len(parts) == 1:
		return &Value{lit: parts[0].text}, nil
	}
	return &Value{kind: kindParts, parts: parts}, nil
}

// parseParts splits s into literal text and placeholders.
func parseParts(s string) ([]part, error) {
	var parts []part
	var text strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], "{{"), strings.HasPrefix(s[i:], "}}"):
			text.WriteByte(c)
			i++
		case c == '}':
			return nil, fmt.Errorf("a lone \"}\" at byte %d (write \"}}\" for a literal one)", i)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("an unclosed \"{\" at byte %d (write \"{{\" for a literal one)", i)
			}
			ref, err := parseRef(s[i+1 : i+end])
			if err != nil {
				return nil, err
			}
			if text.Len() > 0 {
				parts = append(parts, part{text: text.String()})
				text.Reset()
			}
			parts = append(parts, part{ref: ref})
			i += end
		default:
			text.WriteByte(c)
		}
	}
	if text.Len() > 0 {
		parts = append(parts, part{text: text.String()})
	}
	return parts, nil
}

// parseRef parses what is between the braces of a placeholder.
func parseRef(s string) (*Ref, error) {
	if s == "body" {
		return &Ref{Kind: Body}, nil
	}
	if name, ok := strings.CutPrefix(s, "query."); ok {
		if name == "" || strings.ContainsAny(name, "{") {
			return nil, fmt.Errorf("{%s}: a query parameter needs a name", s)
		}
		return &Ref{Kind: QueryParam, Name: name}, nil
	}
	if path, ok := strings.CutPrefix(s, "body."); ok {
		for f := range strings.SplitSeq(path, ".") {
			if f == "" || strings.ContainsAny(f, "{") {
				return nil, fmt.Errorf("{%s}: a body member is {body.NAME} or {body.A.B}, with no empty name", s)
			}
		}
		return &Ref{Kind: BodyField, Name: path}, nil
	}
	if !validName(s) {
		return nil, fmt.Errorf("{%s}: not a placeholder ({name} of the path, {query.NAME}, {body} or {body.NAME})", s)
	}
	return &Ref{Kind: PathParam, Name: s}, nil
}

// Refs returns every placeholder of v.
func (v *Value) Refs() []Ref {
	var out []Ref
	v.walk("", func(_ string, r *Ref) { out = append(out, *r) })
	return out
}

// walk calls fn with each placeholder of v and its place below at.
func (v *Value) walk(at string, fn func(at string, r *Ref)) {
	switch v.kind {
	case kindWhole:
		fn(at, v.whole)
	case kindParts:
		for _, p := range v.parts {
			if p.ref != nil {
				fn(at, p.ref)
			}
		}
	case kindList:
		for i, e := range v.list {
			e.walk(at+"["+strconv.Itoa(i)+"]", fn)
		}
	case kindObject:
		for _, k := range slices.Sorted(maps.Keys(v.obj)) {
			v.obj[k].walk(at+"."+k, fn)
		}
	}
}

// Fill returns the value for req; ok is false when v is one placeholder
// that req does not have (an absent query parameter or body member). In
// an array an absent value is null; in an object its member is left
// out; in text it is "". A placeholder in text that is not a string is
// written as JSON.
func (v *Value) Fill(req Request) (out any, ok bool) {
	switch v.kind {
	case kindWhole:
		return lookup(req, v.whole)
	case kindParts:
		var b strings.Builder
		for _, p := range v.parts {
			b.WriteString(p.text)
			if p.ref != nil {
				b.WriteString(text(lookup(req, p.ref)))
			}
		}
		return b.String(), true
	case kindList:
		l := make([]any, len(v.list))
		for i, e := range v.list {
			l[i], _ = e.Fill(req)
		}
		return l, true
	case kindObject:
		m := make(map[string]any, len(v.obj))
		for k, e := range v.obj {
			if x, ok := e.Fill(req); ok {
				m[k] = x
			}
		}
		return m, true
	}
	return v.lit, true
}

// lookup returns the value of a placeholder.
func lookup(req Request, r *Ref) (any, bool) {
	switch r.Kind {
	case PathParam, QueryParam:
		get := req.Path
		if r.Kind == QueryParam {
			get = req.Query
		}
		if s, ok := get(r.Name); ok {
			return s, true
		}
		return nil, false
	case Body:
		return req.Body()
	}
	return req.Field(strings.Split(r.Name, "."))
}

// text is a value as it appears in text: a string as it is, "" for none,
// anything else as JSON.
func text(v any, ok bool) string {
	if !ok || v == nil {
		return ""
	}
	if s, isString := v.(string); isString {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
