package codec

import (
	"math"

	"github.com/junction-wamp/junction/wamp"
)

// fromType is the from of a message decode: where the payload starts
// depends on the message type, the array's first element.
const fromType = -1

// payloadState tells a decoder whether the dictionaries it reads are
// payload dictionaries (Objects, in received order) or the router's (Dicts):
// those in the elements of the top array from index from on are payload.
type payloadState struct {
	from    int  // fromType until the message type is read
	objects bool // dictionaries read now are Objects
}

// newPayloadState starts reading a top array whose dictionaries are
// payload from element from on (0: all of them; fromType: from the
// message type's payload index).
func newPayloadState(from int) payloadState {
	return payloadState{from: from, objects: from == 0}
}

// element is called before element i of the top array is read; first is
// element 0 once it has been read (nil before).
func (p *payloadState) element(i int, first any) {
	if p.from == fromType && i == 1 {
		p.from = payloadFrom(first)
	}
	p.objects = p.from != fromType && i >= p.from
}

// payloadFrom is the index of the first payload element of a message whose
// type element is t, or math.MaxInt when the type carries no payload (or
// is no type at all: wamp.Decode rejects the message then).
func payloadFrom(t any) int {
	n, ok := wamp.AsInt(t) // any integer, or an integral float, as wamp.Decode reads it
	if !ok || n < 0 {
		return math.MaxInt
	}
	if i := wamp.PayloadIndex(wamp.MessageType(n)); i > 0 {
		return i
	}
	return math.MaxInt
}

// linearKeys is the size up to which uniqueKeys compares keys pairwise.
const linearKeys = 16

// uniqueKeys removes the repeated keys of a decoded dictionary, in place:
// the last value of a key wins at the place of its first occurrence, as
// Python's json module and JavaScript's JSON.parse read it.
func uniqueKeys(o wamp.Object) wamp.Object {
	if len(o) < 2 {
		return o
	}
	if len(o) <= linearKeys {
		return uniqueKeysLinear(o)
	}
	at := make(map[string]int, len(o))
	n := 0
	for _, f := range o {
		if j, ok := at[f.Key]; ok {
			o[j].Value = f.Value
			continue
		}
		at[f.Key] = n
		o[n] = f
		n++
	}
	clear(o[n:])
	return o[:n]
}

func uniqueKeysLinear(o wamp.Object) wamp.Object {
	n := 0
next:
	for _, f := range o {
		for j := range n {
			if o[j].Key == f.Key {
				o[j].Value = f.Value
				continue next
			}
		}
		o[n] = f
		n++
	}
	clear(o[n:])
	return o[:n]
}

// rawPayload is the state of a decoder that keeps a message's payload raw:
// it validates the payload elements (skip) instead of building their
// values, and records where they lie in the input.
type rawPayload struct {
	raw         bool // keep the payload raw, if the message has one
	skip        bool // reading payload elements: validate only
	start, stop int  // the payload elements' bytes, in the input
	n           int  // how many
	// bad is set when the payload cannot pass raw: an element of the
	// wrong kind or one too many (decoding reports the error), or a value
	// that decoding normalises (a MessagePack extension).
	bad bool
}

// rawElement is called before an element of the message array, at offset
// at in the input, is read; payload tells whether it is a payload element
// and kind what it starts ('l' a list, 'd' a dictionary).
func (r *rawPayload) rawElement(at int, payload bool, kind byte) {
	if !r.raw || !payload {
		return
	}
	if !r.skip {
		r.skip, r.start = true, at
	}
	if r.n >= 2 || kind != "ld"[r.n] {
		r.bad = true
	}
	r.n++
}
