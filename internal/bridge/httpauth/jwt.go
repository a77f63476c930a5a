package httpauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/junction-wamp/junction/wamp"
)

// verifier checks JWTs. Safe for concurrent use.
type verifier struct {
	algs     []jose.SignatureAlgorithm
	keys     keySource
	expected jwt.Expected
	leeway   time.Duration
	idClaim  string
	// roleClaim, when set, holds the role; else role is every token's.
	roleClaim, role string
	allowed         []string
	now             func() time.Time
	cache           tokenCache
}

// keySource gives the keys that may have signed a token with key ID kid
// ("" for a token without one). current returns the version of the key
// set, which changes when a key is removed or changed: a token verified
// under another version is verified again (tokenCache).
type keySource interface {
	keys(ctx context.Context, kid string) []jose.JSONWebKey
	current() uint64
}

// staticKeys are keys known when the verifier is built.
type staticKeys []jose.JSONWebKey

func (s staticKeys) keys(_ context.Context, kid string) []jose.JSONWebKey { return byKID(s, kid) }

func (staticKeys) current() uint64 { return 0 }

// byKID returns the keys of ks with key ID kid, or all of them for a
// token without one.
func byKID(ks []jose.JSONWebKey, kid string) []jose.JSONWebKey {
	if kid == "" {
		return ks
	}
	var out []jose.JSONWebKey
	for _, k := range ks {
		if k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

func newVerifier(o *JWTOptions, client *http.Client, now func() time.Time, log *slog.Logger) (*verifier, error) {
	algs, err := algorithms(o)
	if err != nil {
		return nil, err
	}
	keys, err := keySourceOf(o, client, clock(now), log)
	if err != nil {
		return nil, err
	}
	if o.AuthRoleClaim == "" && o.AuthRole == "" {
		return nil, errors.New("httpauth: jwt: give authrole_claim or authrole")
	}
	if o.AuthRoleClaim != "" && len(o.AllowedRoles) == 0 {
		return nil, errors.New("httpauth: jwt: allowed_roles: required with authrole_claim")
	}
	v := &verifier{algs: algs, keys: keys, leeway: o.Leeway, idClaim: o.AuthIDClaim,
		roleClaim: o.AuthRoleClaim, role: o.AuthRole, allowed: o.AllowedRoles, now: clock(now)}
	v.expected = jwt.Expected{Issuer: o.Issuer, AnyAudience: o.Audience}
	if v.leeway == 0 {
		v.leeway = DefaultLeeway
	}
	v.leeway = max(v.leeway, 0)
	if v.idClaim == "" {
		v.idClaim = "sub"
	}
	return v, nil
}

// hmacAlgs are the algorithms of an HMAC secret; every other accepted
// algorithm needs a public key.
var hmacAlgs = []string{"HS256", "HS384", "HS512"}

// asymmetricAlgs are the algorithms of public keys.
var asymmetricAlgs = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// algorithms checks the allow-list against the key source: an HMAC secret
// with HS* only, public keys with the others only, so that a token
// signed with HMAC over a public key (HS/RS confusion) is refused by
// the list already.
func algorithms(o *JWTOptions) ([]jose.SignatureAlgorithm, error) {
	if len(o.Algorithms) == 0 {
		return nil, errors.New("httpauth: jwt: algorithms: required")
	}
	want, kind := asymmetricAlgs, "a public key (public_key, jwks_file, jwks_url)"
	if len(o.Secret) > 0 {
		want, kind = hmacAlgs, "secret"
	}
	out := make([]jose.SignatureAlgorithm, 0, len(o.Algorithms))
	for _, a := range o.Algorithms {
		if strings.EqualFold(a, "none") {
			return nil, errors.New("httpauth: jwt: algorithms: \"none\" is never accepted")
		}
		if !slices.Contains(want, a) {
			return nil, fmt.Errorf("httpauth: jwt: algorithms: %q does not go with %s (want one of %s)", a, kind, strings.Join(want, ", "))
		}
		out = append(out, jose.SignatureAlgorithm(a))
	}
	return out, nil
}

// keySourceOf makes the one key source o names.
func keySourceOf(o *JWTOptions, client *http.Client, now func() time.Time, log *slog.Logger) (keySource, error) {
	n := 0
	for _, set := range []bool{len(o.Secret) > 0, len(o.PublicKey) > 0, len(o.JWKS) > 0 || o.JWKSFile != "", o.JWKSURL != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("httpauth: jwt: give exactly one of secret, public_key, jwks_file and jwks_url")
	}
	switch {
	case len(o.Secret) > 0:
		return staticKeys{{Key: o.Secret}}, nil
	case len(o.PublicKey) > 0:
		k, err := parsePublicKey(o.PublicKey)
		if err != nil {
			return nil, err
		}
		return staticKeys{{Key: k}}, nil
	case o.JWKSFile != "":
		return newFileKeys(o.JWKSFile, o.JWKS, o.JWKSRefresh, now, log)
	case len(o.JWKS) > 0:
		ks, err := parseJWKS(o.JWKS)
		if err != nil {
			return nil, fmt.Errorf("httpauth: jwt: jwks_file: %w", err)
		}
		return staticKeys(ks), nil
	}
	return newRemoteKeys(o.JWKSURL, o.JWKSRefresh, client, now, log), nil
}

// verify checks token and returns its identity. Verified tokens are kept
// (tokenCache) until they expire or their key set changes, so that a
// client's next requests cost a hash rather than a signature check. The
// version is read before the check: a token checked while the set
// changes is kept under the old one, and checked again next time.
func (v *verifier) verify(ctx context.Context, token string) (*wamp.Identity, error) {
	now := v.now()
	version := v.keys.current()
	if id, ok := v.cache.get(token, now, version); ok {
		return id, nil
	}
	id, until, err := v.check(ctx, token, now)
	if err != nil {
		return nil, err
	}
	v.cache.put(token, id, until, now, version)
	return id, nil
}

// check verifies token at now, and returns its identity and until when it
// may be used (its exp and the leeway).
func (v *verifier) check(ctx context.Context, token string, now time.Time) (*wamp.Identity, time.Time, error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("httpauth: jwt: %w", err)
	}
	claims, extra, err := v.claims(ctx, tok)
	if err != nil {
		return nil, time.Time{}, err
	}
	if claims.Expiry == nil {
		return nil, time.Time{}, errors.New("httpauth: jwt: no exp claim")
	}
	if err := claims.ValidateWithLeeway(v.expected.WithTime(now), v.leeway); err != nil {
		return nil, time.Time{}, fmt.Errorf("httpauth: jwt: %w", err)
	}
	id, err := v.identity(extra)
	return id, claims.Expiry.Time().Add(v.leeway), err
}

// claims checks tok's signature with the keys its header names and
// decodes its claims.
func (v *verifier) claims(ctx context.Context, tok *jwt.JSONWebToken) (jwt.Claims, map[string]any, error) {
	h := tok.Headers[0]
	for _, k := range v.keys.keys(ctx, h.KeyID) {
		if !fits(h.Algorithm, k.Key) {
			continue
		}
		var claims jwt.Claims
		var extra map[string]any
		if err := tok.Claims(k.Key, &claims, &extra); err == nil {
			return claims, extra, nil
		}
	}
	return jwt.Claims{}, nil, fmt.Errorf("httpauth: jwt: no key (kid %q, alg %s) verifies the signature", h.KeyID, h.Algorithm)
}

// fits reports whether key is of the kind alg signs with.
func fits(alg string, key any) bool {
	switch {
	case strings.HasPrefix(alg, "HS"):
		_, ok := key.([]byte)
		return ok
	case strings.HasPrefix(alg, "RS"), strings.HasPrefix(alg, "PS"):
		_, ok := key.(*rsa.PublicKey)
		return ok
	case strings.HasPrefix(alg, "ES"):
		_, ok := key.(*ecdsa.PublicKey)
		return ok
	case alg == "EdDSA":
		_, ok := key.(ed25519.PublicKey)
		return ok
	}
	return false
}

// identity maps the claims to the identity: authid from idClaim, authrole
// from roleClaim (allowed or refused with 403) or the fixed role.
func (v *verifier) identity(extra map[string]any) (*wamp.Identity, error) {
	authid, ok := extra[v.idClaim].(string)
	if !ok || authid == "" {
		return nil, fmt.Errorf("httpauth: jwt: claim %q is not a non-empty string", v.idClaim)
	}
	if v.roleClaim == "" {
		return &wamp.Identity{AuthID: authid, AuthRole: v.role}, nil
	}
	role, ok := extra[v.roleClaim].(string)
	if !ok {
		return nil, fmt.Errorf("httpauth: jwt: claim %q is not a string", v.roleClaim)
	}
	if !slices.Contains(v.allowed, role) {
		return nil, forbidden(role)
	}
	return &wamp.Identity{AuthID: authid, AuthRole: role}, nil
}
