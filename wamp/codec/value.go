package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/junction-wamp/junction/wamp"
)

// sink writes generic values in one format. Values arrive already checked
// (strings are valid UTF-8, depth is bounded); a sink records only its own
// errors (a JSON non-finite float) with setErr. A sink is used by one
// goroutine.
type sink interface {
	null()
	boolean(v bool)
	int(v int64)
	uint(v uint64)
	float(v float64)
	str(s string)
	bin(b []byte)
	beginList(n int)
	sep(i int) // before list element i
	endList()
	beginDict(n int)
	key(i int, k string) // key of entry i
	endDict()
	setErr(err error) // keeps the first error
	err() error
	bytes() []byte
	raw(b []byte) // appends b, values already encoded in the sink's format
	reset()       // empties the buffer and forgets the error, for reuse
}

// errState is the error half of a sink.
type errState struct{ e error }

func (s *errState) setErr(err error) {
	if s.e == nil {
		s.e = err
	}
}

func (s *errState) err() error { return s.e }

var (
	errTooDeep    = errors.New("nesting deeper than 1000")
	errInvalidStr = errors.New("string is not valid UTF-8")
	errNonFinite  = errors.New("non-finite float")
)

// msgWriter adapts a sink to wamp.Writer: it writes the message array.
type msgWriter struct {
	s   sink
	ser wamp.Serializer // the sink's
	i   int
}

var _ wamp.Writer = (*msgWriter)(nil)

func (w *msgWriter) Array(n int) { w.s.beginList(n) }

func (w *msgWriter) next() {
	w.s.sep(w.i)
	w.i++
}

func (w *msgWriter) Uint(v uint64)    { w.next(); w.s.uint(v) }
func (w *msgWriter) String(s string)  { w.next(); writeString(w.s, s) }
func (w *msgWriter) Dict(d wamp.Dict) { w.next(); writeDict(w.s, d, 2) }
func (w *msgWriter) List(l wamp.List) { w.next(); writeList(w.s, l, 2) }

func (w *msgWriter) Object(o wamp.Object) { w.next(); writeObject(w.s, o, 2) }

// Raw writes a payload as received: its bytes when they are in the sink's
// format, else its values, decoded (once for every encoder of r); a
// passthru payload as one binary.
func (w *msgWriter) Raw(r *wamp.Raw) {
	if r.IsPassthru() {
		w.next()
		w.s.bin(r.Bytes())
		return
	}
	if r.Serializer() == w.ser {
		w.next()
		w.s.raw(r.Bytes())
		w.i += r.Len() - 1
		return
	}
	args, kwargs, err := r.Values()
	if err != nil {
		w.s.setErr(err)
		return
	}
	w.List(args)
	if r.Len() == 2 {
		w.Object(kwargs)
	}
}

func writeString(s sink, v string) {
	if !utf8.ValidString(v) {
		s.setErr(errInvalidStr)
		return
	}
	s.str(v)
}

// writeDict writes d (nil as {}) as a container at nesting level depth.
func writeDict(s sink, d map[string]any, depth int) {
	if !enter(s, depth) {
		return
	}
	s.beginDict(len(d))
	i := 0
	for k, v := range d {
		if !utf8.ValidString(k) {
			s.setErr(errInvalidStr)
			return
		}
		s.key(i, k)
		writeValue(s, v, depth)
		i++
	}
	s.endDict()
}

// writeObject writes o (nil as {}) with its keys in order, as a container
// at nesting level depth.
func writeObject(s sink, o wamp.Object, depth int) {
	if !enter(s, depth) {
		return
	}
	s.beginDict(len(o))
	for i, f := range o {
		if !utf8.ValidString(f.Key) {
			s.setErr(errInvalidStr)
			return
		}
		s.key(i, f.Key)
		writeValue(s, f.Value, depth)
	}
	s.endDict()
}

// writeList writes l (nil as []) as a container at nesting level depth.
func writeList(s sink, l []any, depth int) {
	if !enter(s, depth) {
		return
	}
	s.beginList(len(l))
	for i, v := range l {
		s.sep(i)
		writeValue(s, v, depth)
	}
	s.endList()
}

// enter reports whether a container at level depth may be written; it stops
// at the first error so that a cyclic value is not walked any further.
func enter(s sink, depth int) bool {
	if s.err() != nil {
		return false
	}
	if depth > maxDepth {
		s.setErr(errTooDeep)
		return false
	}
	return true
}

// writeValue writes v, an element of a container at level depth.
func writeValue(s sink, v any, depth int) {
	switch x := v.(type) {
	case nil:
		s.null()
	case string:
		writeString(s, x)
	case int64:
		s.int(x)
	case float64:
		s.float(x)
	case bool:
		s.boolean(x)
	case map[string]any:
		writeDict(s, x, depth+1)
	case wamp.Object:
		writeObject(s, x, depth+1)
	case []any:
		writeList(s, x, depth+1)
	case []byte:
		s.bin(x)
	case uint64:
		writeUint(s, x)
	default:
		if !writeScalar(s, v) {
			writeOther(s, v, depth)
		}
	}
}

// writeUint writes an unsigned integer as int64 when it fits, so that every
// format sees one integer kind below 2^63.
func writeUint(s sink, v uint64) {
	if v <= 1<<63-1 {
		s.int(int64(v))
		return
	}
	s.uint(v)
}

// writeScalar writes the less common scalar types; false if v is none.
func writeScalar(s sink, v any) bool {
	switch x := v.(type) {
	case int:
		s.int(int64(x))
	case int8:
		s.int(int64(x))
	case int16:
		s.int(int64(x))
	case int32:
		s.int(int64(x))
	case uint:
		writeUint(s, uint64(x))
	case uint8:
		s.int(int64(x))
	case uint16:
		s.int(int64(x))
	case uint32:
		s.int(int64(x))
	case float32:
		s.float(float64(x))
	case wamp.ID:
		writeUint(s, uint64(x))
	case wamp.URI:
		writeString(s, string(x))
	default:
		return false
	}
	return true
}

// writeOther writes string collections, then falls back to a JSON round trip.
func writeOther(s sink, v any, depth int) {
	switch x := v.(type) {
	case []string:
		if !enter(s, depth+1) {
			return
		}
		s.beginList(len(x))
		for i, e := range x {
			s.sep(i)
			writeString(s, e)
		}
		s.endList()
	case map[string]string:
		writeStringMap(s, x, depth+1)
	default:
		writeFallback(s, v, depth)
	}
}

func writeStringMap(s sink, m map[string]string, depth int) {
	if !enter(s, depth) {
		return
	}
	s.beginDict(len(m))
	i := 0
	for k, e := range m {
		if !utf8.ValidString(k) {
			s.setErr(errInvalidStr)
			return
		}
		s.key(i, k)
		writeString(s, e)
		i++
	}
	s.endDict()
}

// writeFallback converts v with encoding/json and writes the generic value
// that the JSON decoder makes of it.
func writeFallback(s sink, v any, depth int) {
	if s.err() != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.setErr(fmt.Errorf("value of type %T: %w", v, err))
		return
	}
	g, err := DecodePlainJSON(b)
	if err != nil {
		s.setErr(fmt.Errorf("value of type %T: %w", v, err))
		return
	}
	writeValue(s, g, depth)
}

var errTooLong = errors.New("string, binary or container longer than 2^32-1")
