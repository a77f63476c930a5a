package apiroute

import (
	"fmt"
	"net/url"
	"strings"
)

// Path is a route's path template: segments that are literal text or a
// whole-segment parameter "{name}". Immutable.
type Path struct {
	raw    string
	segs   []segment
	params []string // the parameters' names, in order
}

// segment is a literal segment (its decoded text) or a parameter (its
// name).
type segment struct {
	text  string
	param bool
}

// ParsePath parses a path template: "/" alone, or "/" followed by
// segments separated by "/", each non-empty literal text (without "{" or
// "}") or a parameter "{name}" (a letter or "_", then letters, digits and
// "_"), no parameter twice. Literal segments may be percent-encoded.
func ParsePath(s string) (*Path, error) {
	if !strings.HasPrefix(s, "/") {
		return nil, fmt.Errorf("path %q: must start with \"/\"", s)
	}
	p := &Path{raw: s}
	if s == "/" {
		return p, nil
	}
	for i, part := range strings.Split(s[1:], "/") {
		seg, err := parseSegment(part)
		if err != nil {
			return nil, fmt.Errorf("path %q: segment %d: %w", s, i+1, err)
		}
		if seg.param {
			if p.Has(seg.text) {
				return nil, fmt.Errorf("path %q: parameter {%s} appears twice", s, seg.text)
			}
			p.params = append(p.params, seg.text)
		}
		p.segs = append(p.segs, seg)
	}
	return p, nil
}

// parseSegment parses one segment of a path template.
func parseSegment(part string) (segment, error) {
	if part == "" {
		return segment{}, fmt.Errorf("empty (a double or trailing \"/\")")
	}
	if name, ok := strings.CutPrefix(part, "{"); ok {
		name, ok = strings.CutSuffix(name, "}")
		if !ok || !validName(name) {
			return segment{}, fmt.Errorf("%q: a parameter is a whole segment {name}: a letter or _, then letters, digits or _", part)
		}
		return segment{text: name, param: true}, nil
	}
	if strings.ContainsAny(part, "{}") {
		return segment{}, fmt.Errorf("%q: a parameter is a whole segment {name}", part)
	}
	text, err := url.PathUnescape(part)
	if err != nil {
		return segment{}, fmt.Errorf("%q: %w", part, err)
	}
	return segment{text: text}, nil
}

// validName reports whether s is a path parameter's name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// String returns the template as written.
func (p *Path) String() string { return p.raw }

// Params returns the names of the path's parameters, in order.
func (p *Path) Params() []string { return p.params }

// Has reports whether the path has a parameter name.
func (p *Path) Has(name string) bool {
	for _, n := range p.params {
		if n == name {
			return true
		}
	}
	return false
}

// Shape is the path with every parameter as "{}": two routes of the same
// method and shape would match the same requests.
func (p *Path) Shape() string { return p.format(func(string) string { return "{}" }) }

// Split splits an escaped request path ("/users/a%2Fb") into its decoded
// segments; ok is false when a segment does not decode. "" and "/" have
// no segment.
func Split(escaped string) (segs []string, ok bool) {
	escaped = strings.TrimPrefix(escaped, "/")
	if escaped == "" {
		return nil, true
	}
	segs = strings.Split(escaped, "/")
	for i, s := range segs {
		d, err := url.PathUnescape(s)
		if err != nil {
			return nil, false
		}
		segs[i] = d
	}
	return segs, true
}

// Match matches the segments of a request path (Split): the parameters'
// values in the order of Params, or ok false. A parameter never matches
// an empty segment.
func (p *Path) Match(segs []string) (values []string, ok bool) {
	if len(segs) != len(p.segs) {
		return nil, false
	}
	for i, s := range p.segs {
		switch {
		case s.param && segs[i] != "":
			values = append(values, segs[i])
		case s.param || s.text != segs[i]:
			return nil, false
		}
	}
	return values, true
}

// Compare orders paths so that, of two that match a request, the more
// specific comes first: at the first segment where one is literal and
// the other a parameter, the literal wins ("/users/me" before
// "/users/{id}"); then the shorter path.
func (p *Path) Compare(q *Path) int {
	for i := range min(len(p.segs), len(q.segs)) {
		if p.segs[i].param != q.segs[i].param {
			if p.segs[i].param {
				return 1
			}
			return -1
		}
	}
	return len(p.segs) - len(q.segs)
}

// OpenAPI returns the path as an OpenAPI path template: literal segments
// percent-encoded, parameters as "{name}".
func (p *Path) OpenAPI() string {
	return p.format(func(name string) string { return "{" + name + "}" })
}

// format writes the path with literal segments percent-encoded and each
// parameter as param makes it.
func (p *Path) format(param func(name string) string) string {
	if len(p.segs) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range p.segs {
		b.WriteByte('/')
		if s.param {
			b.WriteString(param(s.text))
		} else {
			b.WriteString(url.PathEscape(s.text))
		}
	}
	return b.String()
}
