package config

import (
	"slices"
	"strconv"
	"strings"
)

// FieldError is one problem in a configuration, at its JSON path, such as
// "workers[0].transports[1].endpoint.port". Path is "" for a problem with the
// document as a whole (a syntax error).
type FieldError struct {
	Path string
	Msg  string

	// A syntax error's place: the file (when Loader.Load read it), the
	// line and the column, each from 1 (Column 0 when the parser gives
	// only the line, as YAML's does; Line 0 when it gives neither); and
	// the Excerpt, the line at fault, with a second line holding a caret
	// under the column when it is known.
	File         string
	Line, Column int
	Excerpt      string
}

// Error returns "path: message"; for a syntax error "file:line:column:
// message" (or "config: line L, column C: message" without a file), the
// excerpt aside.
func (e *FieldError) Error() string {
	switch {
	case e.Path != "":
		return e.Path + ": " + e.Msg
	case e.Line > 0 && e.File != "":
		return e.File + ":" + e.position(":") + ": " + e.Msg
	case e.Line > 0:
		return "config: line " + e.position(", column ") + ": " + e.Msg
	}
	return "config: " + e.Msg
}

// position is the line, then sep and the column when it is known.
func (e *FieldError) position(sep string) string {
	s := strconv.Itoa(e.Line)
	if e.Column > 0 {
		s += sep + strconv.Itoa(e.Column)
	}
	return s
}

// ChildPath returns the JSON path of member key of the object at path,
// written as FieldError paths are: "paths.ws", or `paths["/"]` for a key
// that is not a plain name. Package node names its errors with it, so that
// load and start errors spell paths alike.
func ChildPath(path, key string) string { return childPath(path, key) }

// Errors is every problem found in a configuration, sorted by path. Parse and
// Load return it as their error; use errors.As to get at the list.
type Errors []*FieldError

// Error lists the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Warning is a key that was accepted but has no effect in Junction (an
// option that only makes sense for Crossbar's Python workers, say), or a
// doubtful reference, at its JSON path.
type Warning struct {
	Path string
	Msg  string
}

// String returns "path: message".
func (w Warning) String() string { return w.Path + ": " + w.Msg }

// Sort orders es by JSON path as Validate does: array indexes compare
// numerically, and problems at the same path keep their order. Package
// node sorts the errors it finds when building a node with it.
func (es Errors) Sort() { sortErrors(es) }

// sortErrors orders es by path (array indexes numerically), keeping the
// order of problems reported at the same path.
func sortErrors(es Errors) {
	slices.SortStableFunc(es, func(a, b *FieldError) int { return comparePaths(a.Path, b.Path) })
}

func sortWarnings(ws []Warning) {
	slices.SortStableFunc(ws, func(a, b Warning) int { return comparePaths(a.Path, b.Path) })
}

func comparePaths(a, b string) int {
	switch {
	case lessPath(a, b):
		return -1
	case lessPath(b, a):
		return 1
	}
	return 0
}

// lessPath compares two JSON paths, comparing runs of digits as numbers so
// that workers[2] comes before workers[10].
func lessPath(a, b string) bool {
	for a != "" && b != "" {
		na, ra := leadingDigits(a)
		nb, rb := leadingDigits(b)
		if na != "" && nb != "" {
			if na != nb {
				if len(na) != len(nb) {
					return len(na) < len(nb)
				}
				return na < nb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// leadingDigits splits s into its leading run of digits (without leading
// zeros, so that lengths compare like values) and the rest.
func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return "", s
	}
	d := strings.TrimLeft(s[:i], "0")
	if d == "" {
		d = "0"
	}
	return d, s[i:]
}
