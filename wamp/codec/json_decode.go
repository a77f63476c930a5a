package codec

import (
	"encoding/base64"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/junction-wamp/junction/wamp"
)

// jsonDecoder parses JSON into generic values without reflection. It is
// used by one goroutine.
type jsonDecoder struct {
	b      []byte
	i      int
	binary bool // strings starting with NUL are Base64 binaries
	err    error
	stack  []any        // elements of the lists being read, copied out at the end
	fields []wamp.Field // fields of the Objects being read, copied out at the end
	payloadState
	rawPayload
}

// decodeJSONMessage parses one JSON message array; its dictionaries from
// element from on (fromType: the message type's payload) are Objects.
func decodeJSONMessage(b []byte, from int) ([]any, error) {
	d := jsonDecoder{b: b, binary: true, stack: make([]any, 0, 16), payloadState: newPayloadState(from)}
	d.space()
	if d.i >= len(b) || b[d.i] != '[' {
		return nil, decodeError("json", "message is not an array")
	}
	v := d.value(1)
	return finish(&d, v)
}

// DecodePlainJSON parses one plain JSON value (RFC 8259), as the JSON codec
// parses payload elements: objects become wamp.Objects with their keys in
// order (a repeated key's last value at the place of its first), arrays []any,
// numbers int64 when integral and in range, uint64 above math.MaxInt64,
// float64 otherwise (an error beyond float64's range), strings must be
// valid UTF-8 and nesting is limited to 1000 levels. Unlike WAMP JSON, no
// string is turned into binary: "\u0000..." stays a string. Safe for
// concurrent use.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func DecodePlainJSON(b []byte) (any, error) {
	d := plainDecoders.Get().(*jsonDecoder)
	defer putPlainDecoder(d)
	*d = jsonDecoder{b: b, stack: d.stack, fields: d.fields, payloadState: newPayloadState(0)}
	d.space()
	v := d.value(1)
	if err := d.end(); err != nil {
		return nil, err
	}
	return v, nil
}

// plainDecoders keeps DecodePlainJSON's decoders for their scratch
// stacks, which would otherwise be allocated, and grown, per decode.
// Every list and object is copied off the stacks when it ends, so a
// decoder put back holds nothing of what it decoded (putPlainDecoder
// clears what an error left on them).
var plainDecoders = sync.Pool{New: func() any { return &jsonDecoder{stack: make([]any, 0, 8)} }}

// maxPooledStack bounds the scratch stacks a pooled decoder keeps.
const maxPooledStack = 1024

func putPlainDecoder(d *jsonDecoder) {
	if cap(d.stack) > maxPooledStack || cap(d.fields) > maxPooledStack {
		return
	}
	clear(d.stack)
	clear(d.fields)
	*d = jsonDecoder{stack: d.stack[:0], fields: d.fields[:0]}
	plainDecoders.Put(d)
}

func finish(d *jsonDecoder, v any) ([]any, error) {
	if err := d.end(); err != nil {
		return nil, err
	}
	l, _ := v.([]any)
	return l, nil
}

// end reports the decoding error, or trailing data after the value.
func (d *jsonDecoder) end() error {
	if d.err == nil {
		d.space()
		if d.i != len(d.b) {
			d.fail("trailing data")
		}
	}
	return d.err
}

func (d *jsonDecoder) fail(msg string) {
	if d.err == nil {
		d.err = decodeError("json", "offset %d: %s", d.i, msg)
	}
}

func (d *jsonDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value parses the value at d.i (whitespace skipped); depth is the level a
// container there would have.
func (d *jsonDecoder) value(depth int) any {
	if d.i >= len(d.b) {
		d.fail("unexpected end of input")
		return nil
	}
	switch c := d.b[d.i]; {
	case c == '"':
		return d.stringValue()
	case c == '[':
		return d.list(depth)
	case c == '{':
		return d.dict(depth)
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return d.literal()
}

func (d *jsonDecoder) literal() any {
	for _, l := range [...]struct {
		s string
		v any
	}{{"null", nil}, {"true", true}, {"false", false}} {
		if len(d.b)-d.i >= len(l.s) && string(d.b[d.i:d.i+len(l.s)]) == l.s {
			d.i += len(l.s)
			return l.v
		}
	}
	d.fail("invalid character")
	return nil
}

func (d *jsonDecoder) list(depth int) any {
	if depth > maxDepth {
		d.fail("nesting deeper than 1000")
		return nil
	}
	d.i++ // '['
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return []any{}
	}
	base := len(d.stack)
	for i := 0; d.err == nil; i++ {
		d.space()
		if depth == 1 && d.from != 0 { // a message array
			d.element(i, first(d.stack[base:]))
			d.rawElement(d.i, d.objects, jsonKind(d.b, d.i))
		}
		v := d.value(depth + 1)
		if depth == 1 && d.skip {
			d.stop = d.i
		} else if !d.skip {
			d.stack = append(d.stack, v)
		}
		if !d.more(']') {
			break
		}
	}
	if d.skip && depth > 1 {
		return nil
	}
	return popList(&d.stack, base)
}

// popList copies the elements above base off the stack into a new list,
// one allocation of the exact size.
func popList(stack *[]any, base int) []any {
	l := make([]any, len(*stack)-base)
	copy(l, (*stack)[base:])
	clear((*stack)[base:])
	*stack = (*stack)[:base]
	return l
}

// more consumes a ',' (true) or the closing byte (false) after an element.
func (d *jsonDecoder) more(end byte) bool {
	d.space()
	if d.err != nil || d.i >= len(d.b) {
		d.fail("unexpected end of input")
		return false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		return true
	case end:
		d.i++
		return false
	}
	d.fail("expected ',' or closing bracket")
	return false
}

func (d *jsonDecoder) dict(depth int) any {
	if depth > maxDepth {
		d.fail("nesting deeper than 1000")
		return nil
	}
	d.i++ // '{'
	if d.objects || d.skip {
		return d.object(depth)
	}
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m
	}
	for d.err == nil {
		d.space()
		k := d.key()
		m[k] = d.value(depth + 1)
		if !d.more('}') {
			break
		}
	}
	return m
}

// object parses a payload dictionary after its '{', keeping its keys in
// order.
func (d *jsonDecoder) object(depth int) any {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return wamp.Object{}
	}
	base := len(d.fields)
	for d.err == nil {
		d.space()
		k := d.key()
		v := d.value(depth + 1)
		if !d.skip {
			d.fields = append(d.fields, wamp.Field{Key: k, Value: v})
		}
		if !d.more('}') {
			break
		}
	}
	if d.skip {
		return nil
	}
	o := make(wamp.Object, len(d.fields)-base)
	copy(o, d.fields[base:])
	clear(d.fields[base:])
	d.fields = d.fields[:base]
	return uniqueKeys(o)
}

// jsonKind is the kind of the value at b[i]: 'l' a list, 'd' a
// dictionary, 0 another or none.
func jsonKind(b []byte, i int) byte {
	if i < len(b) {
		switch b[i] {
		case '[':
			return 'l'
		case '{':
			return 'd'
		}
	}
	return 0
}

// first returns l's first element, nil if l is empty.
func first(l []any) any {
	if len(l) == 0 {
		return nil
	}
	return l[0]
}

// key parses `"key" :` and the whitespace after it.
func (d *jsonDecoder) key() string {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		d.fail("expected a string key")
		return ""
	}
	k := d.str()
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != ':' {
		d.fail("expected ':'")
		return k
	}
	d.i++
	d.space()
	return k
}

// stringValue parses a string, applying the binary rule.
func (d *jsonDecoder) stringValue() any {
	s := d.str()
	if !d.binary || len(s) == 0 || s[0] != 0 {
		return s
	}
	b, err := base64.StdEncoding.DecodeString(s[1:])
	if err != nil {
		d.fail("binary string is not valid Base64")
		return nil
	}
	return b
}

// str parses the string starting at the quote at d.i.
func (d *jsonDecoder) str() string {
	d.i++
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			raw := d.b[start:d.i]
			d.i++
			if !utf8.Valid(raw) {
				d.fail("string is not valid UTF-8")
			}
			if d.skip {
				return "" // unescaped: it cannot start with NUL
			}
			return string(raw)
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			d.fail("control character in string")
			return ""
		}
		d.i++
	}
	d.fail("unterminated string")
	return ""
}

// escaped finishes a string that has escapes, from its first escape at d.i.
func (d *jsonDecoder) escaped(start int) string {
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) && d.err == nil {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !utf8.Valid(out) {
				d.fail("string is not valid UTF-8")
			}
			return string(out)
		case c == '\\':
			out = d.escape(out)
		case c < 0x20:
			d.fail("control character in string")
		default:
			out = append(out, c)
			d.i++
		}
	}
	d.fail("unterminated string")
	return ""
}

// escape appends the character of the escape sequence at d.i.
func (d *jsonDecoder) escape(out []byte) []byte {
	if d.i+1 >= len(d.b) {
		d.fail("unterminated string")
		return out
	}
	c := d.b[d.i+1]
	d.i += 2
	switch c {
	case '"', '\\', '/':
		return append(out, c)
	case 'b':
		return append(out, '\b')
	case 'f':
		return append(out, '\f')
	case 'n':
		return append(out, '\n')
	case 'r':
		return append(out, '\r')
	case 't':
		return append(out, '\t')
	case 'u':
		return utf8.AppendRune(out, d.unicodeEscape())
	}
	d.fail("invalid escape")
	return out
}

// unicodeEscape reads the XXXX of \uXXXX (d.i just after the 'u'), and a
// second \uXXXX for a surrogate pair; a lone surrogate becomes U+FFFD.
func (d *jsonDecoder) unicodeEscape() rune {
	r := d.hex4()
	if !utf16.IsSurrogate(r) {
		return r
	}
	if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
		save := d.i
		d.i += 2
		if r2 := utf16.DecodeRune(r, d.hex4()); r2 != utf8.RuneError {
			return r2
		}
		d.i = save
	}
	return utf8.RuneError
}

func (d *jsonDecoder) hex4() rune {
	if d.i+4 > len(d.b) {
		d.fail("short unicode escape")
		return utf8.RuneError
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			d.fail("invalid unicode escape")
			return utf8.RuneError
		}
	}
	d.i += 4
	return r
}

// number parses a JSON number: int64 if integral and in range, uint64 above
// math.MaxInt64, float64 otherwise (also for integers beyond uint64).
func (d *jsonDecoder) number() any {
	start := d.i
	integral := d.scanNumber()
	if d.err != nil {
		return nil
	}
	s := d.b[start:d.i]
	if d.skip {
		d.checkNumber(start, s, integral)
		return nil
	}
	if integral {
		if n, ok := smallInt(s); ok {
			return n
		}
		if n, err := strconv.ParseInt(string(s), 10, 64); err == nil {
			return n
		}
		if n, err := strconv.ParseUint(string(s), 10, 64); err == nil {
			return n
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		d.i = start
		d.fail("number out of range")
		return nil
	}
	return f
}

// checkNumber fails where number would: a number beyond the float64 range
// that no integer type holds.
func (d *jsonDecoder) checkNumber(start int, s []byte, integral bool) {
	if integral && len(s) <= 19 {
		return // an int64 or uint64 (or it fails like ParseFloat below: never)
	}
	if integral {
		if _, err := strconv.ParseUint(string(s), 10, 64); err == nil {
			return
		}
	}
	if _, err := strconv.ParseFloat(string(s), 64); err != nil {
		d.i = start
		d.fail("number out of range")
	}
}

// smallInt converts up to 18 digits, with an optional minus, quickly.
func smallInt(s []byte) (int64, bool) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// scanNumber moves past a number with the JSON grammar and reports whether
// it had neither fraction nor exponent.
func (d *jsonDecoder) scanNumber() bool {
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		d.fail("invalid number")
		return false
	}
	integral := true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		integral = false
		if d.digits() == 0 {
			d.fail("invalid number")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		integral = false
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			d.fail("invalid number")
		}
	}
	return integral
}

func (d *jsonDecoder) digits() int {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}
