package wamp

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestObjectGetSetDelete(t *testing.T) {
	var o Object
	o.Set("zeta", 0)
	o.Set("alpha", 1)
	o.Set("zeta", 2) // in place, not appended
	if got := o.Keys(); !reflect.DeepEqual(got, []string{"zeta", "alpha"}) {
		t.Fatalf("keys %v, want [zeta alpha]", got)
	}
	if v, ok := o.Get("zeta"); !ok || v != 2 {
		t.Fatalf("Get(zeta) = %v, %v; want 2, true", v, ok)
	}
	if _, ok := o.Get("missing"); ok {
		t.Fatal("Get(missing) found a value")
	}
	o.Delete("zeta")
	if got := o.Keys(); !reflect.DeepEqual(got, []string{"alpha"}) {
		t.Fatalf("keys after Delete %v, want [alpha]", got)
	}
}

func TestObjectConversions(t *testing.T) {
	tests := []struct {
		name string
		in   Dict
		keys []string
	}{
		{"nil", nil, nil},
		{"empty", Dict{}, []string{}},
		{"sorted", Dict{"b": 1, "a": 2, "c": 3}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ObjectOf(tt.in)
			if (o == nil) != (tt.in == nil) {
				t.Fatalf("ObjectOf(%v) = %#v: nil-ness differs", tt.in, o)
			}
			if tt.keys != nil && !reflect.DeepEqual(o.Keys(), tt.keys) {
				t.Fatalf("keys %v, want %v", o.Keys(), tt.keys)
			}
			if !reflect.DeepEqual(o.Dict(), tt.in) {
				t.Fatalf("Dict() = %v, want %v", o.Dict(), tt.in)
			}
		})
	}
}

func TestAsDict(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want Dict
		ok   bool
	}{
		{"dict", Dict{"a": 1}, Dict{"a": 1}, true},
		{"object", Object{{Key: "a", Value: 1}}, Dict{"a": 1}, true},
		{"list", List{1}, nil, false},
		{"nil", nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := AsDict(tt.in)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("AsDict(%v) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestObjectMarshalJSONKeepsOrder(t *testing.T) {
	o := Object{{Key: "zeta", Value: 0}, {Key: "alpha", Value: Object{{Key: "y", Value: "1"}, {Key: "x", Value: nil}}}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"zeta":0,"alpha":{"y":"1","x":null}}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	if b, _ := json.Marshal(Object(nil)); string(b) != "{}" {
		t.Fatalf("nil Object marshals as %s, want {}", b)
	}
	if _, err := json.Marshal(Object{{Key: "f", Value: func() {}}}); err == nil {
		t.Fatal("a function value marshalled without error")
	}
}

// TestPayloadIndexMatchesEncode: the index is where Encode writes a
// message's arguments, for every message that carries them.
func TestPayloadIndexMatchesEncode(t *testing.T) {
	marker := List{"marker"}
	msgs := []Message{
		&Error{RequestType: TypeCall, Request: 1, Error: "e", Args: marker},
		&Publish{Request: 1, Topic: "t", Args: marker},
		&Event{Subscription: 1, Publication: 2, Args: marker},
		&Call{Request: 1, Procedure: "p", Args: marker},
		&Result{Request: 1, Args: marker},
		&Invocation{Request: 1, Registration: 2, Args: marker},
		&Yield{Request: 1, Args: marker},
		&Hello{Realm: "r"},
		&Subscribe{Request: 1, Topic: "t"},
	}
	for _, m := range msgs {
		var w listWriter
		Encode(m, &w)
		want := 0
		for i, e := range w.out {
			if l, ok := e.(List); ok && len(l) == 1 && l[0] == "marker" {
				want = i
			}
		}
		if got := PayloadIndex(m.Type()); got != want {
			t.Errorf("%s: PayloadIndex %d, Encode writes the arguments at %d", m.Type(), got, want)
		}
	}
}
