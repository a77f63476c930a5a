package httpauth

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp"
)

var hmacSecret = []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

// hsOptions accept HS256 tokens from the test issuer for audience "api".
func hsOptions() *JWTOptions {
	return &JWTOptions{Algorithms: []string{"HS256"}, Secret: hmacSecret, Issuer: "https://issuer.example",
		Audience: []string{"api"}, AuthRoleClaim: "role", AllowedRoles: []string{"user"}}
}

// outcome is what a table row expects: an identity, or a refusal status
// with its RFC 6750 code.
type outcome struct {
	id     *wamp.Identity
	status int
	code   string
}

var aliceUser = &wamp.Identity{AuthID: "alice", AuthRole: "user"}

func check(t *testing.T, r *Resolver, req *http.Request, want outcome) {
	t.Helper()
	id, err := r.Resolve(req)
	if want.status == 0 {
		if err != nil || id == nil || *id != *want.id {
			t.Fatalf("Resolve = %+v, %v; want %+v", id, err, want.id)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) || e.Status != want.status || e.Code != want.code {
		t.Fatalf("Resolve = %+v, %v; want status %d code %q", id, err, want.status, want.code)
	}
	if e.Status == http.StatusUnauthorized && len(e.Challenges) == 0 {
		t.Fatalf("401 without WWW-Authenticate: %+v", e)
	}
}

func TestJWTHMAC(t *testing.T) {
	r := mustNew(t, Options{JWT: hsOptions()})
	expired := validClaims()
	expired.Claims.Expiry = numeric(t0.Add(-time.Minute))
	withinLeeway := validClaims()
	withinLeeway.Claims.Expiry = numeric(t0.Add(-10 * time.Second))
	noExp := validClaims()
	noExp.Claims.Expiry = nil
	early := validClaims()
	early.Claims.NotBefore = numeric(t0.Add(time.Minute))
	otherAud := validClaims()
	otherAud.Claims.Audience = []string{"other"}
	otherIss := validClaims()
	otherIss.Claims.Issuer = "https://evil.example"
	admin := validClaims()
	admin.Role = "admin"
	noRole := validClaims()
	noRole.Role = ""
	noSub := validClaims()
	noSub.Subject = ""
	invalid := outcome{status: 401, code: "invalid_token"}
	for name, tt := range map[string]struct {
		token string
		want  outcome
	}{
		"valid":              {sign(t, jose.HS256, hmacSecret, "", validClaims()), outcome{id: aliceUser}},
		"expired":            {sign(t, jose.HS256, hmacSecret, "", expired), invalid},
		"expired, in leeway": {sign(t, jose.HS256, hmacSecret, "", withinLeeway), outcome{id: aliceUser}},
		"no exp":             {sign(t, jose.HS256, hmacSecret, "", noExp), invalid},
		"not yet valid":      {sign(t, jose.HS256, hmacSecret, "", early), invalid},
		"wrong audience":     {sign(t, jose.HS256, hmacSecret, "", otherAud), invalid},
		"wrong issuer":       {sign(t, jose.HS256, hmacSecret, "", otherIss), invalid},
		"wrong signature":    {sign(t, jose.HS256, []byte("another secret, 64 bytes long!!!another secret, 64 bytes long!!!"), "", validClaims()), invalid},
		"alg none":           {unsigned(t, validClaims()), invalid},
		"HS512 not allowed":  {sign(t, jose.HS512, hmacSecret, "", validClaims()), invalid},
		"role not allowed":   {sign(t, jose.HS256, hmacSecret, "", admin), outcome{status: 403, code: "insufficient_scope"}},
		"no role":            {sign(t, jose.HS256, hmacSecret, "", noRole), invalid},
		"no sub":             {sign(t, jose.HS256, hmacSecret, "", noSub), invalid},
		"garbage":            {"a.b.c", invalid},
		"tampered payload":   {tamper(sign(t, jose.HS256, hmacSecret, "", validClaims())), invalid},
	} {
		t.Run(name, func(t *testing.T) { check(t, r, request("Bearer "+tt.token), tt.want) })
	}
}

func TestJWTRSA(t *testing.T) {
	rk, ek := rsaKey(t), ecKey(t)
	pemKey := publicPEM(t, &rk.PublicKey)
	o := hsOptions()
	o.Secret, o.PublicKey, o.Algorithms = nil, pemKey, []string{"RS256"}
	r := mustNew(t, Options{JWT: o})
	for name, tt := range map[string]struct {
		token string
		want  outcome
	}{
		"valid": {sign(t, jose.RS256, rk, "", validClaims()), outcome{id: aliceUser}},
		// HS/RS confusion: an HMAC over the public key's own PEM text.
		"HS256 with the public key as secret": {sign(t, jose.HS256, pemKey, "", validClaims()), outcome{status: 401, code: "invalid_token"}},
		"another key":                         {sign(t, jose.RS256, rsaKey(t), "", validClaims()), outcome{status: 401, code: "invalid_token"}},
		"ES256 not allowed":                   {sign(t, jose.ES256, ek, "", validClaims()), outcome{status: 401, code: "invalid_token"}},
		"alg none":                            {unsigned(t, validClaims()), outcome{status: 401, code: "invalid_token"}},
	} {
		t.Run(name, func(t *testing.T) { check(t, r, request("Bearer "+tt.token), tt.want) })
	}
}

// TestJWTConfusionRefusedAtBuild: an allow-list that mixes HMAC with a
// public key, or names "none", is a configuration error.
func TestJWTOptionsErrors(t *testing.T) {
	pemKey := publicPEM(t, &rsaKey(t).PublicKey)
	for name, tt := range map[string]struct {
		o    JWTOptions
		want string
	}{
		"none":               {JWTOptions{Algorithms: []string{"none"}, Secret: hmacSecret, AuthRole: "user"}, `"none" is never accepted`},
		"RS256 with secret":  {JWTOptions{Algorithms: []string{"RS256"}, Secret: hmacSecret, AuthRole: "user"}, `"RS256" does not go with secret`},
		"HS256 with a key":   {JWTOptions{Algorithms: []string{"HS256"}, PublicKey: pemKey, AuthRole: "user"}, `"HS256" does not go with a public key`},
		"no algorithms":      {JWTOptions{Secret: hmacSecret, AuthRole: "user"}, "algorithms: required"},
		"two key sources":    {JWTOptions{Algorithms: []string{"RS256"}, PublicKey: pemKey, JWKSURL: "http://127.0.0.1/", AuthRole: "user"}, "exactly one of"},
		"no role":            {JWTOptions{Algorithms: []string{"HS256"}, Secret: hmacSecret}, "authrole_claim or authrole"},
		"role claim unbound": {JWTOptions{Algorithms: []string{"HS256"}, Secret: hmacSecret, AuthRoleClaim: "role"}, "allowed_roles: required"},
		"bad PEM":            {JWTOptions{Algorithms: []string{"RS256"}, PublicKey: []byte("nope"), AuthRole: "user"}, "no PEM block"},
		"symmetric JWKS":     {JWTOptions{Algorithms: []string{"RS256"}, JWKS: jwksOf(t, map[string]any{"k": hmacSecret}), AuthRole: "user"}, "symmetric key"},
	} {
		t.Run(name, func(t *testing.T) {
			o := tt.o
			_, err := New(Options{JWT: &o})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestJWKSFile(t *testing.T) {
	k1, k2 := rsaKey(t), ecKey(t)
	o := hsOptions()
	o.Secret, o.Algorithms = nil, []string{"RS256", "ES256"}
	o.JWKS = jwksOf(t, map[string]any{"k1": &k1.PublicKey, "k2": &k2.PublicKey})
	r := mustNew(t, Options{JWT: o})
	check(t, r, request("Bearer "+sign(t, jose.RS256, k1, "k1", validClaims())), outcome{id: aliceUser})
	check(t, r, request("Bearer "+sign(t, jose.ES256, k2, "k2", validClaims())), outcome{id: aliceUser})
	check(t, r, request("Bearer "+sign(t, jose.ES256, k2, "", validClaims())), outcome{id: aliceUser})
	// Key k1's ID on a token that k2 signed, and an unknown key ID.
	check(t, r, request("Bearer "+sign(t, jose.ES256, k2, "k1", validClaims())), outcome{status: 401, code: "invalid_token"})
	check(t, r, request("Bearer "+sign(t, jose.RS256, k1, "k9", validClaims())), outcome{status: 401, code: "invalid_token"})
}

func TestAPIKeys(t *testing.T) {
	bob := &wamp.Identity{AuthID: "bob", AuthRole: "service"}
	r := mustNew(t, Options{APIKeys: map[string]Principal{
		"k-alice": {"alice", "user"},
		// sha256("k-bob")
		"sha256:" + sha256Hex("k-bob"): {"bob", "service"},
	}, APIKeyHeader: "X-API-Key"})
	check(t, r, request("Bearer k-alice"), outcome{id: aliceUser})
	check(t, r, request("bearer k-bob"), outcome{id: bob})
	check(t, r, request("Bearer k-eve"), outcome{status: 401, code: "invalid_token"})
	check(t, r, request("Bearer "+sha256Hex("k-bob")), outcome{status: 401, code: "invalid_token"})
	h := request("")
	h.Header.Set("X-API-Key", "k-bob")
	check(t, r, h, outcome{id: bob})
	check(t, r, request(""), outcome{status: 401})
	check(t, r, request(basic("alice", "k-alice")), outcome{status: 401}) // no Basic here
	if _, err := New(Options{APIKeys: map[string]Principal{"sha256:abc": {"x", "y"}}}); err == nil {
		t.Fatal("New accepted a short sha256 key")
	}
}

// TestBearerRule: with both JWTs and API keys, a bearer value of three
// dot-separated parts is a JWT, anything else an API key.
func TestBearerRule(t *testing.T) {
	r := mustNew(t, Options{JWT: hsOptions(), APIKeys: map[string]Principal{"k.alice": {"alice", "user"}, "a.b.c": {"x", "user"}}})
	check(t, r, request("Bearer "+sign(t, jose.HS256, hmacSecret, "", validClaims())), outcome{id: aliceUser})
	check(t, r, request("Bearer k.alice"), outcome{id: aliceUser})
	check(t, r, request("Bearer a.b.c"), outcome{status: 401, code: "invalid_token"}) // checked as a JWT
}

func TestBasic(t *testing.T) {
	r := mustNew(t, Options{Basic: map[string]BasicUser{"alice": {Password: "s3cret", AuthRole: "user"}}})
	check(t, r, request(basic("alice", "s3cret")), outcome{id: aliceUser})
	check(t, r, request(basic("alice", "wrong")), outcome{status: 401})
	check(t, r, request(basic("mallory", "s3cret")), outcome{status: 401})
	check(t, r, request(basic("alice", "")), outcome{status: 401})
	check(t, r, request("Basic !!!"), outcome{status: 401})
	check(t, r, request("Bearer x"), outcome{status: 401})
	_, err := r.Resolve(request(""))
	var e *Error
	if !errors.As(err, &e) || len(e.Challenges) != 1 || !strings.HasPrefix(e.Challenges[0], `Basic realm="junction"`) {
		t.Fatalf("no credentials: %v, want a Basic challenge", err)
	}
}

// TestRequired: without credentials, 401 with a challenge per scheme (no
// error code, as RFC 6750 3.1 says), or, when optional, no identity;
// wrong credentials get 401 either way.
func TestRequired(t *testing.T) {
	o := Options{JWT: hsOptions(), Basic: map[string]BasicUser{"alice": {"pw", "user"}}, Realm: "api"}
	r := mustNew(t, o)
	_, err := r.Resolve(request(""))
	var e *Error
	if !errors.As(err, &e) || e.Status != 401 || e.Code != "" {
		t.Fatalf("no credentials: %v", err)
	}
	if want := []string{`Bearer realm="api"`, `Basic realm="api", charset="UTF-8"`}; strings.Join(e.Challenges, "|") != strings.Join(want, "|") {
		t.Fatalf("challenges %q, want %q", e.Challenges, want)
	}
	_, err = r.Resolve(request("Bearer a.b.c"))
	if !errors.As(err, &e) || !strings.Contains(e.Challenges[0], `error="invalid_token"`) {
		t.Fatalf("bad token: %v, want error=\"invalid_token\" in the challenge", err)
	}
	o.Optional = true
	r = mustNew(t, o)
	if id, err := r.Resolve(request("")); id != nil || err != nil {
		t.Fatalf("optional, no credentials: %v, %v; want nil, nil", id, err)
	}
	check(t, r, request(basic("alice", "nope")), outcome{status: 401})
}

// TestTokenCache: a verified token is kept until it expires; expired, it
// is refused again.
func TestTokenCache(t *testing.T) {
	now := t0
	o := hsOptions()
	r, err := New(Options{JWT: o, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	c := validClaims()
	c.Claims.Expiry = numeric(t0.Add(time.Minute))
	tok := "Bearer " + sign(t, jose.HS256, hmacSecret, "", c)
	check(t, r, request(tok), outcome{id: aliceUser})
	check(t, r, request(tok), outcome{id: aliceUser})
	now = t0.Add(2 * time.Minute) // past exp and the leeway
	check(t, r, request(tok), outcome{status: 401, code: "invalid_token"})
}

// TestFailuresLogged: every refusal is counted; the log has one line per
// interval, the next one saying how many were held back.
func TestFailuresLogged(t *testing.T) {
	var log logtest.Log
	r := mustNew(t, Options{APIKeys: map[string]Principal{"k": {"alice", "user"}}, Logger: log.Logger(0)})
	for range 5 {
		r.Resolve(request("Bearer wrong"))
	}
	check(t, r, request("Bearer k"), outcome{id: aliceUser})
	if got := r.Failures(); got != 5 {
		t.Fatalf("Failures = %d, want 5", got)
	}
	lines := log.Lines(t, "bridge: request refused for its credentials")
	if len(lines) != 1 || lines[0]["level"] != "WARN" {
		t.Fatalf("log: %s", log.String())
	}
	if s := log.String(); strings.Contains(s, "wrong\"") && !strings.Contains(s, "unknown API key") {
		t.Fatalf("log shows the key: %s", s)
	}
}

// TestQueryToken: with QueryToken, a bearer value may come as the
// access_token query parameter (the Authorization header first); without,
// the parameter is ignored.
func TestQueryToken(t *testing.T) {
	o := Options{JWT: hsOptions(), APIKeys: map[string]Principal{"k-alice": {"alice", "user"}}, QueryToken: true}
	r := mustNew(t, o)
	tok := sign(t, jose.HS256, hmacSecret, "", validClaims())
	q := func(v string) *http.Request {
		req := request("")
		req.URL.RawQuery = "topic=com.x&access_token=" + v
		return req
	}
	check(t, r, q(tok), outcome{id: aliceUser})
	check(t, r, q("k-alice"), outcome{id: aliceUser})
	check(t, r, q("k-eve"), outcome{status: 401, code: "invalid_token"})
	both := q("k-eve")
	both.Header.Set("Authorization", "Bearer k-alice")
	check(t, r, both, outcome{id: aliceUser})
	o.QueryToken = false
	check(t, mustNew(t, o), q("k-alice"), outcome{status: 401})
}
