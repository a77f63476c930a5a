package wamp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Object is a dictionary whose keys keep the order in which they arrived:
// a payload's keyword arguments and every dictionary nested in a payload
// value (Arguments and ArgumentsKw). Options and Details, which the router
// reads, stay Dicts.
//
// A decoded Object has unique keys: when the wire holds a key twice (JSON
// and MessagePack allow it), the last value wins at the place of the first,
// as Python's json module (so Crossbar.io) and JavaScript's JSON.parse read
// it. Keys are looked up by a linear scan, which is what payloads of a few
// keys want; Dict converts a large one for repeated lookups.
//
// The zero value is an empty Object. Objects are not safe for concurrent
// writes; a received payload is shared by every receiver and must not be
// modified.
type Object []Field

// Field is one key and its value in an Object.
type Field struct {
	Key   string
	Value any
}

// Get returns the value of key and whether it is present.
func (o Object) Get(key string) (any, bool) {
	for i := range o {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

// Set gives key the value v: in place when key is present, appended last
// otherwise.
func (o *Object) Set(key string, v any) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, Field{Key: key, Value: v})
}

// Delete removes key, keeping the order of the other keys.
func (o *Object) Delete(key string) {
	*o = slices.DeleteFunc(*o, func(f Field) bool { return f.Key == key })
}

// Keys returns the keys in order.
func (o Object) Keys() []string {
	keys := make([]string, len(o))
	for i := range o {
		keys[i] = o[i].Key
	}
	return keys
}

// Dict returns o's fields in a new map; nested values are not converted.
// A nil Object gives a nil Dict.
func (o Object) Dict() Dict {
	if o == nil {
		return nil
	}
	d := make(Dict, len(o))
	for _, f := range o {
		d[f.Key] = f.Value
	}
	return d
}

// ObjectOf returns d's entries as an Object with the keys sorted, so that
// a dictionary built in Go (which has no order) is sent the same way every
// time. Nested values are not converted. A nil Dict gives a nil Object.
func ObjectOf(d Dict) Object {
	if d == nil {
		return nil
	}
	o := make(Object, 0, len(d))
	for k, v := range d {
		o = append(o, Field{Key: k, Value: v})
	}
	slices.SortFunc(o, func(a, b Field) int { return strings.Compare(a.Key, b.Key) })
	return o
}

// AsDict reads a payload value that should be a dictionary: an Object (as
// decoded payloads hold them) or a Dict (as Go code builds them). Nested
// values are not converted.
func AsDict(v any) (Dict, bool) {
	switch d := v.(type) {
	case Dict:
		return d, true
	case Object:
		return d.Dict(), true
	}
	return nil, false
}

// MarshalJSON writes o as a JSON object with its keys in order; values are
// marshalled by encoding/json, without escaping HTML characters (a caller
// of json.Marshal still gets them escaped, as for any value). A nil Object
// is written as {}.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	encode := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // the newline Encode ends with
		return nil
	}
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encode(f.Key); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := encode(f.Value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// PayloadIndex is the index, in the message array of a message of type t,
// of its Arguments element (ArgumentsKw follows it), or 0 when t carries
// no payload: the elements from there on hold payload values, whose
// dictionaries decode as Objects.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func PayloadIndex(t MessageType) int {
	switch t {
	case TypeError:
		return 5
	case TypePublish, TypeEvent, TypeCall, TypeInvocation:
		return 4
	case TypeResult, TypeYield:
		return 3
	}
	return 0
}
