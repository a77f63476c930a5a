package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/junction-wamp/junction/wamp"
)

// AppendPlainJSON appends v as plain JSON (no WAMP binary rule), byte for
// byte as encoding/json's Encoder with SetEscapeHTML(false) writes it, less
// the final newline: map keys sorted, []byte as a Base64 string, nil slices
// and maps as null, floats in encoding/json's format, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped, '<', '>' and '&' left as they are. The
// generic WAMP types (and Go's integer and float types) are written
// without reflection; any other value, and containers nested deeper than
// 1000 levels, go through encoding/json. A value encoding/json refuses (a
// NaN, a channel, a cycle) is an error, and dst is then returned unchanged.
// Safe for concurrent use.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func AppendPlainJSON(dst []byte, v any) ([]byte, error) {
	b, err := appendPlain(dst, v, 0)
	if err != nil {
		return dst, err
	}
	return b, nil
}

// AppendPlainJSONList is AppendPlainJSON(dst, l) without boxing l in an
// interface value (which costs an allocation).
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func AppendPlainJSONList(dst []byte, l wamp.List) ([]byte, error) {
	b, err := appendPlainList(dst, l, 1)
	if err != nil {
		return dst, err
	}
	return b, nil
}

// AppendPlainJSONObject is AppendPlainJSON(dst, o) without boxing o in an
// interface value (which costs an allocation).
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func AppendPlainJSONObject(dst []byte, o wamp.Object) ([]byte, error) {
	b, err := appendPlainObject(dst, o, 1)
	if err != nil {
		return dst, err
	}
	return b, nil
}

// appendPlain appends v, a value at nesting level depth.
func appendPlain(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendPlainString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return appendPlainFloat(b, x, 64)
	case map[string]any:
		return appendPlainDict(b, x, depth+1)
	case wamp.Object:
		return appendPlainObject(b, x, depth+1)
	case []any:
		return appendPlainList(b, x, depth+1)
	case []byte:
		return appendPlainBytes(b, x), nil
	}
	return appendPlainScalar(b, v)
}

// appendPlainScalar appends the less common scalar types, and anything else
// through encoding/json.
func appendPlainScalar(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case float32:
		return appendPlainFloat(b, float64(x), 32)
	}
	return appendPlainFallback(b, v)
}

func appendPlainDict(b []byte, d map[string]any, depth int) ([]byte, error) {
	if d == nil {
		return append(b, "null"...), nil
	}
	if depth > maxDepth {
		return appendPlainFallback(b, d)
	}
	var small [8]string // most dicts are small: their keys stay on the stack
	keys := small[:0]
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPlainString(b, k)
		b = append(b, ':')
		if b, err = appendPlain(b, d[k], depth); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendPlainObject appends o with its keys in order; nil as {}, as its
// MarshalJSON writes it.
func appendPlainObject(b []byte, o wamp.Object, depth int) ([]byte, error) {
	if depth > maxDepth {
		return appendPlainFallback(b, o)
	}
	b = append(b, '{')
	var err error
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPlainString(b, f.Key)
		b = append(b, ':')
		if b, err = appendPlain(b, f.Value, depth); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func appendPlainList(b []byte, l []any, depth int) ([]byte, error) {
	if l == nil {
		return append(b, "null"...), nil
	}
	if depth > maxDepth {
		return appendPlainFallback(b, l)
	}
	b = append(b, '[')
	var err error
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendPlain(b, v, depth); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func appendPlainBytes(b []byte, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

// appendPlainFloat writes a float as encoding/json does (ECMAScript's
// number formatting): the shortest decimal for its size, with an exponent
// only below 1e-6 or from 1e21, written without a leading zero.
func appendPlainFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("codec: unsupported value %v", f)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 {
		if bits == 64 && (a < 1e-6 || a >= 1e21) || bits == 32 && (float32(a) < 1e-6 || float32(a) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 -> e-7
		b = b[:n-1]
	}
	return b, nil
}

// appendPlainString appends s quoted: '"', '\\' and control characters
// escaped (\b \f \n \r \t short), invalid UTF-8 as \ufffd, U+2028 and
// U+2029 escaped; everything else, HTML characters included, as it is.
func appendPlainString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = appendPlainEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendPlainEscape escapes an ASCII character as encoding/json does: \b
// and \f short too, unlike the WAMP codec's appendEscape.
func appendPlainEscape(b []byte, c byte) []byte {
	switch c {
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	return appendEscape(b, c)
}

// appendPlainFallback writes v with encoding/json itself.
func appendPlainFallback(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, fmt.Errorf("codec: value of type %T: %w", v, err)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}
