package router

import "github.com/junction-wamp/junction/internal/wamp"

// valueBytes is what payloadSize counts for every value: an interface
// value's two words, which every element of a decoded list or dictionary
// costs, however small.
const valueBytes = 16

// payloadSize estimates the memory that a publication's or a testament's
// topic, arguments, keyword arguments and options hold once decoded:
// valueBytes for every value (nested ones included), plus the length of
// every string, binary value, dictionary key and of the topic. It walks
// the values once, without allocating; the transport's message size
// limit bounds the walk. Values of other Go types (from an embedded
// client) count valueBytes.
func payloadSize(topic wamp.URI, args wamp.List, kwargs, opts wamp.Dict) int {
	return len(topic) + listSize(args) + dictSize(kwargs) + dictSize(opts)
}

func valueSize(v any) int {
	switch v := v.(type) {
	case string:
		return valueBytes + len(v)
	case []byte:
		return valueBytes + len(v)
	case wamp.List:
		return valueBytes + listSize(v)
	case wamp.Dict:
		return valueBytes + dictSize(v)
	}
	return valueBytes
}

func listSize(l wamp.List) int {
	n := 0
	for _, v := range l {
		n += valueSize(v)
	}
	return n
}

func dictSize(d wamp.Dict) int {
	n := 0
	for k, v := range d {
		n += valueBytes + len(k) + valueSize(v)
	}
	return n
}
