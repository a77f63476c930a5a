package codec

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// stdJSON is the reference AppendPlainJSON must match: encoding/json's
// Encoder without HTML escaping, less the newline.
func stdJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return strings.TrimSuffix(buf.String(), "\n"), err
}

// nested returns v inside n single-element lists.
func nested(n int, v any) any {
	for range n {
		v = []any{v}
	}
	return v
}

func TestAppendPlainJSONMatchesEncodingJSON(t *testing.T) {
	type point struct{ X, Y int }
	tests := []struct {
		name string
		v    any
	}{
		{"null", nil},
		{"bools", []any{true, false}},
		{"html", "<a href='x'>&amp;</a>"},
		{"escapes", "q\" b\\ \b\f\n\r\t \x00\x01\x1f\x7f /"},
		{"invalid utf-8", "a\xffb\xc3(c\xed\xa0\x80"},
		{"separators", "x\u2028y\u2029z"},
		{"non-ascii", "é中😀"},
		{"nul prefix", "\u0000AAEC/w=="},
		{"integers", []any{int64(0), int64(-1), int64(math.MinInt64), int64(math.MaxInt64), uint64(math.MaxUint64)}},
		{"go integers", []any{1, int32(-7), uint(8), uint32(9), int8(-3), uint16(4), uintptr(5)}},
		{"floats", []any{0.0, math.Copysign(0, -1), 1.0, -2.5, 1e20, 1e21, 123456789.125, 1e-6, 1e-7, 5e-324, math.MaxFloat64, 0.1}},
		{"float32", []any{float32(0.1), float32(1e-7), float32(1e21), float32(3)}},
		{"bytes", []any{[]byte{}, []byte{0, 1, 0xff}, []byte(nil)}},
		{"nil containers", []any{[]any(nil), map[string]any(nil)}},
		{"empty containers", []any{[]any{}, map[string]any{}}},
		{"sorted keys", map[string]any{"b": 1, "a": 2, "é": 3, "A": 4, "": 5, "a\u2028": 6, "<": 7}},
		{"nested", map[string]any{"l": []any{map[string]any{"z": nil, "y": []any{1.5}}}}},
		{"wamp types", []any{wamp.ID(7), wamp.URI("com.x"), wamp.Dict{"k": wamp.List{1}}}},
		{"object in order", wamp.Object{{Key: "z", Value: "<&>"}, {Key: "a", Value: wamp.Object{{Key: "y", Value: []any{1.5}}, {Key: "b", Value: nil}}}}},
		{"nil and empty objects", []any{wamp.Object(nil), wamp.Object{}}},
		{"fallback types", []any{json.Number("12.50"), point{1, 2}, &point{3, 4}, map[string]int{"b": 1, "a": 2}, []string{"x"}, map[int]string{2: "b", 1: "a"}}},
		{"deep", nested(1005, map[string]any{"k": nested(3, 1.5)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := stdJSON(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendPlainJSON([]byte("prefix"), tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix"+want {
				t.Fatalf("got  %s\nwant prefix%s", got, want)
			}
		})
	}
}

func TestAppendPlainJSONRefuses(t *testing.T) {
	cycle := []any{nil}
	cycle[0] = cycle
	for name, v := range map[string]any{
		"nan":        math.NaN(),
		"inf":        []any{math.Inf(-1)},
		"nested nan": map[string]any{"a": []any{1, math.NaN()}},
		"float32":    float32(math.Inf(1)),
		"chan":       []any{make(chan int)},
		"func":       map[string]any{"f": func() {}},
		"cycle":      cycle,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := stdJSON(v); err == nil {
				t.Fatal("encoding/json accepts it: not a refusal case")
			}
			got, err := AppendPlainJSON([]byte("keep"), v)
			if err == nil || string(got) != "keep" {
				t.Fatalf("got %q, %v; want dst unchanged and an error", got, err)
			}
		})
	}
}

func TestDecodePlainJSON(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`"\u0000AAEC/w=="`, "\x00AAEC/w=="},
		{`{"a":"\u0000x","a":2}`, wamp.Object{{Key: "a", Value: int64(2)}}},
		{`{"z":1,"a":{"y":[],"b":2,"y":3},"z":4}`, wamp.Object{{Key: "z", Value: int64(4)}, {Key: "a", Value: wamp.Object{{Key: "y", Value: int64(3)}, {Key: "b", Value: int64(2)}}}}},
		{` [1, -0, 9223372036854775808, 18446744073709551616, 1.0, 1e2] `,
			[]any{int64(1), int64(0), uint64(1 << 63), 18446744073709551616.0, 1.0, 100.0}},
		{`"\ud83d\ude00\ud800x"`, "😀\ufffdx"},
		{`null`, nil},
		{strings.Repeat("[", 1000) + strings.Repeat("]", 1000), nested(999, []any{})},
	}
	for _, tt := range tests {
		got, err := DecodePlainJSON([]byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DecodePlainJSON(%.40q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", " ", `{"a":1} x`, `{"a":1}{}`, `[1e999]`, `"\xff"`, `{"a" 1}`, `[01]`, `tru`,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001)} {
		if v, err := DecodePlainJSON([]byte(in)); err == nil {
			t.Errorf("DecodePlainJSON(%.40q) = %#v, want an error", in, v)
		}
	}
}

// FuzzPlainJSON checks that what DecodePlainJSON accepts is valid JSON and
// that AppendPlainJSON writes it exactly as encoding/json does.
func FuzzPlainJSON(f *testing.F) {
	f.Add([]byte(`{"b":[1,-0,1.5e-7,1e21,"<&>\u2028\b"],"a":{"\u0000":null}}`))
	f.Add([]byte(`[18446744073709551615,-9223372036854775809,0.1,true,false]`))
	f.Add([]byte(`"\ud800\udc00\ud800"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodePlainJSON(b)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		want, err := stdJSON(v)
		if err != nil {
			t.Fatalf("encoding/json refuses %#v: %v", v, err)
		}
		got, err := AppendPlainJSON(nil, v)
		if err != nil || string(got) != want {
			t.Fatalf("AppendPlainJSON(%#v) = %s, %v\nencoding/json: %s", v, got, err, want)
		}
	})
}

// BenchmarkPlainJSON decodes and re-encodes a Caller body, as the HTTP
// bridge does per request.
func BenchmarkPlainJSON(b *testing.B) {
	body := []byte(`{"procedure":"com.example.echo","args":[1,"two",3.5],"kwargs":{"k":true,"b":[null]}}`)
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		v, err := DecodePlainJSON(body)
		if err != nil {
			b.Fatal(err)
		}
		if buf, err = AppendPlainJSON(buf[:0], v); err != nil {
			b.Fatal(err)
		}
	}
}
