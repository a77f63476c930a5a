package bridge

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// Error is a refusal of an HTTP request: the status and the "error" text
// the client sees, and the cause, which is logged but never sent.
type Error struct {
	Status int
	Text   string
	Cause  error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("bridge: %d %s: %v", e.Status, e.Text, e.Cause)
	}
	return fmt.Sprintf("bridge: %d %s", e.Status, e.Text)
}

func (e *Error) Unwrap() error { return e.Cause }

// refuse returns an *Error with a formatted text.
func refuse(status int, format string, a ...any) *Error {
	return &Error{Status: status, Text: fmt.Sprintf(format, a...)}
}

func badRequest(format string, a ...any) *Error { return refuse(http.StatusBadRequest, format, a...) }

// Errors of the WAMP side, mapped to the wire by respond.
var (
	// ErrUnavailable: the embedded session is down (the client is
	// rejoining). Answered 503 with URI ErrUnavailableURI.
	ErrUnavailable = errors.New("bridge: WAMP session unavailable")
	// ErrCallTimeout: the call did not finish within the call timeout; it
	// was canceled. Answered 504 with wamp.error.timeout.
	ErrCallTimeout = errors.New("bridge: call timed out")
	// errClientGone: the HTTP client went away; nothing is written.
	errClientGone = errors.New("bridge: HTTP client went away")
)

// timeoutError is ErrCallTimeout with the timeout that expired.
type timeoutError struct {
	after time.Duration
	cause error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("bridge: call timed out after %v: %v", e.after, e.cause)
}

func (e *timeoutError) Is(target error) bool { return target == ErrCallTimeout }

func (e *timeoutError) Unwrap() error { return e.cause }

// ErrUnavailableURI is the "error" of a 503 answer.
const ErrUnavailableURI wamp.URI = "junction.error.unavailable"

// Texts of the refusals, Crossbar's where Crossbar has one (without its
// Python bytes reprs), so that its clients see the answers they expect.
const (
	textMethod         = "Method not accepted by the REST bridge. (%s not allowed, only POST, PUT)"
	textContentType    = "Non-accepted content type. (must be 'application/json', not '%s')"
	textEncoding       = "Non-accepted request encoding, must be UTF-8."
	textTooLong        = "Request too long. (%d is longer than accepted %d)"
	textTooLongUnknown = "Request too long. (longer than accepted %d)"
	textTooLongDecoded = "Request too long once decoded. (about %d bytes decoded, the transport holds at most %d at once)"
	textMissingField   = "REST bridge signature was invalid (missing mandatory field - %s)."
	textInvalidField   = "REST bridge signature was invalid (%s)."
	textExpired        = "Request expired, too old timestamp."
	textBadKey         = "REST bridge signature key not valid."
	textBadSignature   = "REST bridge signature secret not valid."
	textReplay         = "REST bridge signature was invalid (nonce already used)."
	textDeniedIP       = "Request denied based on IP address."
	textDeniedTLS      = "Request denied, TLS required."
	textNotUTF8        = "Non-decodable request body, was not UTF-8."
	textInvalidJSON    = "Request body was invalid JSON."
	textNotDict        = "Request body was valid JSON, but not well formed (must be a dict)."
	textMissingKey     = "Request body was valid JSON, but not well formed (missing key '%s')."
	textBadMember      = "Request body was valid JSON, but not well formed (%s)."
	textBodyTimeout    = "Request body timed out, nothing received for too long."
	textBusy           = "Too many request bodies in flight, retry later."
	textReplayFull     = "Too many signed requests within the timestamp window, retry later."
	textReplayTable    = "The cluster's replay table is unavailable or full: sign the request again with a new nonce, and retry later."
	textInternal       = "Unhandled exception in the REST bridge."
	textUnavailable    = "WAMP session unavailable, retry later."
	textTimeout        = "canceled: no answer within %v"
	textNoRoute        = "No route for %s %s."
	textRouteMethod    = "Method not allowed. (%s not allowed, only %s)"
	textNotResponse    = "The procedure's result is not a response {code, headers, content}: %s."
)
