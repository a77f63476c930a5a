package httpauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// t0 is the tests' clock.
var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return t0 }

// claims are a token's claims: the registered ones and the others.
type claims struct {
	jwt.Claims
	Role string `json:"role,omitempty"`
}

// validClaims are alice's, valid at t0 for audience "api" from issuer
// "https://issuer.example".
func validClaims() claims {
	return claims{Claims: jwt.Claims{Subject: "alice", Issuer: "https://issuer.example", Audience: jwt.Audience{"api"},
		Expiry: jwt.NewNumericDate(t0.Add(time.Hour)), NotBefore: jwt.NewNumericDate(t0.Add(-time.Minute))}, Role: "user"}
}

// sign signs c with key under alg, with key ID kid ("" for none).
func sign(t testing.TB, alg jose.SignatureAlgorithm, key any, kid string, c claims) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if kid != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// unsigned is c as an "alg": "none" token.
func unsigned(t testing.TB, c claims) string {
	t.Helper()
	payload, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(payload) + "."
}

func rsaKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func ecKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// publicPEM is the PKIX PEM of pub.
func publicPEM(t testing.TB, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// jwksOf is the key set of the public keys, by key ID.
func jwksOf(t testing.TB, keys map[string]any) []byte {
	t.Helper()
	var set jose.JSONWebKeySet
	for kid, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k, KeyID: kid, Use: "sig"})
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// request is a GET with the Authorization header h ("" for none).
func request(h string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/call", nil)
	if h != "" {
		r.Header.Set("Authorization", h)
	}
	return r
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func mustNew(t testing.TB, o Options) *Resolver {
	t.Helper()
	if o.Now == nil {
		o.Now = fixedNow
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func numeric(t time.Time) *jwt.NumericDate { return jwt.NewNumericDate(t) }

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// tamper changes the payload of a token, keeping its signature.
func tamper(token string) string {
	parts := strings.Split(token, ".")
	p, _ := base64.RawURLEncoding.DecodeString(parts[1])
	p = bytes.Replace(p, []byte(`"alice"`), []byte(`"admin"`), 1)
	parts[1] = base64.RawURLEncoding.EncodeToString(p)
	return strings.Join(parts, ".")
}
