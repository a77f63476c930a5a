package httpauth

import (
	"log/slog"
	"net/http"
	"time"
)

// Defaults of the options.
const (
	// DefaultLeeway is the clock skew allowed on exp and nbf when
	// JWTOptions.Leeway is 0.
	DefaultLeeway = 30 * time.Second
	// DefaultJWKSRefresh is how long a jwks_url's keys are used before
	// they are fetched again, when JWTOptions.JWKSRefresh is 0.
	DefaultJWKSRefresh = time.Hour
	// DefaultRealm is the realm of WWW-Authenticate when Options.Realm is
	// empty.
	DefaultRealm = "junction"
	// jwksMinGap is the shortest time between two fetches of a jwks_url
	// for tokens with an unknown key ID, so that made-up key IDs cannot
	// make the node hammer the key server.
	jwksMinGap = 10 * time.Second
	// jwksTimeout bounds one fetch of a jwks_url.
	jwksTimeout = 10 * time.Second
	// logEvery is the shortest interval between two lines about failed
	// credentials.
	logEvery = 10 * time.Second
)

// Options configure a Resolver. At least one of JWT, APIKeys and Basic
// must be set.
type Options struct {
	// JWT verifies bearer tokens that are JWTs; nil: none.
	JWT *JWTOptions
	// APIKeys are the API keys, each a key (or "sha256:" and the hex of
	// its SHA-256) mapped to the identity it stands for.
	APIKeys map[string]Principal
	// APIKeyHeader, when set, is a header that carries an API key, read
	// before Authorization.
	APIKeyHeader string
	// Basic are the users of HTTP Basic, by authid.
	Basic map[string]BasicUser
	// QueryToken also reads a bearer value (a JWT or an API key) from the
	// access_token query parameter, when the request has no
	// Authorization header: for clients that cannot set headers (a
	// browser's EventSource). Off by default: a URL ends up in logs and
	// browser histories.
	QueryToken bool
	// Optional: a request without credentials gets no identity (Resolve
	// returns nil: the service's own). By default it gets 401. Wrong
	// credentials get 401 either way.
	Optional bool
	// Realm is the realm of WWW-Authenticate; "" means DefaultRealm.
	Realm string
	// HTTPClient fetches JWTOptions.JWKSURL; nil means a client with a
	// timeout of jwksTimeout.
	HTTPClient *http.Client
	// Logger receives the failures, rate-limited; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Principal is who an API key or a JWT stands for.
type Principal struct {
	AuthID, AuthRole string
}

// BasicUser is a user of HTTP Basic: its password (a ticket principal's
// ticket, a WAMP-CRA user's secret) and its role.
type BasicUser struct {
	Password string
	AuthRole string
}

// JWTOptions configure the verification of JWTs. Exactly one key source
// is set: Secret, PublicKey, JWKS (with or without JWKSFile), JWKSFile
// or JWKSURL.
type JWTOptions struct {
	// Algorithms are the accepted "alg" values (required): HS256, HS384,
	// HS512 with Secret; RS*, PS*, ES*, EdDSA with the others. "none" is
	// never accepted.
	Algorithms []string
	// Secret is the HMAC key.
	Secret []byte
	// PublicKey is a PEM public key (PKIX or PKCS#1) or certificate.
	PublicKey []byte
	// JWKS is a JSON Web Key Set document (a jwks_file's content).
	JWKS []byte
	// JWKSFile is a JSON Web Key Set file: read when the Resolver is
	// built (unless JWKS holds its content already), again every
	// JWKSRefresh, and when a token names a key ID it lacks (at most
	// once per jwksMinGap), as JWKSURL is fetched.
	JWKSFile string
	// JWKSURL is where the key set is fetched: on the first token, again
	// once it is older than JWKSRefresh, and when a token names a key ID
	// it lacks (at most once per jwksMinGap).
	JWKSURL string
	// JWKSRefresh (JWKSURL, JWKSFile): 0 means DefaultJWKSRefresh.
	JWKSRefresh time.Duration
	// Issuer, when set, must equal "iss".
	Issuer string
	// Audience, when set, must meet "aud" (one of them).
	Audience []string
	// Leeway is the clock skew allowed on exp and nbf: 0 means
	// DefaultLeeway, negative none.
	Leeway time.Duration
	// AuthIDClaim is the claim holding the authid; "" means "sub".
	AuthIDClaim string
	// AuthRoleClaim is the claim holding the authrole (a string); or
	// AuthRole is the role of every token. One of them is required.
	AuthRoleClaim, AuthRole string
	// AllowedRoles are the roles a token may have (required with
	// AuthRoleClaim); a token with another gets 403.
	AllowedRoles []string
}
