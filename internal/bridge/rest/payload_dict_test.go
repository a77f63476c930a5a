package rest

import "github.com/junction-wamp/junction/wamp"

// dict reads a payload dictionary as a Dict, whether it came decoded (an
// Object) or from Go code (a Dict); nil when v is neither.
func dict(v any) wamp.Dict {
	d, _ := wamp.AsDict(v)
	return d
}
