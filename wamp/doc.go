// Package wamp defines the WAMP v2 protocol: message types, IDs, URIs, error
// URIs, option and detail keys, and the Peer interface that transports
// implement. It imports only the standard library.
//
// A message is a pointer to one of the structs named after the WAMP
// message (*Hello, *Call, *Event, ...), each a Message. Dictionaries the
// router reads (options, details) are Dicts; payloads are Lists (Args)
// and Objects (Kwargs, keys in received order). A received message may
// keep its payload raw, as it came from the wire: read a payload with
// Values, never from the Args and Kwargs fields directly. A payload in
// passthru mode (payload transparency: opaque bytes in place of the
// arguments, with the option OptEncAlgo, as autobahn and Crossbar.io send
// it) is made with NewPassthru and read with Payload.Passthru; Values
// refuses it with ErrPassthru. A router's
// refusal is a *RequestError, whose URI is one of the Err* URIs or the
// application's own; errors.Is matches it on the URI alone.
//
// # Stability
//
// Junction is before v1: its Go API may still change in a minor release,
// and the CHANGELOG says when it does. The parts meant to stay are the
// message structs and MessageType constants, ID, URI, Dict, List, Object
// and Field, the option, detail and error URI constants, RequestError,
// Errorf, ErrorFor, Values, PayloadOf, AsInt, AsDict, ValidURI, Unwrap,
// and the Peer and PeerInfo contract (Send, Recv, Close, Info). The names
// whose doc says "Lower level" (raw payloads, shared and batched
// encodings, sizes, traffic counters, parking idle peers, identities an
// in-process session acts for) exist for Junction's own transports and
// router: they are exported because those live in other packages, and
// they change when the router needs them to.
package wamp
