package codec

import (
	"fmt"

	"github.com/junction-wamp/junction/wamp"
)

// PayloadBytes returns p as bytes for another process, which makes it a
// payload again with Payload: a raw payload's elements as received, in
// their serializer; values, and a passthru payload's binary, encoded with
// MessagePack. n is the number of elements, 0 for an empty payload (b is
// then nil). Errors wrap ErrEncode.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func PayloadBytes(p wamp.Payload) (ser wamp.Serializer, b []byte, n int, err error) {
	f := Msgpack.(*format)
	if b := p.Passthru(); b != nil {
		s := f.sink()
		s.bin(b)
		return f.ser, append([]byte(nil), s.bytes()...), 1, nil
	}
	if p.Raw != nil {
		return p.Raw.Serializer(), p.Raw.Bytes(), p.Raw.Len(), nil
	}
	switch {
	case len(p.Kwargs) > 0:
		n = 2
	case len(p.Args) > 0:
		n = 1
	default:
		return f.ser, nil, 0, nil
	}
	s := f.sink()
	args := p.Args
	if args == nil {
		args = wamp.List{}
	}
	writeValue(s, args, 2)
	if n == 2 {
		writeValue(s, p.Kwargs, 2)
	}
	if err := s.err(); err != nil {
		return f.ser, nil, 0, fmt.Errorf("codec: %s: %w: %v", f.name, ErrEncode, err)
	}
	return f.ser, append([]byte(nil), s.bytes()...), n, nil
}

// eventHead is the start of an EVENT [36, 1, 1, {}, ...] of 4+n elements
// in each format that keeps payloads raw: Payload decodes the elements as
// that message's, with every check of Decode.
var eventHead = map[wamp.Serializer]func(n int) []byte{
	wamp.SerializerJSON:    func(int) []byte { return []byte(`[36,1,1,{},`) },
	wamp.SerializerMsgpack: func(n int) []byte { return []byte{0x90 | byte(4+n), 0x24, 1, 1, 0x80} },
	wamp.SerializerCBOR:    func(n int) []byte { return []byte{0x80 | byte(4+n), 0x18, 0x24, 1, 1, 0xa0} },
}

// Payload makes a payload of b, n (1 or 2) elements encoded with ser
// (JSON, MessagePack or CBOR), as Decode makes that of a message carrying
// them: raw when they can pass through, values otherwise; n 0 is the empty
// payload. b is not retained. Bytes that Decode would refuse, or that are
// not n elements, are an error wrapping wamp.ErrProtocol.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func Payload(ser wamp.Serializer, b []byte, n int) (wamp.Payload, error) {
	if n == 0 && len(b) == 0 {
		return wamp.Payload{}, nil
	}
	head, ok := eventHead[ser]
	if !ok || n < 1 || n > 2 {
		return wamp.Payload{}, fmt.Errorf("codec: %w: payload of %d elements in serializer %d", wamp.ErrProtocol, n, ser)
	}
	f := formatBySerializer(ser)
	msg := append(head(n), b...)
	if ser == wamp.SerializerJSON {
		msg = append(msg, ']')
	}
	m, err := f.decodeRawMessage(msg)
	if err != nil {
		return wamp.Payload{}, err
	}
	p := wamp.PayloadOf(m)
	if got := payloadCount(p); got != n {
		return wamp.Payload{}, fmt.Errorf("codec: %s: %w: payload of %d elements, not %d", f.name, wamp.ErrProtocol, got, n)
	}
	return p, nil
}

// payloadCount is the number of elements of p as a message carries it.
func payloadCount(p wamp.Payload) int {
	switch {
	case p.Raw != nil:
		return p.Raw.Len()
	case p.Kwargs != nil:
		return 2
	case p.Args != nil:
		return 1
	}
	return 0
}

// formatBySerializer returns the format of ser, one of the package's.
func formatBySerializer(ser wamp.Serializer) *format {
	for _, c := range preference {
		if c.Serializer() == ser {
			return c.(*format)
		}
	}
	return nil
}
