// Package codec holds the WAMP serializers: JSON, MessagePack, CBOR and
// UBJSON, in plain and ".batched" WebSocket subprotocol variants.
//
// The layout of every message lives in wamp.Encode and wamp.Decode; a codec
// only turns values into bytes and back. Decoded values use one generic
// domain whatever the format: nil, bool, int64 (uint64 only above
// math.MaxInt64), float64, string, []byte, []any, map[string]any for the
// dictionaries the router reads (options, details) and wamp.Object for
// those of a payload (the Arguments and ArgumentsKw elements and all they
// hold), in received order; a key repeated on the wire keeps its last
// value at the place of its first.
//
// Payloads pass through. Decode in JSON, MessagePack and CBOR keeps a
// message's payload as received: a wamp.Raw with a copy of its bytes, which
// the decoder has checked with its own code (the validator accepts exactly
// what a full decode does: fuzzed) without building values. Encode in the
// same format writes those bytes unchanged; another format decodes them
// once (wamp.Raw.Values) and encodes the values. A payload holding a value
// that decoding normalises (a MessagePack extension, a CBOR tag, undefined,
// an integer below math.MinInt64, a repeated CBOR key) is decoded in full
// instead, so that every receiver gets the normalised value. UBJSON always
// decodes. Read a decoded message's payload with wamp.Values.
//
// Encoding accepts those types plus every Go integer and float type,
// []string, map[string]string, wamp.ID and wamp.URI. Any other value (a
// user's struct in call arguments) is converted by a JSON round trip:
// encoding/json marshals it and the JSON decoder of this package turns the
// result into generic values, so that structs with json tags work with every
// serializer. Values that still cannot be encoded (channels, functions,
// non-finite floats in JSON, strings that are not UTF-8, cycles) give an
// error wrapping ErrEncode.
//
// Formats: JSON is ours (no reflection; binaries as "\u0000"+Base64, the
// WAMP rule). MessagePack is ours too: the library's DecodeBytes and Skip
// allocate a claimed length before checking the input, its DecodeInterface
// has no depth limit and fails on extension types, which must decode as nil
// here. CBOR is ours (RFC 8949): it decodes exactly what fxamacker/cbor,
// which it replaced and which its tests keep as the reference, accepted:
// text keys only (null and undefined keys read as ""), undefined as nil,
// unknown tags as their content, date/time tags as RFC 3339 text, bignums
// as integers when they fit int64 or uint64 and floats otherwise, floats of
// every width as float64; other simple values are an error. cborValidate
// checks a payload element without decoding it, for pass-through. UBJSON is
// ours, as py-ubjson writes it.
// Decoders reject input nested deeper than 1000 levels, trailing bytes, and
// lengths past the end of the input before allocating anything.
//
// All codecs are safe for concurrent use.
//
// # Stability
//
// Junction is before v1 (see package wamp). The parts meant to stay are
// the Codec interface, the four codecs (JSON, Msgpack, CBOR, UBJSON),
// Lookup, Subprotocols and ErrEncode. The functions whose doc says "Lower
// level" (batch framing, payloads passed between processes, plain JSON,
// lone values, eager decoding) serve Junction's transports, router and
// bridge, and change when they need to.
package codec

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/junction-wamp/junction/wamp"
)

// Codec encodes and decodes WAMP messages in one serialization format.
type Codec interface {
	Name() string                // "json", "msgpack", "cbor", "ubjson"
	Subprotocol() string         // "wamp.2.json", ... (non-batched)
	Serializer() wamp.Serializer // wamp.SerializerJSON, ...
	RawSocketID() byte           // RawSocket serializer id: json 1, msgpack 2, cbor 3, ubjson 4
	Binary() bool                // false for JSON (WebSocket text frames), true otherwise
	// Encode returns the bytes of m. A *wamp.Shared is encoded once per
	// serializer and its bytes are shared: callers must not modify the
	// returned bytes. Errors wrap ErrEncode, and are a
	// *wamp.EncodeError (wamp.ErrUnencodable) for any message but nil.
	Encode(m wamp.Message) ([]byte, error)
	// Decode parses one message. The codecs of this package keep a
	// payload raw (wamp.Raw) where it can pass through, unless made Eager.
	// Decode does not retain b. Errors wrap wamp.ErrProtocol.
	Decode(b []byte) (wamp.Message, error)
}

// ErrEncode is wrapped by every error from Encode: the message holds a value
// the format cannot represent.
var ErrEncode = errors.New("codec: cannot encode")

// maxDepth bounds the nesting of containers, the message array being level
// 1, in every decoder and encoder alike, so that what decodes re-encodes.
const maxDepth = 1000

// format implements Codec for one serialization.
type format struct {
	name   string
	ser    wamp.Serializer
	rawID  byte
	binary bool
	sink   func() sink                             // a fresh encoder
	decode func(b []byte, from int) ([]any, error) // bytes to the array, Objects from element from on
	// decodeRaw, when set, reads a message array but its payload, which it
	// validates and locates: Decode keeps payloads raw.
	decodeRaw func(b []byte) ([]any, rawPayload, error)
	pool      sync.Pool // of *encoder, reused across messages
}

// encoder is a sink with its message writer, kept in a format's pool.
type encoder struct {
	s sink
	w msgWriter
}

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 64 << 10

var _ Codec = (*format)(nil)

func (f *format) Name() string                { return f.name }
func (f *format) Subprotocol() string         { return "wamp.2." + f.name }
func (f *format) Serializer() wamp.Serializer { return f.ser }
func (f *format) RawSocketID() byte           { return f.rawID }
func (f *format) Binary() bool                { return f.binary }

func (f *format) Encode(m wamp.Message) ([]byte, error) {
	if s, ok := m.(*wamp.Shared); ok {
		return s.Encoded(f.ser, f.encodeMessage)
	}
	return f.encodeMessage(m)
}

func (f *format) encodeMessage(m wamp.Message) ([]byte, error) {
	m = wamp.Unwrap(m)
	if m == nil {
		return nil, fmt.Errorf("codec: %s: %w: nil message", f.name, ErrEncode)
	}
	e, _ := f.pool.Get().(*encoder)
	if e == nil {
		s := f.sink()
		e = &encoder{s: s, w: msgWriter{s: s, ser: f.ser}}
	}
	defer f.release(e)
	err := layout(m, &e.w)
	if err == nil {
		e.s.endList()
		err = e.s.err()
	}
	if err != nil {
		return nil, &wamp.EncodeError{Type: m.Type(), Err: &encodeFailure{format: f.name, err: err}}
	}
	return bytes.Clone(e.s.bytes()), nil
}

// encodeFailure is why a message does not encode in a format: it matches
// ErrEncode and its cause, and reads "json: non-finite float". Encode
// returns it inside a *wamp.EncodeError, which a peer's Send passes on:
// the router tells it from other Send errors (wamp.ErrUnencodable).
type encodeFailure struct {
	format string
	err    error
}

func (e *encodeFailure) Error() string   { return e.format + ": " + e.err.Error() }
func (e *encodeFailure) Unwrap() []error { return []error{ErrEncode, e.err} }

// release resets e and returns it to the pool unless its buffer grew large.
func (f *format) release(e *encoder) {
	if cap(e.s.bytes()) > maxPooled {
		return
	}
	e.s.reset()
	e.w.i = 0
	f.pool.Put(e)
}

// layout runs wamp.Encode, turning a panic into an error: wamp.Encode
// panics on a message type it does not know (a foreign implementation of
// wamp.Message) and on a nil message pointer.
func layout(m wamp.Message, w wamp.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot lay out %T: %v", m, r)
		}
	}()
	wamp.Encode(m, w)
	return nil
}

func (f *format) Decode(b []byte) (wamp.Message, error) {
	if f.decodeRaw != nil {
		return f.decodeRawMessage(b)
	}
	return f.decodeMessage(b)
}

// decodeError makes an error for bad input of format name, wrapping
// wamp.ErrProtocol.
func decodeError(name, format string, a ...any) error {
	return fmt.Errorf("codec: %s: %s: %w", name, fmt.Sprintf(format, a...), wamp.ErrProtocol)
}

// The codecs.
var (
	JSON    Codec = &format{name: "json", ser: wamp.SerializerJSON, rawID: 1, sink: newJSONSink, decode: decodeJSONMessage, decodeRaw: decodeJSONRaw}
	Msgpack Codec = &format{name: "msgpack", ser: wamp.SerializerMsgpack, rawID: 2, binary: true, sink: newMsgpackSink, decode: decodeMsgpackMessage, decodeRaw: decodeMsgpackRaw}
	CBOR    Codec = &format{name: "cbor", ser: wamp.SerializerCBOR, rawID: 3, binary: true, sink: newCBORSink, decode: decodeCBORMessage, decodeRaw: decodeCBORRaw}
	UBJSON  Codec = &format{name: "ubjson", ser: wamp.SerializerUBJSON, rawID: 4, binary: true, sink: newUBJSONSink, decode: decodeUBJSONMessage}
)
