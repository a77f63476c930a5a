package wamp

import (
	"errors"
	"reflect"
	"testing"
)

// listWriter is a Writer that builds the generic list a codec would decode.
type listWriter struct {
	out   []any
	count int
}

func (w *listWriter) Array(n int)     { w.count = n; w.out = make([]any, 0, n) }
func (w *listWriter) Uint(v uint64)   { w.out = append(w.out, v) }
func (w *listWriter) String(s string) { w.out = append(w.out, s) }
func (w *listWriter) Dict(d Dict) {
	if d == nil {
		d = Dict{}
	}
	w.out = append(w.out, d)
}
func (w *listWriter) Object(o Object) {
	if o == nil {
		o = Object{}
	}
	w.out = append(w.out, o)
}
func (w *listWriter) Raw(r *Raw) {
	if r.IsPassthru() {
		w.out = append(w.out, r.Bytes())
		return
	}
	args, kwargs, _ := r.Values()
	w.List(args)
	if r.Len() == 2 {
		w.Object(kwargs)
	}
}
func (w *listWriter) List(l List) {
	if l == nil {
		l = List{}
	}
	w.out = append(w.out, l)
}

func toList(t *testing.T, m Message) []any {
	t.Helper()
	var w listWriter
	Encode(m, &w)
	if len(w.out) != w.count {
		t.Fatalf("%T: Array(%d) but %d elements written", m, w.count, len(w.out))
	}
	return w.out
}

var d = Dict{"k": "v"}

func everyMessage() []Message {
	return []Message{
		&Hello{Realm: "realm1", Details: d},
		&Welcome{Session: 7, Details: d},
		&Abort{Details: d, Reason: ErrNoSuchRealm},
		&Challenge{AuthMethod: "wampcra", Extra: d},
		&Authenticate{Signature: "sig", Extra: d},
		&Goodbye{Details: d, Reason: ErrCloseNormal},
		&Error{RequestType: TypeCall, Request: 3, Details: d, Error: ErrNoSuchProcedure},
		&Error{RequestType: TypeCall, Request: 3, Details: d, Error: "app.err", Args: List{"a"}, Kwargs: ObjectOf(Dict{"x": int64(1)})},
		&Publish{Request: 1, Options: d, Topic: "t"},
		&Publish{Request: 1, Options: d, Topic: "t", Args: List{int64(1)}},
		&Publish{Request: 1, Options: d, Topic: "t", Kwargs: ObjectOf(Dict{"a": "b"})},
		&Published{Request: 1, Publication: 2},
		&Subscribe{Request: 1, Options: d, Topic: "t"},
		&Subscribed{Request: 1, Subscription: 2},
		&Unsubscribe{Request: 1, Subscription: 2},
		&Unsubscribed{Request: 1},
		&Unsubscribed{Details: Dict{"reason": "revoked"}},
		&Event{Subscription: 1, Publication: 2, Details: d, Args: List{"x"}, Kwargs: ObjectOf(Dict{"y": true})},
		&Call{Request: 1, Options: d, Procedure: "p", Args: List{int64(1), int64(2)}},
		&Cancel{Request: 1, Options: d},
		&Result{Request: 1, Details: d, Args: List{int64(3)}},
		&Register{Request: 1, Options: d, Procedure: "p"},
		&Registered{Request: 1, Registration: 2},
		&Unregister{Request: 1, Registration: 2},
		&Unregistered{Request: 1},
		&Invocation{Request: 1, Registration: 2, Details: d, Kwargs: ObjectOf(Dict{"a": nil})},
		&Interrupt{Request: 1, Options: d},
		&Yield{Request: 1, Options: d},
		&Publish{Request: 1, Options: d, Topic: "t", Raw: NewPassthru([]byte{1, 2})},
		&Event{Subscription: 1, Publication: 2, Details: d, Raw: NewPassthru([]byte{})},
		&Call{Request: 1, Options: d, Procedure: "p", Raw: NewPassthru([]byte("x"))},
		&Invocation{Request: 1, Registration: 2, Details: d, Raw: NewPassthru([]byte("x"))},
		&Yield{Request: 1, Options: d, Raw: NewPassthru([]byte("y"))},
		&Result{Request: 1, Details: d, Raw: NewPassthru([]byte("y"))},
		&Error{RequestType: TypeCall, Request: 3, Details: d, Error: "app.err", Raw: NewPassthru([]byte("z"))},
	}
}

// normalise turns an expected message's kwargs-only payload into the
// [] + kwargs form that the wire carries.
func normalise(m Message) Message {
	v := reflect.ValueOf(m).Elem()
	a, k := v.FieldByName("Args"), v.FieldByName("Kwargs")
	if a.IsValid() && k.IsValid() && a.Len() == 0 && k.Len() > 0 {
		a.Set(reflect.ValueOf(List{}))
	}
	return m
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, m := range everyMessage() {
		t.Run(m.Type().String(), func(t *testing.T) {
			got, err := Decode(toList(t, m))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if want := normalise(m); !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

func TestEncodeOmitsEmptyPayload(t *testing.T) {
	l := toList(t, &Event{Subscription: 1, Publication: 2, Args: List{}, Kwargs: ObjectOf(Dict{})})
	if len(l) != 4 {
		t.Fatalf("EVENT without payload has %d elements, want 4: %v", len(l), l)
	}
	l = toList(t, &Event{Subscription: 1, Publication: 2, Kwargs: ObjectOf(Dict{"a": 1})})
	if len(l) != 6 || len(l[4].(List)) != 0 {
		t.Fatalf("EVENT with kwargs only = %v, want [] before kwargs", l)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []any
	}{
		{"empty", []any{}},
		{"type not int", []any{"1", "realm", Dict{}}},
		{"unknown type", []any{uint64(99)}},
		{"negative type", []any{int64(-1)}},
		{"too short", []any{uint64(TypeHello), "realm"}},
		{"too long", []any{uint64(TypeSubscribe), uint64(1), Dict{}, "t", List{}}},
		{"realm not string", []any{uint64(TypeHello), uint64(1), Dict{}}},
		{"details not dict", []any{uint64(TypeHello), "r", List{}}},
		{"id zero", []any{uint64(TypeCall), uint64(0), Dict{}, "p"}},
		{"id too big", []any{uint64(TypeCall), uint64(MaxID + 1), Dict{}, "p"}},
		{"id fractional", []any{uint64(TypeCall), 1.5, Dict{}, "p"}},
		{"id negative", []any{uint64(TypeCall), int64(-3), Dict{}, "p"}},
		{"args not list", []any{uint64(TypeCall), uint64(1), Dict{}, "p", Dict{}}},
		{"kwargs not dict", []any{uint64(TypeCall), uint64(1), Dict{}, "p", List{}, List{}}},
		{"args a string", []any{uint64(TypeCall), uint64(1), Dict{}, "p", "payload"}},
		{"kwargs after passthru", []any{uint64(TypeCall), uint64(1), Dict{}, "p", []byte{1}, Object{}}},
		{"passthru in an ERROR with kwargs", []any{uint64(TypeError), uint64(TypeCall), uint64(1), Dict{}, "e", []byte{1}, Object{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode(tt.in)
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("Decode(%v) = %v, %v; want an ErrProtocol", tt.in, m, err)
			}
		})
	}
}

// TestPassthruPayload: a binary in the Arguments position is a passthru
// payload, which Values refuses to read as arguments.
func TestPassthruPayload(t *testing.T) {
	m, err := Decode([]any{uint64(TypePublish), uint64(1), Dict{"enc_algo": "mqtt"}, "t", []byte(nil)})
	if err != nil {
		t.Fatal(err)
	}
	p := PayloadOf(m)
	if b := p.Passthru(); b == nil || len(b) != 0 || p.Args != nil || !p.Raw.IsPassthru() || p.Raw.Fresh() != p.Raw {
		t.Fatalf("payload of an empty binary = %#v, want an empty passthru payload", p)
	}
	if d, err := Decoded(m); d != m || err != nil {
		t.Fatalf("Decoded = %v, %v; want the message itself", d, err)
	}
	if _, _, err := Values(m); !errors.Is(err, ErrPassthru) {
		t.Fatalf("Values = %v, want ErrPassthru", err)
	}
	if l := toList(t, m); len(l) != 5 {
		t.Fatalf("encoded as %v, want 5 elements", l)
	}
}

func TestDecodeAcceptsIntegerForms(t *testing.T) {
	for _, id := range []any{int64(5), uint64(5), 5, float64(5), int32(5), uint8(5)} {
		m, err := Decode([]any{int64(TypeCall), id, Dict{}, "p"})
		if err != nil || m.(*Call).Request != 5 {
			t.Errorf("Decode with ID %T: %v, %v", id, m, err)
		}
	}
}

func TestAsInt(t *testing.T) {
	tests := []struct {
		in   any
		want int64
		ok   bool
	}{
		{int64(-4), -4, true}, {uint64(9), 9, true}, {ID(12), 12, true}, {3.0, 3, true}, {2.5, 0, false},
		{"1", 0, false}, {uint64(1 << 63), 0, false}, {nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := AsInt(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("AsInt(%v) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRequestError(t *testing.T) {
	e := Errorf(ErrNoSuchProcedure, "no callee for %q", "p")
	if e.Error() != `wamp.error.no_such_procedure: no callee for "p"` {
		t.Fatalf("Error() = %q", e.Error())
	}
	var target error = &RequestError{URI: ErrNoSuchProcedure}
	if !errors.Is(e, target) || errors.Is(e, &RequestError{URI: ErrCanceled}) {
		t.Fatal("errors.Is must match on the URI")
	}
	msg := ErrorFor(TypeCall, 9, e)
	if msg.Request != 9 || msg.RequestType != TypeCall || msg.Details == nil || msg.Error != ErrNoSuchProcedure {
		t.Fatalf("ErrorFor = %#v", msg)
	}
}

func TestSharedEncodesOnce(t *testing.T) {
	s := NewShared(&Event{Subscription: 1, Publication: 2})
	calls := 0
	enc := func(Message) ([]byte, error) { calls++; return []byte("x"), nil }
	for i := 0; i < 3; i++ {
		b, err := s.Encoded(SerializerJSON, enc)
		if err != nil || string(b) != "x" {
			t.Fatalf("Encoded = %q, %v", b, err)
		}
	}
	s.Encoded(SerializerCBOR, enc)
	if calls != 2 {
		t.Fatalf("encode called %d times, want once per serializer (2)", calls)
	}
	if Unwrap(s) != s.Message || Unwrap(s.Message) != s.Message {
		t.Fatal("Unwrap")
	}
	if s.Type() != TypeEvent || TypeEvent.String() != "EVENT" || MessageType(99).String() != "UNKNOWN" {
		t.Fatal("Type/String")
	}
}
