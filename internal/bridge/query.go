package bridge

import (
	"iter"
	"strings"
)

// query holds the first value of each query parameter.
type query map[string]string

// parseQuery parses a raw query string as Twisted's parse_qs does, which is
// what Crossbar's clients are written against (see queryItems). The first
// value of a repeated name wins. A query without items is nil.
func parseQuery(raw string) query {
	var q query // nil (no allocation) for the usual empty query
	for name, value := range queryItems(raw) {
		if q == nil {
			q = make(query, 5)
		}
		if _, seen := q[name]; !seen {
			q[name] = value
		}
	}
	return q
}

// queryItems yields the items of a raw query string in order, decoded:
// items are separated by '&' and by ';', an item without '=' is dropped,
// a blank value is kept as "", '+' means a space and a bad %-escape is
// kept as it is.
func queryItems(raw string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for raw != "" {
			var item string
			if i := strings.IndexAny(raw, "&;"); i >= 0 {
				item, raw = raw[:i], raw[i+1:]
			} else {
				item, raw = raw, ""
			}
			name, value, ok := strings.Cut(item, "=")
			if ok && !yield(unquote(name), unquote(value)) {
				return
			}
		}
	}
}

// unquote decodes '+' to a space and %XX escapes, leaving an invalid escape
// as it is (Python's unquote_plus).
func unquote(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
