package wamp

// What a decoded value costs the heap, in bytes (64-bit Go, as measured
// by TestPayloadSizeMatchesHeap over every codec): every value sits in an
// interface (a list element, a dictionary slot); a number boxes its 8
// bytes behind it, a non-empty string, a binary and a list their header
// and contents (Go boxes neither booleans, null nor the empty string); a
// dictionary is a map header and a table of groups of 8 slots, each slot a
// key (a string header) and a value (an interface), with 8 control bytes
// per group, filled to at most 7/8; an Object is a slice header and an
// array of fields, each a key and a value.
const (
	ifaceBytes    = 16
	numberBytes   = 8
	stringBytes   = 16
	sliceBytes    = 24
	mapBytes      = 48
	mapSlotBytes  = stringBytes + ifaceBytes
	mapGroupBytes = 8 + 8*mapSlotBytes
	fieldBytes    = stringBytes + ifaceBytes
)

// PayloadSize estimates the memory that a message's URI, payload and
// options hold: a raw payload (kept as received) counts its bytes, which is
// what it holds; decoded arguments and keyword arguments count what they
// hold once decoded (see the constants above), so that a payload of many
// small values (a list of empty dictionaries) counts for what it costs, not
// for its bytes on the wire. It walks the values once, without allocating;
// the size of the message that was decoded bounds the walk. Values of other
// Go types (from an embedded client) count as a boolean does. Safe for
// concurrent use with readers of the values.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func PayloadSize(uri URI, p Payload, opts Dict) int {
	n := len(uri) + DictSize(opts)
	if p.Raw != nil {
		return n + len(p.Raw.Bytes())
	}
	return n + ListSize(p.Args) + ObjectSize(p.Kwargs)
}

// ListSize estimates the memory that l's elements hold once decoded: each
// in its interface and what it points to (l's own header is not counted).
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func ListSize(l List) int {
	n := 0
	for _, v := range l {
		n += ifaceBytes + boxedSize(v)
	}
	return n
}

// DictSize estimates the memory that a decoded dictionary holds: its map
// header and table, and its keys' and values' own storage on top of their
// slots; 0 for nil.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func DictSize(d Dict) int {
	if d == nil {
		return 0
	}
	n := mapBytes + mapGroups(len(d))*mapGroupBytes
	for k, v := range d {
		n += len(k) + boxedSize(v)
	}
	return n
}

// ObjectSize estimates the memory that a decoded Object holds: its array
// of fields, and its keys' and values' own storage on top of them (o's own
// header is not counted).
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func ObjectSize(o Object) int {
	n := len(o) * fieldBytes
	for _, f := range o {
		n += len(f.Key) + boxedSize(f.Value)
	}
	return n
}

// boxedSize is what v costs behind its interface.
func boxedSize(v any) int {
	switch v := v.(type) {
	case string:
		if v == "" {
			return 0
		}
		return stringBytes + len(v)
	case float64, int64, uint64, int:
		return numberBytes
	case []byte:
		return sliceBytes + len(v)
	case List:
		return sliceBytes + ListSize(v)
	case Dict:
		return DictSize(v)
	case Object:
		return sliceBytes + ObjectSize(v)
	}
	return 0
}

// mapGroups is how many groups of 8 slots a map of n entries fills: none
// while empty, one up to 8, then enough to stay 7/8 full.
func mapGroups(n int) int {
	switch {
	case n == 0:
		return 0
	case n <= 8:
		return 1
	}
	return (n*8/7 + 7) / 8
}
