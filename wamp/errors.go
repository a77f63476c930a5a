package wamp

import (
	"fmt"
	"strings"
)

// Error URIs defined by the WAMP specification (and by Crossbar where the
// specification is silent).
const (
	ErrInvalidURI               URI = "wamp.error.invalid_uri"
	ErrNoSuchProcedure          URI = "wamp.error.no_such_procedure"
	ErrProcedureAlreadyExists   URI = "wamp.error.procedure_already_exists"
	ErrNoSuchRegistration       URI = "wamp.error.no_such_registration"
	ErrNoSuchSubscription       URI = "wamp.error.no_such_subscription"
	ErrNoSuchSession            URI = "wamp.error.no_such_session"
	ErrInvalidArgument          URI = "wamp.error.invalid_argument"
	ErrSystemShutdown           URI = "wamp.close.system_shutdown"
	ErrCloseRealm               URI = "wamp.close.close_realm"
	ErrGoodbyeAndOut            URI = "wamp.close.goodbye_and_out"
	ErrCloseNormal              URI = "wamp.close.normal"
	ErrKilled                   URI = "wamp.close.killed"
	ErrProtocolViolation        URI = "wamp.error.protocol_violation"
	ErrNotAuthorized            URI = "wamp.error.not_authorized"
	ErrAuthorizationFailed      URI = "wamp.error.authorization_failed"
	ErrAuthenticationFailed     URI = "wamp.error.authentication_failed"
	ErrAuthenticationDenied     URI = "wamp.error.authentication_denied"
	ErrNoAuthMethod             URI = "wamp.error.no_auth_method"
	ErrNoSuchRealm              URI = "wamp.error.no_such_realm"
	ErrNoSuchRole               URI = "wamp.error.no_such_role"
	ErrNoSuchPrincipal          URI = "wamp.error.no_such_principal"
	ErrCanceled                 URI = "wamp.error.canceled"
	ErrTimeout                  URI = "wamp.error.timeout"
	ErrNoAvailableCallee        URI = "wamp.error.no_available_callee"
	ErrFeatureNotSupported      URI = "wamp.error.feature_not_supported"
	ErrOptionNotAllowed         URI = "wamp.error.option_not_allowed"
	ErrOptionDisallowedDisclose URI = "wamp.error.option_disallowed.disclose_me"
	ErrRuntimeError             URI = "wamp.error.runtime_error"
	ErrTypeCheck                URI = "wamp.error.type_check_error"
	// ErrPayloadSizeExceeded: a message could not be delivered because it
	// is longer than its transport allows (the receiver's maximum
	// message length).
	ErrPayloadSizeExceeded URI = "wamp.error.payload_size_exceeded"
)

// Error URIs of Junction's own, for conditions the WAMP specification has
// no URI for.
const (
	// ErrLimitExceeded: the request would take the session or the realm
	// past one of the router's limits (subscriptions, registrations,
	// calls in flight, retained events, testaments), or in a cluster its
	// answer past the size of a message between nodes (get_events).
	ErrLimitExceeded URI = "junction.error.limit_exceeded"
	// ErrClusterUnavailable: the cluster's table cannot be written (no
	// JetStream quorum), so a REGISTER or SUBSCRIBE that needs it fails.
	ErrClusterUnavailable URI = "junction.error.cluster_unavailable"
	// ErrClusterIsolated: this node is cut off from its cluster and
	// fenced (on_isolation fence): it refuses joins from outside and
	// fails what would need another node (a CALL no callee here serves,
	// an acknowledged PUBLISH) until it rejoins. A client should connect
	// to another node.
	ErrClusterIsolated URI = "junction.error.cluster_isolated"
	// ErrConfigChanged: the GOODBYE of a session that a configuration
	// reload no longer allows (its role was removed from its realm, its
	// principal was removed or its credentials changed, or a
	// registration or subscription it holds is no longer permitted and
	// it cannot be told so). wamp.close.system_shutdown would tell it
	// the router is going away and to come back soon; this tells it the
	// router stays but will not have it as it was.
	ErrConfigChanged URI = "junction.close.config_changed"
)

// RequestError is an error that carries a WAMP error URI, as sent in an ERROR
// message (or in ABORT/GOODBYE, where Args and Kwargs are not sent). Router
// code returns it and one function turns it into the wire message; the client
// returns it for a call or request the router refused.
type RequestError struct {
	URI     URI
	Details Dict
	Args    List
	Kwargs  Object
	// Passthru, when non-nil, is a payload in passthru mode (payload
	// transparency, Crossbar's form: the bytes in place of Arguments,
	// described by Details' enc_algo, enc_key and enc_serializer); Args
	// and Kwargs are then nil. See NewPassthru.
	Passthru []byte
}

// Errorf returns a RequestError whose first argument is a formatted message,
// the convention Crossbar and autobahn use.
func Errorf(uri URI, format string, a ...any) *RequestError {
	return &RequestError{URI: uri, Args: List{fmt.Sprintf(format, a...)}}
}

// Error returns the URI, then the arguments (the message, by convention)
// after a colon.
func (e *RequestError) Error() string {
	var b strings.Builder
	b.WriteString(string(e.URI))
	if len(e.Args) > 0 {
		b.WriteString(": ")
		fmt.Fprint(&b, e.Args...)
	}
	return b.String()
}

// Is makes errors.Is(err, &RequestError{URI: u}) match on the URI alone.
func (e *RequestError) Is(target error) bool {
	t, ok := target.(*RequestError)
	return ok && t.URI == e.URI
}

// ErrorFor builds the ERROR message answering request req of type t, with
// e's passthru payload if it has one.
func ErrorFor(t MessageType, req ID, e *RequestError) *Error {
	details := e.Details
	if details == nil {
		details = Dict{}
	}
	m := &Error{RequestType: t, Request: req, Details: details, Error: e.URI, Args: e.Args, Kwargs: e.Kwargs}
	if e.Passthru != nil {
		m.Args, m.Kwargs, m.Raw = nil, nil, NewPassthru(e.Passthru)
	}
	return m
}
