package rest

import (
	"time"

	"github.com/junction-wamp/junction/internal/wamp"
)

// maxTimeoutSeconds bounds a configured timeout (one day).
const maxTimeoutSeconds = 86400

// ParseCalleeExtra reads a RESTCallee's "extra": procedure (required URI),
// baseurl (required: "" or an http(s) URL) and timeout (optional seconds,
// > 0). Errors name the field relative to extra ("baseurl: ...").
// HTTPClient and Logger are left for the caller to set.
func ParseCalleeExtra(extra map[string]any) (CalleeOptions, error) {
	r := &extraReader{m: extra}
	r.known("procedure", "baseurl", "timeout")
	var o CalleeOptions
	if p, ok := r.str("procedure", true); ok {
		o.Procedure = wamp.URI(p)
		if !wamp.ValidURI(o.Procedure, false, wamp.MatchExact) {
			r.fail("procedure", "invalid URI %q", p)
		}
	}
	if b, ok := r.str("baseurl", true); ok {
		o.BaseURL = b
		if _, err := parseBaseURL(b); err != nil {
			r.fail("baseurl", "must be an http or https URL without a query or fragment, not %q", b)
		}
	}
	if s, ok := r.number("timeout", 0, maxTimeoutSeconds); ok {
		if s == 0 {
			r.fail("timeout", "must be > 0 seconds")
		}
		o.Timeout = time.Duration(s * float64(time.Second))
	}
	return o, r.err
}
