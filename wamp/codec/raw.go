package codec

import (
	"bytes"
	"math"

	"github.com/junction-wamp/junction/wamp"
)

// decodeRawMessage decodes a message keeping its payload raw: its
// Arguments and ArgumentsKw elements are validated as the decoder reads
// them (every check of a full decode, without building values) and copied
// out of b. A payload that cannot pass raw (an element of the wrong kind, a
// value that decoding normalises) is decoded in full, as by f.decode.
func (f *format) decodeRawMessage(b []byte) (wamp.Message, error) {
	l, rp, err := f.decodeRaw(b)
	switch {
	case err != nil:
		return nil, err
	case rp.n == 0:
		return wamp.Decode(l)
	case rp.bad:
		return f.decodeMessage(b)
	}
	raw := wamp.NewRaw(f.ser, bytes.Clone(b[rp.start:rp.stop]), rp.n, payloadDecoder{f})
	return wamp.DecodeRaw(l, raw)
}

// decodeMessage decodes a message in full: values for its payload.
func (f *format) decodeMessage(b []byte) (wamp.Message, error) {
	l, err := f.decode(b, fromType)
	if err != nil {
		return nil, err
	}
	return wamp.Decode(l)
}

// payloadDecoder decodes the raw payloads of a format.
type payloadDecoder struct{ f *format }

var _ wamp.PayloadDecoder = payloadDecoder{}

// DecodePayload decodes the n elements in b as a message's payload.
func (p payloadDecoder) DecodePayload(b []byte, n int) (wamp.List, wamp.Object, error) {
	var elems [2]any
	l := elems[:min(n, 2)]
	var err error
	switch p.f {
	case JSON:
		err = decodeJSONElements(b, l)
	case Msgpack:
		err = decodeMsgpackElements(b, l)
	case CBOR:
		err = decodeCBORElements(b, l)
	default:
		var framed []any
		if framed, err = p.f.decode(frame(p.f.name, b, n), 0); err == nil && len(framed) != n {
			err = decodeError(p.f.name, "payload is not %d elements", n)
		}
		copy(l, framed)
	}
	if err != nil {
		return nil, nil, err
	}
	args, ok := l[0].([]any)
	if n < 1 || n > 2 || !ok {
		return nil, nil, decodeError(p.f.name, "payload is not %d elements, a list first", n)
	}
	if n == 1 {
		return args, nil, nil
	}
	kwargs, ok := l[1].(wamp.Object)
	if !ok {
		return nil, nil, decodeError(p.f.name, "payload keyword arguments are not a dictionary")
	}
	return args, kwargs, nil
}

// decodeJSONRaw parses a JSON message array, keeping its payload raw.
func decodeJSONRaw(b []byte) ([]any, rawPayload, error) {
	d := jsonDecoder{b: b, binary: true, stack: make([]any, 0, 16),
		payloadState: newPayloadState(fromType), rawPayload: rawPayload{raw: true}}
	d.space()
	if d.i >= len(b) || b[d.i] != '[' {
		return nil, rawPayload{}, decodeError("json", "message is not an array")
	}
	v := d.value(1)
	l, err := finish(&d, v)
	return l, d.rawPayload, err
}

// decodeMsgpackRaw parses a MessagePack message array, keeping its payload
// raw.
func decodeMsgpackRaw(b []byte) ([]any, rawPayload, error) {
	r := &reader{name: "msgpack", b: b, payloadState: newPayloadState(fromType), rawPayload: rawPayload{raw: true}}
	if len(b) == 0 || !(b[0]&0xf0 == 0x90 || b[0] == 0xdc || b[0] == 0xdd) {
		return nil, rawPayload{}, decodeError("msgpack", "message is not an array")
	}
	v := msgpackValue(r, 1)
	l, err := r.done(v)
	return l, r.rawPayload, err
}

// decodeCBORRaw parses a CBOR message array, keeping its payload raw: the
// elements before the payload are decoded, those of the payload walked with
// the validator (cborNext). A message it cannot walk simply (an array head
// longer than one byte, a value the validator refuses or that may not pass
// unchanged) is marked bad: decoded in full.
func decodeCBORRaw(b []byte) ([]any, rawPayload, error) {
	if len(b) == 0 || b[0]>>5 != majorArray || b[0]&0x1f >= 24 {
		l, err := decodeCBORMessage(b, fromType)
		return l, rawPayload{}, err
	}
	count, at := int(b[0]&0x1f), 1
	from := math.MaxInt
	switch { // the message type: an unsigned integer below 256
	case count == 0 || at >= len(b):
	case b[at] < 24:
		from = payloadFrom(int64(b[at]))
	case b[at] == 24 && at+1 < len(b):
		from = payloadFrom(int64(b[at+1]))
	}
	if count <= from {
		l, err := decodeCBORMessage(b, fromType)
		return l, rawPayload{}, err
	}
	for range from {
		n, ok, _ := cborNext(b[at:])
		if !ok {
			return nil, rawPayload{bad: true, n: 1}, nil
		}
		at += n
	}
	rp := rawPayload{raw: true, start: at}
	for i := from; i < count; i++ {
		n, ok, passable := cborNext(b[at:])
		rp.rawElement(at, true, cborKind(b, at))
		if !ok || !passable {
			rp.bad = true
			return nil, rp, nil
		}
		at += n
	}
	if at != len(b) {
		rp.bad = true
		return nil, rp, nil
	}
	rp.stop = at
	head := append([]byte{majorArray<<5 | byte(from)}, b[1:rp.start]...)
	l, err := decodeCBORMessage(head, fromType)
	return l, rp, err
}

// cborKind is the kind of the value at b[i]: 'l' an array, 'd' a map, 0
// another or none.
func cborKind(b []byte, i int) byte {
	if i < len(b) {
		switch b[i] >> 5 {
		case majorArray:
			return 'l'
		case majorMap:
			return 'd'
		}
	}
	return 0
}

// decodeJSONElements decodes n payload elements (at level 2, separated by
// a comma) without copying them into an array first.
func decodeJSONElements(b []byte, l []any) error {
	d := jsonDecoder{b: b, binary: true, stack: make([]any, 0, 16), payloadState: newPayloadState(0)}
	for i := range l {
		d.space()
		if i > 0 {
			if d.i >= len(b) || b[d.i] != ',' {
				d.fail("expected ','")
				break
			}
			d.i++
			d.space()
		}
		l[i] = d.value(2)
	}
	return d.end()
}

// decodeMsgpackElements decodes n payload elements (at level 2), one after
// the other.
func decodeMsgpackElements(b []byte, l []any) error {
	r := &reader{name: "msgpack", b: b, payloadState: newPayloadState(0)}
	for i := range l {
		l[i] = msgpackValue(r, 2)
	}
	if r.err == nil && r.i != len(b) {
		r.fail("trailing data")
	}
	return r.err
}

// decodeCBORElements decodes n payload elements (at level 2), one after
// the other.
func decodeCBORElements(b []byte, l []any) error {
	d := cborDecoder{cborScanner: cborScanner{b: b}, payloadState: newPayloadState(0)}
	for i := range l {
		l[i] = d.value(2)
	}
	if d.ok() && d.i != len(b) {
		d.fail("trailing data")
	}
	if !d.ok() {
		return decodeError("cbor", "offset %d: %s", d.at, d.bad)
	}
	return nil
}

// eager is a codec that decodes every payload in full.
type eager struct{ *format }

// Eager returns c decoding every message's payload at once, for a client:
// a client reads every payload it receives, so keeping it raw would only
// add a copy and a second pass. Encoding is c's. The codecs of a server,
// which forwards payloads, keep them raw (see Codec.Decode).
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func Eager(c Codec) Codec {
	switch f := c.(type) {
	case *format:
		return eager{f}
	case eager:
		return f
	}
	return c
}

// Decode decodes b with its payload as values.
func (e eager) Decode(b []byte) (wamp.Message, error) { return e.decodeMessage(b) }
