package bridge

// The Caller's and Publisher's former encoding/json implementation, kept
// as the reference the codec-based one must match exactly.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/junction-wamp/junction/wamp"
)

var utf8Valid = utf8.Valid

// refAnswerJSON is the former writeJSON's encoding of an answer body.
func refAnswerJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return strings.TrimSuffix(buf.String(), "\n"), err
}

// maxDepth bounds the nesting of a request body, as the WAMP codecs do, so
// that anything accepted can be sent on to any peer.
const refMaxDepth = 1000

var errRefTooDeep = errors.New("bridge: JSON nested too deep")

// decodeObject decodes a body that must be one JSON object. Numbers become
// int64 when integral and in range, uint64 above, float64 otherwise, like
// the WAMP JSON codec, so values reach callees as if sent by a WAMP client.
func refDecodeObject(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &Error{Status: 400, Text: textInvalidJSON, Cause: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest(textInvalidJSON)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest(textNotDict)
	}
	if err := refNormalizeDict(obj, 1); err != nil {
		return nil, &Error{Status: 400, Text: textInvalidJSON, Cause: err}
	}
	return obj, nil
}

func refNormalize(v any, depth int) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return refNumber(x)
	case map[string]any:
		return x, refNormalizeDict(x, depth+1)
	case []any:
		return x, refNormalizeList(x, depth+1)
	}
	return v, nil
}

func refNormalizeDict(d map[string]any, depth int) error {
	if depth > refMaxDepth {
		return errRefTooDeep
	}
	for k, v := range d {
		n, err := refNormalize(v, depth)
		if err != nil {
			return err
		}
		d[k] = n
	}
	return nil
}

func refNormalizeList(l []any, depth int) error {
	if depth > refMaxDepth {
		return errRefTooDeep
	}
	for i, v := range l {
		n, err := refNormalize(v, depth)
		if err != nil {
			return err
		}
		l[i] = n
	}
	return nil
}

// number converts a JSON number; one beyond float64's range is an error.
func refNumber(n json.Number) (any, error) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, nil
	}
	if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
		return u, nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, errors.New("bridge: number out of range")
	}
	return f, nil
}

// sameDecode fails unless decodeObject and the reference agree on body:
// the same object, or errors with the same status and text.
func sameDecode(t *testing.T, body []byte) {
	t.Helper()
	got, err := decodeObject(body)
	want, refErr := refDecodeObject(body)
	if (err == nil) != (refErr == nil) {
		t.Fatalf("%.60q: got %v, reference %v", body, err, refErr)
	}
	if err != nil {
		e, r := err.(*Error), refErr.(*Error)
		if e.Status != r.Status || e.Text != r.Text {
			t.Fatalf("%.60q: got %d %q, reference %d %q", body, e.Status, e.Text, r.Status, r.Text)
		}
		return
	}
	if !reflect.DeepEqual(plainValue(got), want) {
		t.Fatalf("%.60q: got %#v\nreference %#v", body, got, want)
	}
}

func TestDecodeObjectMatchesReference(t *testing.T) {
	deep := func(n int, open, close string) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	for _, body := range []string{
		``, ` `, `{}`, ` {"a":1} `, `{"a":1}{}`, `{"a":1} x`, `{"a":1`, `{"a":01}`, `{"a":-0,"b":1.0,"c":1e2,"d":-1.5e-7}`,
		`{"n":[9223372036854775807,9223372036854775808,18446744073709551615,18446744073709551616,-9223372036854775809]}`,
		`{"n":1e999}`, `{"n":-1e999}`, `{"n":1e-999}`, `{"a":1,"a":{"b":2}}`, `{"s":"\u0000AAEC/w=="}`,
		`{"s":"\ud83d\ude00 \ud800 \udc00\ud800\udc00 \ud800\u0041 \/"}`, `{"s":"\u00zz"}`, `{"s":"` + "\x01" + `"}`,
		`{"a":tru}`, `{"a":nul}`, `{"a":true,}`, `{,}`, `{"a" 1}`, `{1:2}`,
		`[1]`, `null`, `"x"`, `1`, `1 2`, `[1] x`, `[1`, ` [ ] `, `1e999`, `tru`, "\ufeff{}",
		`{"a":` + deep(999, "[", "]") + `}`, `{"a":` + deep(1000, "[", "]") + `}`, deep(1001, "[", "]"),
		deep(10001, "[", "]"), `{"a":` + deep(10001, "[", "]") + `}`, `{"a":` + strings.Repeat(`{"b":`, 999) + `1` + strings.Repeat("}", 1000),
	} {
		sameDecode(t, []byte(body))
	}
}

// FuzzDecodeObject checks the codec-based body decoder against the former
// encoding/json one, on UTF-8 bodies (the pipeline refuses others first).
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"procedure":"com.example.p","args":[1,2.5,"x",null,true,-0,1e5],"kwargs":{"a":{}},"options":{"timeout":5}}`))
	f.Add([]byte(`{"args":[18446744073709551616,"\u0000AA==","\ud800"],"a":1,"a":[]}`))
	f.Add([]byte(`[[[{"a":1}]]]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8Valid(body) {
			return
		}
		sameDecode(t, body)
	})
}

// sameAnswer fails unless v's appendJSON writes what encoding/json does.
func sameAnswer(t *testing.T, v jsonAnswer) {
	t.Helper()
	want, refErr := refAnswerJSON(v)
	got, err := v.appendJSON(nil)
	if (err == nil) != (refErr == nil) || err == nil && string(got) != want {
		t.Fatalf("%#v:\ngot       %s (%v)\nreference %s (%v)", v, got, err, want, refErr)
	}
}

func TestAnswersMatchReference(t *testing.T) {
	values := []any{nil, "<&>\u2028\b\x01\xff", 1.0, -0.5, 1e21, 1e-7, uint64(1 << 63), []byte{1, 2}, math.NaN()}
	lists := []wamp.List{nil, {}, {nil}, values[:8], {values[8]}, {map[string]any{"b": 1, "a": []any{}}}}
	dicts := []wamp.Dict{nil, {}, {"z": 1, "a": "x", "<": nil}, {"n": math.Inf(1)}, {"m": map[string]any(nil)}}
	for _, l := range lists {
		for _, d := range dicts {
			sameAnswer(t, &resultBody{Args: l, Kwargs: wamp.ObjectOf(d)})
			sameAnswer(t, &errorBody{Error: "com.example.<oops>\u2029", Args: l, Kwargs: wamp.ObjectOf(d)})
		}
	}
	for _, id := range []wamp.ID{0, 1, 1 << 53, math.MaxUint64} {
		sameAnswer(t, publishedBody{id})
	}
}

// FuzzAnswers checks the answers built from a body's args and kwargs
// against encoding/json.
func FuzzAnswers(f *testing.F) {
	f.Add([]byte(`{"args":[1,2.5,"<x>",null,true,-0,1e21,1e-7,{"b":1,"a":2}],"kwargs":{"k":"\u2028","a":[]}}`))
	f.Add([]byte(`{"args":[],"kwargs":{"\u0000":"\ud800"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		obj, err := decodeObject(body)
		if err != nil {
			return
		}
		a, _ := obj.Get("args")
		k, _ := obj.Get("kwargs")
		args, _ := a.([]any)
		kwargs, _ := k.(wamp.Object)
		sameAnswer(t, &resultBody{Args: args, Kwargs: kwargs})
		sameAnswer(t, &errorBody{Error: "x", Args: args, Kwargs: kwargs})
	})
}

// plainValue returns v with every Object, at any depth, turned into a
// map, as the reference decoder (encoding/json) gives them.
func plainValue(v any) any {
	switch x := v.(type) {
	case wamp.Object:
		return plainValue(x.Dict())
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plainValue(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = plainValue(e)
		}
		return l
	}
	return v
}
