package bridge

import (
	"net/http"

	"github.com/junction-wamp/junction/wamp"
)

// statusRow is one line of the WAMP error URI <-> HTTP status table.
type statusRow struct {
	uri    wamp.URI
	status int
	// compat: a Caller or Publisher answers this error, when it comes from
	// the router or a callee, with HTTP 200 and the error in the body, as
	// Crossbar does and its clients expect.
	compat bool
}

// statusTable is the package's one mapping between WAMP error URIs and HTTP
// statuses.
var statusTable = []statusRow{
	{wamp.ErrInvalidArgument, http.StatusBadRequest, true},
	{wamp.ErrInvalidURI, http.StatusBadRequest, true},
	{wamp.ErrTypeCheck, http.StatusBadRequest, true},
	{wamp.ErrAuthenticationDenied, http.StatusUnauthorized, true},
	{wamp.ErrAuthenticationFailed, http.StatusUnauthorized, true},
	{wamp.ErrNotAuthorized, http.StatusForbidden, true},
	{wamp.ErrAuthorizationFailed, http.StatusForbidden, true},
	{wamp.ErrNoSuchProcedure, http.StatusNotFound, true},
	{wamp.ErrNoSuchRealm, http.StatusNotFound, true},
	{wamp.ErrCanceled, http.StatusConflict, true},
	{wamp.ErrRuntimeError, http.StatusInternalServerError, true},
	{ErrUnavailableURI, http.StatusServiceUnavailable, false},
	{wamp.ErrNoAvailableCallee, http.StatusServiceUnavailable, true},
	// The node is cut off from its cluster: a load balancer retries on
	// another node.
	{wamp.ErrClusterIsolated, http.StatusServiceUnavailable, false},
	{wamp.ErrTimeout, http.StatusGatewayTimeout, false},
	// The call's arguments were too long for the callee, or its result
	// too long for the caller's session: the upstream's answer cannot be
	// carried.
	{wamp.ErrPayloadSizeExceeded, http.StatusBadGateway, true},
}

// HTTPStatus returns the HTTP status for a WAMP error URI; an unknown URI (an
// application error) is 500.
func HTTPStatus(uri wamp.URI) int {
	if r, ok := rowOf(uri); ok {
		return r.status
	}
	return http.StatusInternalServerError
}

// remoteStatus is the status a Caller or Publisher answers a WAMP error from
// the router or a callee with: 200 for compatibility, except for the
// conditions the table says are gateway failures (wamp.error.timeout).
func remoteStatus(uri wamp.URI) int {
	if r, ok := rowOf(uri); ok && !r.compat {
		return r.status
	}
	return http.StatusOK
}

func rowOf(uri wamp.URI) (statusRow, bool) {
	for _, r := range statusTable {
		if r.uri == uri {
			return r, true
		}
	}
	return statusRow{}, false
}
