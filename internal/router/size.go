package router

import "github.com/junction-wamp/junction/internal/wamp"

// payloadSize estimates the memory that a publication's or a testament's
// topic, arguments, keyword arguments and options hold once decoded: what
// the realm limits count as bytes (see wamp.PayloadSize).
func payloadSize(topic wamp.URI, args wamp.List, kwargs, opts wamp.Dict) int {
	return wamp.PayloadSize(topic, args, kwargs, opts)
}
