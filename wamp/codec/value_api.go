package codec

import (
	"bytes"
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// EncodeValue returns v, a value as messages carry them (nil, bool,
// numbers, string, []byte, wamp.List, wamp.Object, wamp.Dict), alone in c's format: a
// payload that is not a WAMP message (an MQTT native payload). Errors wrap
// ErrEncode.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func EncodeValue(c Codec, v any) ([]byte, error) {
	f, ok := formatOf(c)
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

// DecodeValue parses b, one value alone in c's format (the inverse of
// EncodeValue), as a payload value: its dictionaries are wamp.Objects.
// Errors wrap wamp.ErrProtocol.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func DecodeValue(c Codec, b []byte) (any, error) {
	f, ok := formatOf(c)
	if !ok {
		return nil, fmt.Errorf("codec: %w: foreign codec %T", wamp.ErrProtocol, c)
	}
	arr, err := f.decode(frame(f.name, b, 1), 0)
	if err != nil {
		return nil, err
	}
	if len(arr) != 1 {
		return nil, decodeError(f.name, "not one value")
	}
	return arr[0], nil
}

// frame returns b, n values encoded in the format name one after the
// other, in an array of n elements (n < 16).
func frame(name string, b []byte, n int) []byte {
	framed := make([]byte, 0, len(b)+2)
	switch name {
	case "json", "ubjson":
		return append(append(append(framed, '['), b...), ']')
	case "msgpack":
		return append(append(framed, 0x90|byte(n)), b...)
	}
	return append(append(framed, 0x80|byte(n)), b...) // cbor
}

// formatOf returns the format behind c, a codec of this package.
func formatOf(c Codec) (*format, bool) {
	switch f := c.(type) {
	case *format:
		return f, true
	case eager:
		return f.format, true
	}
	return nil, false
}
