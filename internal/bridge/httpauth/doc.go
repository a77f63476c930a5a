// Package httpauth tells who an HTTP request of the bridge comes from:
// a Resolver reads its credentials (a JWT or an API key as a bearer
// token, or HTTP Basic against WAMP principals) and gives the
// wamp.Identity the request's WAMP actions run with, or an *Error to
// answer (401 with WWW-Authenticate as RFC 6750 says, 403 for a role that
// is not allowed). Every bridge service with per-request identity (the
// Caller, the Publisher, the event stream, the REST routes) calls it the
// same way: an http.Request in, an identity or an HTTP error out.
//
// JWTs are verified with github.com/go-jose/go-jose/v4 against an
// algorithm allow-list (never "none"; an HMAC secret serves only HS*
// algorithms, public keys only the asymmetric ones), with "exp" required.
package httpauth
