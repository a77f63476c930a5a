package wamp

import (
	"errors"
	"fmt"
	"math"
)

// ErrProtocol is wrapped by every error from Decode: the peer sent a message
// that is not valid WAMP.
var ErrProtocol = errors.New("wamp: protocol violation")

// Writer receives a message's elements in order. Each codec implements it so
// that the layout of every message lives in one place (Encode) while the
// codec writes its own bytes without building an intermediate list.
// A Writer records its first error itself; Encode does not check.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Writer interface {
	Array(n int)     // starts the message array of n elements
	Uint(v uint64)   // a message type, an ID or a request type
	String(s string) // a URI or a string field
	Dict(d Dict)     // a dictionary; nil is written as {}
	Object(o Object) // a payload dictionary, keys in order; nil is written as {}
	Raw(r *Raw)      // a payload as received: its r.Len() elements; or a passthru payload, one binary
	List(l List)     // a list; nil is written as []
}

// Encode writes m's elements to w: [type, fields..., args?, kwargs?].
// Arguments are written only when non-empty, and an empty list is written
// before non-empty keyword arguments, as the specification requires.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func Encode(m Message, w Writer) {
	switch m := m.(type) {
	case *Hello:
		w.Array(3)
		w.Uint(uint64(TypeHello))
		w.String(string(m.Realm))
		w.Dict(m.Details)
	case *Welcome:
		head(w, TypeWelcome, 3, m.Session)
		w.Dict(m.Details)
	case *Abort:
		w.Array(3)
		w.Uint(uint64(TypeAbort))
		w.Dict(m.Details)
		w.String(string(m.Reason))
	case *Challenge:
		w.Array(3)
		w.Uint(uint64(TypeChallenge))
		w.String(m.AuthMethod)
		w.Dict(m.Extra)
	case *Authenticate:
		w.Array(3)
		w.Uint(uint64(TypeAuthenticate))
		w.String(m.Signature)
		w.Dict(m.Extra)
	case *Goodbye:
		w.Array(3)
		w.Uint(uint64(TypeGoodbye))
		w.Dict(m.Details)
		w.String(string(m.Reason))
	case *Error:
		w.Array(5 + payloadLen(m.Args, m.Kwargs, m.Raw))
		w.Uint(uint64(TypeError))
		w.Uint(uint64(m.RequestType))
		w.Uint(uint64(m.Request))
		w.Dict(m.Details)
		w.String(string(m.Error))
		payload(w, m.Args, m.Kwargs, m.Raw)
	case *Publish:
		head(w, TypePublish, 4+payloadLen(m.Args, m.Kwargs, m.Raw), m.Request)
		w.Dict(m.Options)
		w.String(string(m.Topic))
		payload(w, m.Args, m.Kwargs, m.Raw)
	case *Published:
		head(w, TypePublished, 3, m.Request)
		w.Uint(uint64(m.Publication))
	case *Subscribe:
		head(w, TypeSubscribe, 4, m.Request)
		w.Dict(m.Options)
		w.String(string(m.Topic))
	case *Subscribed:
		head(w, TypeSubscribed, 3, m.Request)
		w.Uint(uint64(m.Subscription))
	case *Unsubscribe:
		head(w, TypeUnsubscribe, 3, m.Request)
		w.Uint(uint64(m.Subscription))
	case *Unsubscribed:
		encodeRevocable(w, TypeUnsubscribed, m.Request, m.Details)
	case *Event:
		head(w, TypeEvent, 4+payloadLen(m.Args, m.Kwargs, m.Raw), m.Subscription)
		w.Uint(uint64(m.Publication))
		w.Dict(m.Details)
		payload(w, m.Args, m.Kwargs, m.Raw)
	case *Call:
		head(w, TypeCall, 4+payloadLen(m.Args, m.Kwargs, m.Raw), m.Request)
		w.Dict(m.Options)
		w.String(string(m.Procedure))
		payload(w, m.Args, m.Kwargs, m.Raw)
	case *Cancel:
		head(w, TypeCancel, 3, m.Request)
		w.Dict(m.Options)
	case *Result:
		head(w, TypeResult, 3+payloadLen(m.Args, m.Kwargs, m.Raw), m.Request)
		w.Dict(m.Details)
		payload(w, m.Args, m.Kwargs, m.Raw)
	case *Register:
		head(w, TypeRegister, 4, m.Request)
		w.Dict(m.Options)
		w.String(string(m.Procedure))
	case *Registered:
		head(w, TypeRegistered, 3, m.Request)
		w.Uint(uint64(m.Registration))
	case *Unregister:
		head(w, TypeUnregister, 3, m.Request)
		w.Uint(uint64(m.Registration))
	case *Unregistered:
		encodeRevocable(w, TypeUnregistered, m.Request, m.Details)
	case *Invocation:
		head(w, TypeInvocation, 4+payloadLen(m.Args, m.Kwargs, m.Raw), m.Request)
		w.Uint(uint64(m.Registration))
		w.Dict(m.Details)
		payload(w, m.Args, m.Kwargs, m.Raw)
	case *Interrupt:
		head(w, TypeInterrupt, 3, m.Request)
		w.Dict(m.Options)
	case *Yield:
		head(w, TypeYield, 3+payloadLen(m.Args, m.Kwargs, m.Raw), m.Request)
		w.Dict(m.Options)
		payload(w, m.Args, m.Kwargs, m.Raw)
	default:
		panic(fmt.Sprintf("wamp: Encode of unknown message %T", m))
	}
}

func head(w Writer, t MessageType, n int, id ID) {
	w.Array(n)
	w.Uint(uint64(t))
	w.Uint(uint64(id))
}

func encodeRevocable(w Writer, t MessageType, req ID, details Dict) {
	if len(details) == 0 {
		head(w, t, 2, req)
		return
	}
	head(w, t, 3, req)
	w.Dict(details)
}

func payloadLen(args List, kwargs Object, raw *Raw) int {
	switch {
	case raw != nil:
		return raw.Len()
	case len(kwargs) > 0:
		return 2
	case len(args) > 0:
		return 1
	}
	return 0
}

func payload(w Writer, args List, kwargs Object, raw *Raw) {
	if raw != nil {
		w.Raw(raw)
		return
	}
	switch payloadLen(args, kwargs, nil) {
	case 2:
		w.List(args)
		w.Object(kwargs)
	case 1:
		w.List(args)
	}
}

// Decode turns a decoded message array into a Message. It checks the element
// count and the type of every field; integers may arrive as any Go integer
// type or as an integral float64. Every error wraps ErrProtocol.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func Decode(l []any) (Message, error) { return DecodeRaw(l, nil) }

// DecodeRaw is Decode of a message whose payload elements are raw, not in
// l: l ends at the message type's PayloadIndex, and the message keeps raw
// as its payload. A nil raw is Decode.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func DecodeRaw(l []any, raw *Raw) (Message, error) {
	if len(l) == 0 {
		return nil, fmt.Errorf("%w: empty message", ErrProtocol)
	}
	t, ok := toUint(l[0])
	if !ok {
		return nil, fmt.Errorf("%w: message type %v is not an integer", ErrProtocol, l[0])
	}
	dec, ok := decoders[MessageType(t)]
	if !ok {
		return nil, fmt.Errorf("%w: unknown message type %d", ErrProtocol, t)
	}
	d := decoder{l: l, t: MessageType(t)}
	n := len(l)
	if raw != nil {
		if len(l) != PayloadIndex(d.t) {
			return nil, fmt.Errorf("%w: %s: raw payload at element %d", ErrProtocol, d.t, len(l))
		}
		n += raw.Len()
	}
	if n < dec.min || n > dec.max {
		return nil, fmt.Errorf("%w: %s has %d elements, want %d to %d", ErrProtocol, d.t, n, dec.min, dec.max)
	}
	m, err := dec.fn(d)
	if err != nil {
		return nil, err
	}
	if raw != nil {
		setRaw(m, raw)
	}
	return m, nil
}

// setRaw gives m, a message with a payload, the raw payload r.
func setRaw(m Message, r *Raw) {
	if f, ok := m.(payloadFields); ok {
		_, _, raw := f.fields()
		*raw = r
	}
}

type decodeFunc struct {
	min, max int
	// fn takes the decoder by value: through a function value, a pointer
	// would make every decoder escape to the heap.
	fn func(d decoder) (Message, error)
}

var decoders = map[MessageType]decodeFunc{
	TypeHello: {3, 3, func(d decoder) (Message, error) {
		m := &Hello{Realm: d.uri(1), Details: d.dict(2)}
		return m, d.err
	}},
	TypeWelcome: {3, 3, func(d decoder) (Message, error) {
		m := &Welcome{Session: d.id(1), Details: d.dict(2)}
		return m, d.err
	}},
	TypeAbort: {3, 5, func(d decoder) (Message, error) {
		m := &Abort{Details: d.dict(1), Reason: d.uri(2)}
		return m, d.err
	}},
	TypeChallenge: {3, 3, func(d decoder) (Message, error) {
		m := &Challenge{AuthMethod: d.str(1), Extra: d.dict(2)}
		return m, d.err
	}},
	TypeAuthenticate: {3, 3, func(d decoder) (Message, error) {
		m := &Authenticate{Signature: d.str(1), Extra: d.dict(2)}
		return m, d.err
	}},
	TypeGoodbye: {3, 5, func(d decoder) (Message, error) {
		m := &Goodbye{Details: d.dict(1), Reason: d.uri(2)}
		return m, d.err
	}},
	TypeError: {5, 7, func(d decoder) (Message, error) {
		m := &Error{RequestType: MessageType(d.id(1)), Request: d.id(2), Details: d.dict(3),
			Error: d.uri(4)}
		d.payload(m, 5)
		return m, d.err
	}},
	TypePublish: {4, 6, func(d decoder) (Message, error) {
		m := &Publish{Request: d.id(1), Options: d.dict(2), Topic: d.uri(3)}
		d.payload(m, 4)
		return m, d.err
	}},
	TypePublished: {3, 3, func(d decoder) (Message, error) {
		m := &Published{Request: d.id(1), Publication: d.id(2)}
		return m, d.err
	}},
	TypeSubscribe: {4, 4, func(d decoder) (Message, error) {
		m := &Subscribe{Request: d.id(1), Options: d.dict(2), Topic: d.uri(3)}
		return m, d.err
	}},
	TypeSubscribed: {3, 3, func(d decoder) (Message, error) {
		m := &Subscribed{Request: d.id(1), Subscription: d.id(2)}
		return m, d.err
	}},
	TypeUnsubscribe: {3, 3, func(d decoder) (Message, error) {
		m := &Unsubscribe{Request: d.id(1), Subscription: d.id(2)}
		return m, d.err
	}},
	TypeUnsubscribed: {2, 3, func(d decoder) (Message, error) {
		m := &Unsubscribed{Request: d.id0(1), Details: d.optDict(2)}
		return m, d.err
	}},
	TypeEvent: {4, 6, func(d decoder) (Message, error) {
		m := &Event{Subscription: d.id(1), Publication: d.id(2), Details: d.dict(3)}
		d.payload(m, 4)
		return m, d.err
	}},
	TypeCall: {4, 6, func(d decoder) (Message, error) {
		m := &Call{Request: d.id(1), Options: d.dict(2), Procedure: d.uri(3)}
		d.payload(m, 4)
		return m, d.err
	}},
	TypeCancel: {3, 3, func(d decoder) (Message, error) {
		m := &Cancel{Request: d.id(1), Options: d.dict(2)}
		return m, d.err
	}},
	TypeResult: {3, 5, func(d decoder) (Message, error) {
		m := &Result{Request: d.id(1), Details: d.dict(2)}
		d.payload(m, 3)
		return m, d.err
	}},
	TypeRegister: {4, 4, func(d decoder) (Message, error) {
		m := &Register{Request: d.id(1), Options: d.dict(2), Procedure: d.uri(3)}
		return m, d.err
	}},
	TypeRegistered: {3, 3, func(d decoder) (Message, error) {
		m := &Registered{Request: d.id(1), Registration: d.id(2)}
		return m, d.err
	}},
	TypeUnregister: {3, 3, func(d decoder) (Message, error) {
		m := &Unregister{Request: d.id(1), Registration: d.id(2)}
		return m, d.err
	}},
	TypeUnregistered: {2, 3, func(d decoder) (Message, error) {
		m := &Unregistered{Request: d.id0(1), Details: d.optDict(2)}
		return m, d.err
	}},
	TypeInvocation: {4, 6, func(d decoder) (Message, error) {
		m := &Invocation{Request: d.id(1), Registration: d.id(2), Details: d.dict(3)}
		d.payload(m, 4)
		return m, d.err
	}},
	TypeInterrupt: {3, 3, func(d decoder) (Message, error) {
		m := &Interrupt{Request: d.id(1), Options: d.dict(2)}
		return m, d.err
	}},
	TypeYield: {3, 5, func(d decoder) (Message, error) {
		m := &Yield{Request: d.id(1), Options: d.dict(2)}
		d.payload(m, 3)
		return m, d.err
	}},
}

// decoder reads typed fields from a message array, keeping the first error.
type decoder struct {
	l   []any
	t   MessageType
	err error
}

func (d *decoder) fail(i int, want string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s element %d is %T, want %s", ErrProtocol, d.t, i, d.l[i], want)
	}
}

// id reads an ID in [1, 2^53]; WELCOME's and UNSUBSCRIBED's 0 is read by id0.
func (d *decoder) id(i int) ID {
	v := d.id0(i)
	if v == 0 && d.err == nil {
		d.err = fmt.Errorf("%w: %s element %d: ID 0", ErrProtocol, d.t, i)
	}
	return v
}

func (d *decoder) id0(i int) ID {
	v, ok := toUint(d.l[i])
	if !ok || v > MaxID {
		d.fail(i, "an ID in [0, 2^53]")
	}
	return ID(v)
}

func (d *decoder) str(i int) string {
	s, ok := d.l[i].(string)
	if !ok {
		d.fail(i, "a string")
	}
	return s
}

func (d *decoder) uri(i int) URI { return URI(d.str(i)) }

func (d *decoder) dict(i int) Dict {
	m, ok := d.l[i].(map[string]any)
	if !ok {
		d.fail(i, "a dictionary")
	}
	return m
}

func (d *decoder) optDict(i int) Dict {
	if i >= len(d.l) {
		return nil
	}
	return d.dict(i)
}

func (d *decoder) args(i int) List {
	if i >= len(d.l) {
		return nil
	}
	l, ok := d.l[i].([]any)
	if !ok {
		d.fail(i, "a list")
	}
	return l
}

// payload reads the payload elements, from element i on, into m's
// fields: Arguments and ArgumentsKw, or a passthru payload, a binary in
// the Arguments position, which no ArgumentsKw may follow.
func (d *decoder) payload(m payloadFields, i int) {
	args, kwargs, raw := m.fields()
	if i < len(d.l) {
		if b, ok := d.l[i].([]byte); ok {
			if i+1 < len(d.l) && d.err == nil {
				d.err = fmt.Errorf("%w: %s: ArgumentsKw after a passthru payload (binary Arguments)", ErrProtocol, d.t)
			}
			*raw = NewPassthru(b)
			return
		}
	}
	*args, *kwargs = d.args(i), d.kwargs(i+1)
}

// kwargs reads ArgumentsKw, which the codecs decode as an Object.
func (d *decoder) kwargs(i int) Object {
	if i >= len(d.l) {
		return nil
	}
	o, ok := d.l[i].(Object)
	if !ok {
		d.fail(i, "a dictionary")
	}
	return o
}

// toUint converts any Go integer, or an integral non-negative float, to uint64.
func toUint(v any) (uint64, bool) {
	switch n := v.(type) {
	case uint64:
		return n, true
	case ID:
		return uint64(n), true
	case int64:
		return uint64(n), n >= 0
	case int:
		return uint64(n), n >= 0
	case uint32:
		return uint64(n), true
	case int32:
		return uint64(n), n >= 0
	case uint16:
		return uint64(n), true
	case int16:
		return uint64(n), n >= 0
	case uint8:
		return uint64(n), true
	case int8:
		return uint64(n), n >= 0
	case uint:
		return uint64(n), true
	case float64:
		return floatToUint(n)
	case float32:
		return floatToUint(float64(n))
	}
	return 0, false
}

func floatToUint(f float64) (uint64, bool) {
	if f < 0 || f != math.Trunc(f) || f > math.MaxUint64/2 {
		return 0, false
	}
	return uint64(f), true
}

// AsInt reads an option value (a timeout, a count) that a codec may have
// decoded as any integer type or as an integral float.
func AsInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<62 {
			return 0, false
		}
		return int64(n), true
	}
	u, ok := toUint(v)
	if !ok || u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}
