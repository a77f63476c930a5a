package bridge

import (
	"fmt"
	"net/http"

	"github.com/junction-wamp/junction/wamp"
)

// ErrorStatus is a Caller's or Publisher's options.error_status: how a
// WAMP error from the router or a callee is answered. The zero value is
// Crossbar's way: 200 with the error in the body (but the gateway
// failures, see remoteStatus).
type ErrorStatus struct {
	// On answers each WAMP error with the status of the bridge's table
	// (HTTPStatus: wamp.error.no_such_procedure 404, ...; application
	// errors 500), or of Statuses.
	On bool
	// Statuses add rows to the table or override them, by error URI
	// (only with On).
	Statuses map[wamp.URI]int
}

// remoteAnswer is how a service answers WAMP errors from the router or a
// callee (errors of its own have the table's status whatever it says).
// Immutable; safe for concurrent use.
type remoteAnswer struct {
	status ErrorStatus
	// compat: a WAMP error is answered 200 when status is off (Caller,
	// Publisher); without, 500 (Webhook).
	compat bool
	// auth: the service has per-request identity, so that a refusal by
	// the router's permissions is 403 whatever status says.
	auth bool
}

// statusOf is the status of a WAMP error with uri.
func (ra *remoteAnswer) statusOf(uri wamp.URI) int {
	if ra.auth && (uri == wamp.ErrNotAuthorized || uri == wamp.ErrAuthorizationFailed) {
		return http.StatusForbidden
	}
	if ra.status.On {
		if s, ok := ra.status.Statuses[uri]; ok {
			return s
		}
		return HTTPStatus(uri)
	}
	s := remoteStatus(uri)
	if s == http.StatusOK && !ra.compat {
		return http.StatusInternalServerError
	}
	return s
}

// validate checks the statuses of the map form.
func (es *ErrorStatus) validate() error {
	for uri, s := range es.Statuses {
		if s < 400 || s > 599 {
			return fmt.Errorf("bridge: error_status: %s: status %d is not an HTTP error status (400..599)", uri, s)
		}
	}
	return nil
}
