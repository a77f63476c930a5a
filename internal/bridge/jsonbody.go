package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
)

// maxDepth bounds the nesting of a request body, as the WAMP codecs do, so
// that anything accepted can be sent on to any peer.
const maxDepth = 1000

var errTooDeep = errors.New("bridge: JSON nested too deep")

// decodeObject decodes a body that must be one JSON object. Numbers become
// int64 when integral and in range, uint64 above, float64 otherwise, like
// the WAMP JSON codec, so values reach callees as if sent by a WAMP client.
func decodeObject(body []byte) (map[string]any, error) {
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
	if err := normalizeDict(obj, 1); err != nil {
		return nil, &Error{Status: 400, Text: textInvalidJSON, Cause: err}
	}
	return obj, nil
}

func normalize(v any, depth int) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return number(x)
	case map[string]any:
		return x, normalizeDict(x, depth+1)
	case []any:
		return x, normalizeList(x, depth+1)
	}
	return v, nil
}

func normalizeDict(d map[string]any, depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	for k, v := range d {
		n, err := normalize(v, depth)
		if err != nil {
			return err
		}
		d[k] = n
	}
	return nil
}

func normalizeList(l []any, depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	for i, v := range l {
		n, err := normalize(v, depth)
		if err != nil {
			return err
		}
		l[i] = n
	}
	return nil
}

// number converts a JSON number; one beyond float64's range is an error.
func number(n json.Number) (any, error) {
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
