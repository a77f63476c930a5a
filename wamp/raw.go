package wamp

import (
	"errors"
	"sync"
)

// Payload is what a message carries as arguments: values (Args, Kwargs),
// or, when Raw is set, the Arguments and ArgumentsKw elements as they were
// received, not decoded yet, or a passthru payload (Args and Kwargs are
// then nil). Read it with Values (and Passthru); copy it whole from one
// message to the next to forward it.
type Payload struct {
	Args   List
	Kwargs Object
	Raw    *Raw
}

// ErrPassthru is the error of Values for a passthru payload: it holds
// opaque bytes, not arguments.
var ErrPassthru = errors.New("wamp: payload in passthru mode (opaque bytes, no arguments)")

// Passthru returns the bytes of a passthru payload (see NewPassthru); nil
// when p is none.
func (p Payload) Passthru() []byte {
	if p.Raw == nil || !p.Raw.passthru {
		return nil
	}
	return p.Raw.b
}

// PayloadOf returns the payload of m (a Shared is looked through); the
// zero Payload for a message that carries none.
func PayloadOf(m Message) Payload {
	f, ok := Unwrap(m).(payloadFields)
	if !ok {
		return Payload{}
	}
	args, kwargs, raw := f.fields()
	return Payload{*args, *kwargs, *raw}
}

// Values returns the payload's values: Args and Kwargs, or Raw decoded
// (once, whoever asks first). The values are shared: not to be modified.
// The error, from a raw payload, wraps ErrProtocol; a passthru payload
// has no values: its error is ErrPassthru.
func (p Payload) Values() (List, Object, error) {
	if p.Raw != nil {
		return p.Raw.Values()
	}
	return p.Args, p.Kwargs, nil
}

// Fresh returns p with a Fresh Raw when it holds one, else p.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func (p Payload) Fresh() Payload {
	if p.Raw != nil {
		p.Raw = p.Raw.Fresh()
	}
	return p
}

// Values returns the arguments of m, a message that carries a payload,
// decoding them if m holds them as received: the one way to read a
// received message's arguments. See Payload.Values.
func Values(m Message) (List, Object, error) { return PayloadOf(m).Values() }

// PayloadDecoder decodes a raw payload: b holds the Arguments element and,
// when n is 2, the ArgumentsKw element, encoded as in the message.
// Implementations are safe for concurrent use.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type PayloadDecoder interface {
	DecodePayload(b []byte, n int) (List, Object, error)
}

// Raw is a payload kept as received: the bytes of its Arguments and
// ArgumentsKw elements in the serializer they came in, checked by the
// decoder to be exactly what it would accept. An encoder of the same
// serializer writes the bytes unchanged; any other decodes them (once) and
// encodes the values. Or it is a passthru payload (NewPassthru), opaque
// bytes that every encoder writes as one binary. Safe for concurrent use;
// the bytes must not be modified.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Raw struct {
	b        []byte
	n        int
	ser      Serializer
	passthru bool // b is a passthru payload, not encoded elements
	dec      PayloadDecoder

	once   sync.Once
	args   List
	kwargs Object
	err    error
}

// NewRaw makes a Raw of b, which holds n (1 or 2) payload elements
// encoded with ser, and which the Raw keeps (the caller must not reuse it).
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func NewRaw(ser Serializer, b []byte, n int, dec PayloadDecoder) *Raw {
	return &Raw{b: b, n: n, ser: ser, dec: dec}
}

// NewPassthru makes a payload in passthru mode (payload transparency) of
// b, as Crossbar.io and autobahn send it: opaque bytes that stand in the
// message's Arguments position themselves, as a binary, with no
// ArgumentsKw, described by the options enc_algo, enc_key and
// enc_serializer (OptEncAlgo). A router forwards them untouched; only the
// peers that share the encoding read them. The Raw keeps b (nil is taken
// as empty). Read it back with Payload.Passthru; Values gives ErrPassthru.
func NewPassthru(b []byte) *Raw {
	if b == nil {
		b = []byte{}
	}
	return &Raw{b: b, n: 1, passthru: true}
}

// IsPassthru reports whether r is a passthru payload (NewPassthru).
func (r *Raw) IsPassthru() bool { return r.passthru }

// Serializer is the serialization of the bytes; 0 for a passthru payload,
// which has none.
func (r *Raw) Serializer() Serializer { return r.ser }

// Bytes returns the encoded elements, as received, or a passthru
// payload's bytes; not to be modified.
func (r *Raw) Bytes() []byte { return r.b }

// Len is the number of elements: 1 (Arguments) or 2 (and ArgumentsKw).
func (r *Raw) Len() int { return r.n }

// Fresh returns a Raw of the same bytes that has decoded nothing yet: for
// a payload kept long after its message (a retained event), so that the
// values decoded for one delivery (to a peer of another serializer) go
// with that delivery and are not kept with the bytes, which may be many
// times smaller.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func (r *Raw) Fresh() *Raw {
	if r.passthru {
		return r // it decodes nothing
	}
	return NewRaw(r.ser, r.b, r.n, r.dec)
}

// Values decodes the elements, the first time only; ErrPassthru for a
// passthru payload.
func (r *Raw) Values() (List, Object, error) {
	if r.passthru {
		return nil, nil, ErrPassthru
	}
	r.once.Do(func() { r.args, r.kwargs, r.err = r.dec.DecodePayload(r.b, r.n) })
	return r.args, r.kwargs, r.err
}

// Decoded returns m with its payload as values: m itself when it holds
// none raw, else a copy of m (a Shared is looked through) whose Args and
// Kwargs are the decoded payload and Raw nil, for code that compares or
// prints whole messages (tests); code that reads a payload calls Values.
// The error wraps ErrProtocol.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func Decoded(m Message) (Message, error) {
	p := PayloadOf(m)
	if p.Raw == nil || p.Raw.passthru {
		return m, nil
	}
	args, kwargs, err := p.Raw.Values()
	if err != nil {
		return nil, err
	}
	switch m := Unwrap(m).(type) {
	case *Error:
		return withValues(m, args, kwargs), nil
	case *Publish:
		return withValues(m, args, kwargs), nil
	case *Event:
		return withValues(m, args, kwargs), nil
	case *Call:
		return withValues(m, args, kwargs), nil
	case *Result:
		return withValues(m, args, kwargs), nil
	case *Invocation:
		return withValues(m, args, kwargs), nil
	case *Yield:
		return withValues(m, args, kwargs), nil
	}
	return m, nil
}

// withValues returns a copy of m holding args and kwargs as its payload.
func withValues[T any, P interface {
	*T
	payloadFields
}](m P, args List, kwargs Object) Message {
	c := P(new(T))
	*c = *m
	a, k, r := c.fields()
	*a, *k, *r = args, kwargs, nil
	return c
}
