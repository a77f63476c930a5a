package config

import (
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults of "options.auth".
const (
	// DefaultJWTLeeway is "bearer.jwt.leeway" when not given.
	DefaultJWTLeeway = 30 * time.Second
	// DefaultJWKSRefresh is "bearer.jwt.jwks_refresh" when not given.
	DefaultJWKSRefresh = time.Hour
)

// JWTAlgorithms are the accepted "bearer.jwt.algorithms": HMAC ones with
// "secret", the others with a public key.
var (
	JWTHMACAlgorithms       = []string{"HS256", "HS384", "HS512"}
	JWTAsymmetricAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)

// Access are the options of a caller or publisher whose requests may run
// with identities of their own and answer WAMP errors with HTTP statuses
// (Junction extensions).
type Access struct {
	// Auth is "options.auth"; nil: every request runs as the service's
	// session.
	Auth *HTTPAuth
	// ErrorStatus is "options.error_status".
	ErrorStatus ErrorStatus
}

// access decodes "auth" and "error_status".
func (d *decoder) access(oo *object, a *Access) {
	a.Auth = d.httpAuth(oo)
	a.ErrorStatus = d.errorStatus(oo)
}

// HTTPAuth is a caller's or publisher's "options.auth" (a Junction
// extension): who each request comes from. The request's call or
// publication then runs with that identity.
type HTTPAuth struct {
	// JWT is "bearer.jwt": bearer tokens that are JWTs; nil: none.
	JWT *JWTAuth
	// APIKeys is "api_keys": each key (or "sha256:" and 64 hex digits of
	// its SHA-256) with the identity it stands for.
	APIKeys map[string]APIKey
	// APIKeyHeader is "api_key_header": a header that carries an API key
	// (besides Authorization: Bearer).
	APIKeyHeader string
	// BasicFrom is "basic.principals_from": the WebSocket path service
	// (of the same web transport, by its key in "paths") whose ticket and
	// wampcra principals check HTTP Basic; "" for no Basic.
	BasicFrom string
	// Required is "required" (default true): without credentials a
	// request gets 401; false: it runs with the service's own role.
	Required bool
}

// APIKey is the identity of an API key.
type APIKey struct {
	AuthID, AuthRole string
}

// JWTAuth is "options.auth.bearer.jwt".
type JWTAuth struct {
	// Algorithms is "algorithms" (required): the accepted "alg" values.
	Algorithms []string
	// Secret is "secret": the HMAC key (use "${NAME}").
	Secret string
	// PublicKey is "public_key": a PEM file, relative to the node
	// directory.
	PublicKey string
	// JWKSFile is "jwks_file": a JSON Web Key Set file, read again every
	// JWKSRefresh.
	JWKSFile string
	// JWKSURL is "jwks_url": where the key set is fetched (http or https).
	JWKSURL string
	// JWKSRefresh is "jwks_refresh" (seconds, default DefaultJWKSRefresh;
	// with jwks_url or jwks_file).
	JWKSRefresh time.Duration
	// Issuer is "issuer": the required "iss".
	Issuer string
	// Audience is "audience" (a string or a list): "aud" must hold one.
	Audience []string
	// Leeway is "leeway" (seconds, default DefaultJWTLeeway); the file's
	// 0 is negative here (none).
	Leeway time.Duration
	// AuthIDClaim is "authid_claim" (default "sub").
	AuthIDClaim string
	// AuthRoleClaim is "authrole_claim", or AuthRole is "authrole": one
	// of them is required.
	AuthRoleClaim, AuthRole string
	// AllowedRoles is "allowed_roles" (required with authrole_claim).
	AllowedRoles []string
}

// httpAuth decodes "auth" of a caller's or publisher's options.
func (d *decoder) httpAuth(oo *object) *HTTPAuth {
	o, ok := oo.child("auth")
	if !ok {
		return nil
	}
	a := &HTTPAuth{Required: o.boolean("required", true)}
	if b, ok := o.child("bearer"); ok {
		if j, ok := b.child("jwt"); ok {
			a.JWT = d.jwtAuth(j)
		} else {
			d.errorf(b.at("jwt"), "required")
		}
		b.done()
	}
	a.APIKeys = d.apiKeys(o)
	if o.has("api_key_header") {
		a.APIKeyHeader = o.validStr("api_key_header", "", httpToken, "invalid header name %q")
	}
	if b, ok := o.child("basic"); ok {
		a.BasicFrom = b.reqStr("principals_from")
		b.done()
	}
	if !o.has("bearer") && !o.has("api_keys") && !o.has("basic") {
		d.errorf(o.path, "give at least one of bearer.jwt, api_keys and basic")
	}
	if a.APIKeyHeader != "" && a.APIKeys == nil {
		d.errorf(o.at("api_key_header"), "needs \"api_keys\"")
	}
	o.done()
	return a
}

// apiKeys decodes "api_keys".
func (d *decoder) apiKeys(o *object) map[string]APIKey {
	var keys map[string]APIKey
	o.each("api_keys", func(p, k string, v any) {
		if keys == nil {
			keys = map[string]APIKey{}
		}
		if hx, ok := strings.CutPrefix(k, "sha256:"); ok {
			if b, err := hex.DecodeString(hx); err != nil || len(b) != 32 {
				d.errorf(p, "a hashed key is \"sha256:\" and 64 hex digits")
			}
		} else if k == "" {
			d.errorf(p, "must not be empty")
		}
		ko, ok := d.object(p, v)
		if !ok {
			return
		}
		keys[k] = APIKey{AuthID: ko.reqStr("authid"), AuthRole: ko.reqStr("authrole")}
		ko.done()
	})
	return keys
}

// jwtAuth decodes "bearer.jwt".
func (d *decoder) jwtAuth(o *object) *JWTAuth {
	j := &JWTAuth{JWKSRefresh: DefaultJWKSRefresh, Leeway: DefaultJWTLeeway}
	j.Secret, _ = d.nonEmpty(o, "secret")
	j.PublicKey, _ = d.nonEmpty(o, "public_key")
	j.JWKSFile, _ = d.nonEmpty(o, "jwks_file")
	if o.has("jwks_url") {
		j.JWKSURL = o.validStr("jwks_url", "", func(s string) bool { _, ok := httpURL(s); return ok }, "must be an http or https URL, not %q")
	}
	j.JWKSRefresh = time.Duration(o.integer("jwks_refresh", int64(DefaultJWKSRefresh/time.Second), 1, maxInt32)) * time.Second
	if !o.has("jwks_url") && !o.has("jwks_file") && o.has("jwks_refresh") {
		d.errorf(o.at("jwks_refresh"), "needs \"jwks_url\" or \"jwks_file\"")
	}
	d.jwtAlgorithms(o, j)
	j.Issuer = o.str("issuer", "")
	j.Audience = d.strOrList(o, "audience")
	if s := o.integer("leeway", int64(DefaultJWTLeeway/time.Second), 0, 3600); s > 0 {
		j.Leeway = time.Duration(s) * time.Second
	} else {
		j.Leeway = -1
	}
	j.AuthIDClaim = o.str("authid_claim", "sub")
	j.AuthRoleClaim = o.str("authrole_claim", "")
	j.AuthRole = o.str("authrole", "")
	j.AllowedRoles = o.strList("allowed_roles")
	switch {
	case j.AuthRoleClaim != "" && j.AuthRole != "":
		d.errorf(o.at("authrole"), "give \"authrole_claim\" or \"authrole\", not both")
	case j.AuthRoleClaim == "" && j.AuthRole == "":
		d.errorf(o.path, "give \"authrole_claim\" (a claim holding the role) or \"authrole\" (one role for every token)")
	case j.AuthRoleClaim != "" && len(j.AllowedRoles) == 0:
		d.errorf(o.at("allowed_roles"), "required with \"authrole_claim\": the roles a token may claim")
	}
	o.done()
	return j
}

// jwtAlgorithms decodes "algorithms" and checks them against the one key
// source: HMAC algorithms with "secret", the others with a public key, so
// that no token can pass an HMAC over a public key (algorithm confusion).
func (d *decoder) jwtAlgorithms(o *object, j *JWTAuth) {
	n := 0
	for _, set := range []bool{o.has("secret"), o.has("public_key"), o.has("jwks_file"), o.has("jwks_url")} {
		if set {
			n++
		}
	}
	if n != 1 {
		d.errorf(o.path, "give exactly one of \"secret\", \"public_key\", \"jwks_file\" and \"jwks_url\"")
	}
	if !o.has("algorithms") {
		o.get("algorithms")
		o.required("algorithms")
		return
	}
	j.Algorithms = o.strList("algorithms")
	if len(j.Algorithms) == 0 {
		d.errorf(o.at("algorithms"), "must not be empty")
	}
	want, with := JWTAsymmetricAlgorithms, "a public key"
	if o.has("secret") {
		want, with = JWTHMACAlgorithms, "\"secret\""
	}
	for i, a := range j.Algorithms {
		p := o.at("algorithms") + "[" + strconv.Itoa(i) + "]"
		switch {
		case strings.EqualFold(a, "none"):
			d.errorf(p, "\"none\" is never accepted: it means no signature")
		case !slices.Contains(want, a):
			d.errorf(p, "%q does not go with %s (want one of %s)", a, with, strings.Join(want, ", "))
		}
	}
}

// strOrList decodes a string or a list of strings at key k.
func (d *decoder) strOrList(o *object, k string) []string {
	v, ok := o.get(k)
	if !ok {
		return nil
	}
	if s, isStr := v.(string); isStr {
		s, _ = d.str(o.at(k), s)
		return []string{s}
	}
	return o.strList(k)
}

// errorStatus decodes "error_status": a boolean, or an object of error
// URIs and HTTP statuses (which turns it on).
func (d *decoder) errorStatus(oo *object) ErrorStatus {
	v, ok := oo.get("error_status")
	if !ok {
		return ErrorStatus{}
	}
	if _, isMap := v.(map[string]any); !isMap {
		return ErrorStatus{On: oo.boolean("error_status", false)}
	}
	es := ErrorStatus{On: true, Statuses: map[string]int{}}
	oo.each("error_status", func(p, uri string, v any) {
		if !looseURI(uri) {
			d.errorf(p, "invalid error URI %q", uri)
		}
		n, ok := d.integer(p, v)
		if ok && (n < 400 || n > 599) {
			d.errorf(p, "must be an HTTP error status (400..599), not %d", n)
		}
		es.Statuses[uri] = int(n)
	})
	return es
}

// ErrorStatus is a caller's or publisher's "options.error_status" (a
// Junction extension): WAMP errors answered with the HTTP bridge's status
// table (On), Statuses adding or overriding rows by error URI.
type ErrorStatus struct {
	On       bool
	Statuses map[string]int
}
