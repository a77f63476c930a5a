package codec

// preference is the order in which a client offers the codecs.
var preference = []Codec{CBOR, Msgpack, JSON, UBJSON}

const batchedSuffix = ".batched"

// Lookup finds the codec of a WebSocket subprotocol such as "wamp.2.json"
// or "wamp.2.cbor.batched".
func Lookup(subprotocol string) (c Codec, batched bool, ok bool) {
	for _, c := range preference {
		switch subprotocol {
		case c.Subprotocol():
			return c, false, true
		case c.Subprotocol() + batchedSuffix:
			return c, true, true
		}
	}
	return nil, false, false
}

// Subprotocols returns every supported subprotocol in preference order:
// cbor, msgpack, json, ubjson, then their batched variants. The slice is
// the caller's.
func Subprotocols() []string {
	s := make([]string, 0, 2*len(preference))
	for _, c := range preference {
		s = append(s, c.Subprotocol())
	}
	for _, c := range preference {
		s = append(s, c.Subprotocol()+batchedSuffix)
	}
	return s
}

// ByRawSocketID finds the codec of a RawSocket serializer id (1 to 4).
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func ByRawSocketID(id byte) (Codec, bool) {
	for _, c := range preference {
		if c.RawSocketID() == id {
			return c, true
		}
	}
	return nil, false
}
