package httpauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// Resolver gives the identity of a request. Immutable after New but for
// its caches and counters; safe for concurrent use.
type Resolver struct {
	jwt        *verifier              // nil: no JWT
	keys       map[[32]byte]Principal // API keys by their SHA-256
	keyHeader  string
	queryToken bool
	basic      map[string]basicUser
	optional   bool
	challenges []string // of a 401 without credentials
	log        *slog.Logger
	logLimit   lograte.Limit
	failures   atomic.Uint64
}

// basicUser is a BasicUser with its password hashed, compared in
// constant time.
type basicUser struct {
	hash [32]byte
	role string
}

// New returns the Resolver of o, or an error naming the option at fault.
func New(o Options) (*Resolver, error) {
	if o.JWT == nil && len(o.APIKeys) == 0 && len(o.Basic) == 0 {
		return nil, errors.New("httpauth: no method: give jwt, api_keys or basic")
	}
	r := &Resolver{keyHeader: o.APIKeyHeader, queryToken: o.QueryToken && (o.JWT != nil || len(o.APIKeys) > 0), optional: o.Optional, log: o.Logger, logLimit: lograte.Limit{Interval: logEvery}}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if o.JWT != nil {
		v, err := newVerifier(o.JWT, o.HTTPClient, o.Now, r.log)
		if err != nil {
			return nil, err
		}
		r.jwt = v
	}
	var err error
	if r.keys, err = hashKeys(o.APIKeys); err != nil {
		return nil, err
	}
	r.basic = make(map[string]basicUser, len(o.Basic))
	for id, u := range o.Basic {
		r.basic[id] = basicUser{sha256.Sum256([]byte(u.Password)), u.AuthRole}
	}
	r.challenges = challenges(o)
	return r, nil
}

// hashKeys maps each API key, or its "sha256:HEX" form, to its SHA-256.
func hashKeys(keys map[string]Principal) (map[[32]byte]Principal, error) {
	out := make(map[[32]byte]Principal, len(keys))
	for k, p := range keys {
		var h [32]byte
		if hx, ok := strings.CutPrefix(k, "sha256:"); ok {
			b, err := hex.DecodeString(hx)
			if err != nil || len(b) != len(h) {
				return nil, fmt.Errorf("httpauth: api_keys: %q: want sha256: and 64 hex digits", k)
			}
			copy(h[:], b)
		} else {
			h = sha256.Sum256([]byte(k))
		}
		out[h] = p
	}
	return out, nil
}

// challenges are the WWW-Authenticate values of a 401 without
// credentials: Bearer when tokens or API keys are accepted, Basic when
// users are.
func challenges(o Options) []string {
	realm := o.Realm
	if realm == "" {
		realm = DefaultRealm
	}
	var c []string
	if o.JWT != nil || len(o.APIKeys) > 0 {
		c = append(c, fmt.Sprintf("Bearer realm=%q", realm))
	}
	if len(o.Basic) > 0 {
		c = append(c, fmt.Sprintf("Basic realm=%q, charset=\"UTF-8\"", realm))
	}
	return c
}

// Resolve returns the identity of r's credentials, nil when it has none
// and they are optional (the service's own identity then applies), or an
// *Error. Failures are counted (Failures) and logged, rate-limited.
func (rs *Resolver) Resolve(r *http.Request) (*wamp.Identity, error) {
	id, err := rs.resolve(r)
	if err != nil {
		rs.failed(r, err)
		return nil, err
	}
	return id, nil
}

// Failures returns how many requests were refused for their credentials.
func (rs *Resolver) Failures() uint64 { return rs.failures.Load() }

func (rs *Resolver) resolve(r *http.Request) (*wamp.Identity, error) {
	if rs.keyHeader != "" && len(rs.keys) > 0 {
		if v := r.Header.Get(rs.keyHeader); v != "" {
			return rs.apiKey(v)
		}
	}
	h := r.Header.Get("Authorization")
	if h == "" && rs.queryToken {
		if v := r.URL.Query().Get("access_token"); v != "" {
			return rs.bearer(r, v)
		}
	}
	if h == "" {
		if rs.optional {
			return nil, nil
		}
		return nil, &Error{Status: http.StatusUnauthorized, Text: textRequired, Challenges: rs.challenges}
	}
	scheme, value, _ := strings.Cut(h, " ")
	value = strings.TrimLeft(value, " ")
	switch {
	case strings.EqualFold(scheme, "Bearer") && (rs.jwt != nil || len(rs.keys) > 0):
		return rs.bearer(r, value)
	case strings.EqualFold(scheme, "Basic") && len(rs.basic) > 0:
		return rs.basicAuth(value)
	}
	return nil, rs.refusal("", textMalformed, fmt.Errorf("httpauth: scheme %q not accepted", scheme))
}

// bearer checks a bearer token: a JWT when it has three dot-separated
// parts and JWTs are accepted, an API key otherwise.
func (rs *Resolver) bearer(r *http.Request, token string) (*wamp.Identity, error) {
	if rs.jwt != nil && (len(rs.keys) == 0 || strings.Count(token, ".") == 2) {
		id, err := rs.jwt.verify(r.Context(), token)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return nil, e
			}
			return nil, rs.refusal("invalid_token", textInvalidToken, err)
		}
		return id, nil
	}
	return rs.apiKey(token)
}

func (rs *Resolver) apiKey(key string) (*wamp.Identity, error) {
	p, ok := rs.keys[sha256.Sum256([]byte(key))]
	if !ok {
		return nil, rs.refusal("invalid_token", textInvalidToken, errors.New("httpauth: unknown API key"))
	}
	return &wamp.Identity{AuthID: p.AuthID, AuthRole: p.AuthRole}, nil
}

// basicAuth checks HTTP Basic credentials. An unknown user costs the same
// comparison as a wrong password.
func (rs *Resolver) basicAuth(value string) (*wamp.Identity, error) {
	b, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		return nil, rs.refusal("", textMalformed, fmt.Errorf("httpauth: basic: %w", err))
	}
	user, pass, ok := strings.Cut(string(b), ":")
	if !ok {
		return nil, rs.refusal("", textMalformed, errors.New("httpauth: basic: no colon"))
	}
	u, known := rs.basic[user]
	got := sha256.Sum256([]byte(pass))
	if subtle.ConstantTimeCompare(got[:], u.hash[:]) != 1 || !known {
		return nil, rs.refusal("", textInvalidBasic, fmt.Errorf("httpauth: basic: user %q: wrong password or no such user", user))
	}
	return &wamp.Identity{AuthID: user, AuthRole: u.role}, nil
}

// refusal is a 401 for wrong credentials: the Bearer challenge gets the
// RFC 6750 error code.
func (rs *Resolver) refusal(code, text string, cause error) *Error {
	c := make([]string, 0, len(rs.challenges))
	for _, ch := range rs.challenges {
		if code != "" && strings.HasPrefix(ch, "Bearer ") {
			ch += fmt.Sprintf(", error=%q, error_description=%q", code, text)
		}
		c = append(c, ch)
	}
	return &Error{Status: http.StatusUnauthorized, Code: code, Text: text, Challenges: c, Cause: cause}
}

// failed counts and logs a refusal, at most one line per logEvery with
// how many were held back.
func (rs *Resolver) failed(r *http.Request, err error) {
	rs.failures.Add(1)
	if ok, held := rs.logLimit.Allow(); ok {
		rs.log.Warn("bridge: request refused for its credentials", "peer", r.RemoteAddr, "path", r.URL.Path,
			"err", err, "held_back", held)
	}
}

// forbidden is the 403 of a token whose role is not allowed.
func forbidden(role string) *Error {
	return &Error{Status: http.StatusForbidden, Code: "insufficient_scope", Text: textRole,
		Cause: fmt.Errorf("httpauth: role %q not in allowed_roles", role)}
}

// now is the clock of o.
func clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}
