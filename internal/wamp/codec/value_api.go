package codec

import (
	"bytes"
	"fmt"

	"github.com/junction-wamp/junction/internal/wamp"
)

// EncodeValue returns v, a value as messages carry them (nil, bool,
// numbers, string, []byte, wamp.List, wamp.Object, wamp.Dict), alone in c's format: a
// payload that is not a WAMP message (an MQTT native payload). Errors wrap
// ErrEncode.
func EncodeValue(c Codec, v any) ([]byte, error) {
	f, ok := c.(*format)
	if !ok {
		return nil, fmt.Errorf("codec: %w: foreign codec %T", ErrEncode, c)
	}
	s := f.sink()
	writeValue(s, v, 1)
	if err := s.err(); err != nil {
		return nil, fmt.Errorf("codec: %s: %w: %v", f.name, ErrEncode, err)
	}
	return bytes.Clone(s.bytes()), nil
}

// arrayOfOne is the head and tail that make one encoded value a
// one-element array, in each format.
var arrayOfOne = map[string][2]string{
	"json":    {"[", "]"},
	"msgpack": {"\x91", ""},
	"cbor":    {"\x81", ""},
	"ubjson":  {"[", "]"},
}

// DecodeValue parses b, one value alone in c's format (the inverse of
// EncodeValue), as a payload value: its dictionaries are wamp.Objects.
// Errors wrap wamp.ErrProtocol.
func DecodeValue(c Codec, b []byte) (any, error) {
	f, ok := c.(*format)
	if !ok {
		return nil, fmt.Errorf("codec: %w: foreign codec %T", wamp.ErrProtocol, c)
	}
	wrap := arrayOfOne[f.name]
	framed := make([]byte, 0, len(wrap[0])+len(b)+len(wrap[1]))
	framed = append(append(append(framed, wrap[0]...), b...), wrap[1]...)
	arr, err := f.decode(framed, 0)
	if err != nil {
		return nil, err
	}
	if len(arr) != 1 {
		return nil, decodeError(f.name, "not one value")
	}
	return arr[0], nil
}
