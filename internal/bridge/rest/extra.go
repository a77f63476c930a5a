package rest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// extraReader reads the members of a component's "extra" object; each
// error names its field path relative to extra ("subscriptions[1].url").
// The first error is kept, later reads are no-ops.
type extraReader struct {
	m    map[string]any
	path string // prefix of this object's members: "" or "subscriptions[1]."
	err  error
}

func (r *extraReader) fail(key, format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s%s: %s", r.path, key, fmt.Sprintf(format, a...))
	}
}

// known refuses members not in keys.
func (r *extraReader) known(keys ...string) {
	for _, k := range sortedKeys(r.m) {
		if !slices.Contains(keys, k) {
			r.fail(k, "unknown key (known: %s)", strings.Join(keys, ", "))
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// str reads a string member; required says a missing one is an error.
func (r *extraReader) str(key string, required bool) (string, bool) {
	v, ok := r.m[key]
	if !ok {
		if required {
			r.fail(key, "required")
		}
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		r.fail(key, "must be a string")
	}
	return s, ok
}

func (r *extraReader) boolean(key string) bool {
	v, ok := r.m[key]
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		r.fail(key, "must be a boolean")
	}
	return b
}

// integer reads an integer member in lo..hi.
func (r *extraReader) integer(key string, lo, hi int64) (int64, bool) {
	v, ok := r.m[key]
	if !ok {
		return 0, false
	}
	n, ok := asInteger(v)
	if !ok {
		r.fail(key, "must be an integer")
		return 0, false
	}
	if n < lo || n > hi {
		r.fail(key, "must be in %d..%d, not %d", lo, hi, n)
		return 0, false
	}
	return n, true
}

// number reads a finite number member in lo..hi.
func (r *extraReader) number(key string, lo, hi float64) (float64, bool) {
	v, ok := r.m[key]
	if !ok {
		return 0, false
	}
	f, ok := asFloat(v)
	if !ok || math.IsNaN(f) {
		r.fail(key, "must be a number")
		return 0, false
	}
	if f < lo || f > hi {
		r.fail(key, "must be in %g..%g, not %g", lo, hi, f)
		return 0, false
	}
	return f, true
}

// asInteger accepts the number types a decoded config or WAMP message
// holds: json.Number, Go integers and integral floats.
func asInteger(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		return int64(n), n <= math.MaxInt64
	case float64:
		return int64(n), n == math.Trunc(n) && math.Abs(n) <= 1<<53
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	case float64:
		return n, true
	}
	i, ok := asInteger(v)
	return float64(i), ok
}
