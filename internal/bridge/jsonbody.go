package bridge

import (
	"encoding/json"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// decodeObject decodes a body that must be one JSON object. Numbers become
// int64 when integral and in range, uint64 above, float64 otherwise, like
// the WAMP JSON codec, so values reach callees as if sent by a WAMP client;
// nesting is limited to the codecs' 1000 levels. The body is plain JSON,
// not WAMP JSON: a string starting with "\u0000" stays a string.
func decodeObject(body []byte) (wamp.Object, error) {
	if !startsObject(body) {
		return nil, notObject(body)
	}
	v, err := codec.DecodePlainJSON(body)
	if err != nil {
		return nil, &Error{Status: 400, Text: textInvalidJSON, Cause: err}
	}
	return v.(wamp.Object), nil
}

// startsObject reports whether the first byte after JSON whitespace is '{'.
func startsObject(body []byte) bool {
	for _, c := range body {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

// notObject is the error for a body that is not an object: not a dict when
// it is some other JSON value (however deep), else invalid JSON.
func notObject(body []byte) error {
	if json.Valid(body) {
		return badRequest(textNotDict)
	}
	return badRequest(textInvalidJSON)
}
