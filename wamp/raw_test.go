package wamp

import (
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

// countingDecoder decodes any payload to fixed values, counting its calls.
type countingDecoder struct {
	calls atomic.Int32
	err   error
}

func (d *countingDecoder) DecodePayload(b []byte, n int) (List, Object, error) {
	d.calls.Add(1)
	if d.err != nil {
		return nil, nil, d.err
	}
	return List{string(b)}, Object{{Key: "n", Value: n}}, nil
}

// TestRawValues: a raw payload decodes once, however many goroutines ask;
// Values and Decoded give the values, PayloadSize counts the bytes.
func TestRawValues(t *testing.T) {
	dec := &countingDecoder{}
	raw := NewRaw(SerializerJSON, []byte(`["x"],{}`), 2, dec)
	ev := &Event{Subscription: 1, Publication: 2, Details: Dict{}, Raw: raw}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if args, kwargs, err := Values(NewShared(ev)); err != nil || args[0] != `["x"],{}` || kwargs[0].Value != 2 {
				t.Errorf("Values = %v %v %v", args, kwargs, err)
			}
		})
	}
	wg.Wait()
	if n := dec.calls.Load(); n != 1 {
		t.Errorf("decoded %d times", n)
	}
	got, err := Decoded(ev)
	want := &Event{Subscription: 1, Publication: 2, Details: Dict{}, Args: List{`["x"],{}`}, Kwargs: Object{{Key: "n", Value: 2}}}
	if err != nil || !reflect.DeepEqual(got, want) || ev.Raw != raw {
		t.Errorf("Decoded = %#v, %v (the original must keep its Raw)", got, err)
	}
	if size := PayloadSize("com.t", PayloadOf(ev), nil); size != len("com.t")+len(`["x"],{}`) {
		t.Errorf("PayloadSize of a raw payload = %d, want its bytes", size)
	}
	plain := &Call{Request: 1, Procedure: "p", Args: List{1}}
	if m, err := Decoded(plain); m != Message(plain) || err != nil {
		t.Errorf("Decoded of a message without a raw payload = %v, %v; want itself", m, err)
	}
	bad := NewRaw(SerializerJSON, []byte(`x`), 1, &countingDecoder{err: ErrProtocol})
	if _, err := Decoded(&Yield{Request: 1, Raw: bad}); !errors.Is(err, ErrProtocol) {
		t.Errorf("Decoded of an undecodable payload: %v", err)
	}
}

// TestDecodeRaw: the raw payload's elements count with the head's.
func TestDecodeRaw(t *testing.T) {
	raw := NewRaw(SerializerJSON, []byte(`[]`), 1, &countingDecoder{})
	m, err := DecodeRaw([]any{uint64(TypeCall), uint64(1), Dict{}, "p"}, raw)
	if c, ok := m.(*Call); err != nil || !ok || c.Raw != raw || c.Args != nil {
		t.Fatalf("DecodeRaw = %#v, %v", m, err)
	}
	if _, err := DecodeRaw([]any{uint64(TypeCall), uint64(1), Dict{}}, raw); !errors.Is(err, ErrProtocol) {
		t.Errorf("a payload before the URI: %v", err)
	}
}
