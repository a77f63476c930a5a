package httpauth

import (
	"fmt"
	"net/http"

	"github.com/junction-wamp/junction/wamp"
)

// Error is a request refused for its credentials: the status (401, or 403
// for a role that is not allowed), the RFC 6750 error code, the text the
// client sees, and the WWW-Authenticate challenges of a 401. Cause is
// logged, never sent: the client learns no more than RFC 6750 allows
// (not which claim or which part was wrong).
type Error struct {
	Status     int
	Code       string // "invalid_token", "insufficient_scope", "" (no credentials, Basic)
	Text       string
	Challenges []string
	Cause      error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("httpauth: %d %s: %v", e.Status, e.Text, e.Cause)
	}
	return fmt.Sprintf("httpauth: %d %s", e.Status, e.Text)
}

func (e *Error) Unwrap() error { return e.Cause }

// URI is the WAMP error URI of the answer's body.
func (e *Error) URI() wamp.URI {
	if e.Status == http.StatusForbidden {
		return wamp.ErrNotAuthorized
	}
	return wamp.ErrAuthenticationFailed
}

// SetHeaders sets the answer's WWW-Authenticate headers.
func (e *Error) SetHeaders(h http.Header) {
	for _, c := range e.Challenges {
		h.Add("WWW-Authenticate", c)
	}
}

// Texts of the refusals.
const (
	textRequired     = "Authentication required."
	textInvalidToken = "The access token is invalid or has expired."
	textInvalidBasic = "Invalid user name or password."
	textMalformed    = "Malformed Authorization header."
	textRole         = "The credentials' role may not use this service."
)
