package config

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// decoder walks a generic tree (see parseTree) into the typed Config,
// recording every problem and warning with its path. It is used by one
// goroutine.
type decoder struct {
	env   func(string) (string, bool)
	errs  Errors
	warns []Warning
}

func (d *decoder) errorf(path, format string, args ...any) {
	d.errs = append(d.errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) warnf(path, format string, args ...any) {
	d.warns = append(d.warns, Warning{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// object is one JSON object being decoded. Each getter marks its key as
// known; done reports the keys nobody asked for.
type object struct {
	d     *decoder
	path  string
	m     map[string]any
	known []string
}

// object starts decoding v as an object, or reports that it is not one.
func (d *decoder) object(path string, v any) (*object, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		d.errorf(path, "must be an object, not %s", kind(v))
		return nil, false
	}
	return &object{d: d, path: path, m: m}, true
}

// at returns the path of key k of the object.
func (o *object) at(k string) string { return childPath(o.path, k) }

// get returns the raw value of key k; a JSON null counts as absent.
func (o *object) get(k string) (any, bool) {
	o.known = append(o.known, k)
	v, ok := o.m[k]
	return v, ok && v != nil
}

// child starts decoding the object at key k: false when k is absent (or
// null), or not an object (reported).
func (o *object) child(k string) (*object, bool) {
	v, ok := o.get(k)
	if !ok {
		return nil, false
	}
	return o.d.object(o.at(k), v)
}

// reqChild is child for a required key: its absence is an error.
func (o *object) reqChild(k string) (*object, bool) {
	if _, ok := o.get(k); !ok {
		o.required(k)
		return nil, false
	}
	return o.child(k)
}

// has reports whether key k is present (and not null), without marking it.
func (o *object) has(k string) bool { return o.m[k] != nil }

// done reports every key of the object that no getter asked for.
func (o *object) done() { o.finish(false) }

// doneListing is done for a small object of a few keys, such as a
// component's "extra": an unknown key that is not close to a known one
// gets the list of the known ones.
func (o *object) doneListing() { o.finish(true) }

func (o *object) finish(list bool) {
	for _, k := range sortedKeys(o.m) {
		if slices.Contains(o.known, k) {
			continue
		}
		msg := "unknown key"
		if s := suggest(k, o.known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		} else if list {
			msg += " (known: " + strings.Join(slices.Compact(slices.Sorted(slices.Values(o.known))), ", ") + ")"
		}
		o.d.errorf(o.at(k), "%s", msg)
	}
}

// skip marks every key known: used when the object's type is unknown, so
// that its keys cannot be checked.
func (o *object) skip() {
	for k := range o.m {
		o.known = append(o.known, k)
	}
}

// required reports a missing key k.
func (o *object) required(k string) {
	o.d.errorf(o.at(k), "required")
}

// unsupported accepts key k and reports it as an error when present.
func (o *object) unsupported(k, why string) {
	if _, ok := o.get(k); ok {
		o.d.errorf(o.at(k), "not supported%s", why)
	}
}

// ignored accepts key k and warns when it is present.
func (o *object) ignored(k, why string) {
	if _, ok := o.get(k); ok {
		o.d.warnf(o.at(k), "ignored%s", why)
	}
}

// ignoredIf warns that key k is ignored when it is present and warn is
// true: used for a value that asks for something Junction does not do,
// while the value that matches what it does passes silently.
func (o *object) ignoredIf(warn bool, k, why string) {
	if warn && o.has(k) {
		o.d.warnf(o.at(k), "ignored%s", why)
	}
}

// str returns the string at key k, or def when absent.
func (o *object) str(k, def string) string {
	v, ok := o.get(k)
	if !ok {
		return def
	}
	s, _ := o.d.str(o.at(k), v)
	return s
}

// reqStr returns the string at key k, reporting it when absent.
func (o *object) reqStr(k string) string {
	if !o.has(k) {
		o.get(k)
		o.required(k)
		return ""
	}
	return o.str(k, "")
}

// validStr is str for a value that valid must accept: msg, which formats
// the value with %q, reports one it refuses. A value that is not a string
// is reported once, as such.
func (o *object) validStr(k, def string, valid func(string) bool, msg string) string {
	n := len(o.d.errs)
	s := o.str(k, def)
	if len(o.d.errs) == n && !valid(s) {
		o.d.errorf(o.at(k), msg, s)
	}
	return s
}

// reqValidStr is validStr for a required key.
func (o *object) reqValidStr(k string, valid func(string) bool, msg string) string {
	if !o.has(k) {
		return o.reqStr(k) // reported as required
	}
	return o.validStr(k, "", valid, msg)
}

// boolean returns the boolean at key k, or def when absent.
func (o *object) boolean(k string, def bool) bool {
	v, ok := o.get(k)
	if !ok {
		return def
	}
	return o.d.boolean(o.at(k), v, def)
}

// integer returns the integer at key k, or def when absent, reporting a
// value outside [lo, hi].
func (o *object) integer(k string, def, lo, hi int64) int64 {
	v, ok := o.get(k)
	if !ok {
		return def
	}
	n, ok := o.d.integer(o.at(k), v)
	if !ok {
		return def
	}
	if n < lo || n > hi {
		o.d.errorf(o.at(k), "%s", rangeMsg(n, lo, hi))
		return def
	}
	return n
}

// zeroIsNone is integer for a size of 0 or more whose 0 in the file
// means no bound: that 0 is warned about (warning says what it lets
// clients do) and returned as none, since in the typed Config 0 means the
// default.
func (o *object) zeroIsNone(k string, def, none int64, warning string) int64 {
	n := o.integer(k, def, 0, maxInt)
	if n == 0 {
		o.d.warnf(o.at(k), "%s", warning)
		return none
	}
	return n
}

// list calls fn for each element of the array at key k. It reports whether
// the key was present.
func (o *object) list(k string, fn func(path string, v any)) bool {
	v, ok := o.get(k)
	if !ok {
		return false
	}
	o.d.list(o.at(k), v, fn)
	return true
}

// strList returns the array of strings at key k (nil when absent).
func (o *object) strList(k string) []string {
	var out []string
	o.list(k, func(p string, v any) {
		if s, ok := o.d.str(p, v); ok {
			out = append(out, s)
		}
	})
	return out
}

// each calls fn for each member of the object at key k, in key order. It
// reports whether the key was present.
func (o *object) each(k string, fn func(path, key string, v any)) bool {
	v, ok := o.get(k)
	if !ok {
		return false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		o.d.errorf(o.at(k), "must be an object, not %s", kind(v))
		return true
	}
	for _, key := range sortedKeys(m) {
		fn(childPath(o.at(k), key), key, m[key])
	}
	return true
}

// str decodes a string, substituting ${NAME}.
func (d *decoder) str(path string, v any) (string, bool) {
	v, _, ok := d.resolveTyped(path, v)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		d.errorf(path, "must be a string, not %s", kind(v))
	}
	return s, ok
}

// boolean decodes a boolean (or a ${NAME} that holds "true" or "false").
func (d *decoder) boolean(path string, v any, def bool) bool {
	v, fromEnv, ok := d.resolveTyped(path, v)
	if !ok {
		return def
	}
	if s, ok := v.(string); ok && fromEnv {
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	b, ok := v.(bool)
	if !ok {
		d.errorf(path, "must be a boolean, not %s", kind(v))
		return def
	}
	return b
}

// integer decodes an integer (or a ${NAME} that holds one).
func (d *decoder) integer(path string, v any) (int64, bool) {
	text, ok := d.numberText(path, v, "an integer")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		d.errorf(path, "must be an integer, not %q", text)
		return 0, false
	}
	return n, true
}

// number decodes a finite number (or a ${NAME} that holds one).
func (d *decoder) number(path string, v any) (float64, bool) {
	text, ok := d.numberText(path, v, "a number")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		d.errorf(path, "must be a number, not %q", text)
		return 0, false
	}
	return f, true
}

// numberText returns the text of a JSON number, or of a ${NAME} (which may
// hold one), reporting any other value as not being what (such as "an
// integer").
func (d *decoder) numberText(path string, v any, what string) (string, bool) {
	v, fromEnv, ok := d.resolveTyped(path, v)
	if !ok {
		return "", false
	}
	switch v := v.(type) {
	case json.Number:
		return string(v), true
	case string:
		if fromEnv {
			return strings.TrimSpace(v), true
		}
		d.errorf(path, "must be %s, not a string", what)
	default:
		d.errorf(path, "must be %s, not %s", what, kind(v))
	}
	return "", false
}

// list calls fn for each element of an array.
func (d *decoder) list(path string, v any, fn func(path string, v any)) {
	a, ok := v.([]any)
	if !ok {
		d.errorf(path, "must be an array, not %s", kind(v))
		return
	}
	for i, e := range a {
		fn(path+"["+strconv.Itoa(i)+"]", e)
	}
}

func rangeMsg(n, lo, hi int64) string {
	switch {
	case hi == maxInt:
		return fmt.Sprintf("must be >= %d, not %d", lo, n)
	case lo == minInt:
		return fmt.Sprintf("must be <= %d, not %d", hi, n)
	}
	return fmt.Sprintf("must be in %d..%d, not %d", lo, hi, n)
}

const (
	maxInt = int64(^uint64(0) >> 1)
	minInt = -maxInt - 1
)

// kind names a tree value's JSON type for messages.
func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func sortedKeys(m map[string]any) []string { return sortedKeysOf(m) }

// childPath returns the path of member key of the object at path: a
// ".key" suffix, or `["key"]` when the key is not a plain name.
func childPath(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '$') {
			return false
		}
	}
	return true
}
