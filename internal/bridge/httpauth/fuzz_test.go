package httpauth

import (
	"errors"
	"net/http"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// FuzzResolve: no Authorization or API key header makes Resolve panic,
// and every answer is an identity or an *Error.
func FuzzResolve(f *testing.F) {
	r := mustNew(f, Options{JWT: hsOptions(), APIKeys: map[string]Principal{"k-alice": {"alice", "user"}},
		APIKeyHeader: "X-API-Key", Basic: map[string]BasicUser{"alice": {"pw", "user"}}})
	for _, s := range []string{"", "Bearer k-alice", "Bearer a.b.c", "Bearer ..", basic("alice", "pw"), "Basic", "Basic ===",
		"Bearer " + sign(f, jose.HS256, hmacSecret, "", validClaims()), "Bearer " + unsigned(f, validClaims()), "Digest x"} {
		f.Add(s, "")
	}
	f.Add("", "k-alice")
	f.Fuzz(func(t *testing.T, authz, key string) {
		req := request("")
		req.Header["Authorization"] = []string{authz}
		if key != "" {
			req.Header["X-Api-Key"] = []string{key}
		}
		id, err := r.Resolve(req)
		var e *Error
		switch {
		case err == nil && id == nil:
			t.Fatal("no identity and no error with credentials required")
		case err != nil && (!errors.As(err, &e) || (e.Status != http.StatusUnauthorized && e.Status != http.StatusForbidden)):
			t.Fatalf("error %v is not a 401 or 403 *Error", err)
		}
	})
}

// FuzzKeys: no key set or PEM document makes the parsers panic, and a key
// set they accept holds only valid public keys.
func FuzzKeys(f *testing.F) {
	rk, ek := rsaKey(f), ecKey(f)
	f.Add(jwksOf(f, map[string]any{"k1": &rk.PublicKey, "k2": &ek.PublicKey}))
	f.Add(jwksOf(f, map[string]any{"k": hmacSecret}))
	f.Add(publicPEM(f, &rk.PublicKey))
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"","y":""}]}`))
	f.Add([]byte(`{"keys":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsePublicKey(data)
		ks, err := parseJWKS(data)
		if err != nil {
			return
		}
		for _, k := range ks {
			if !k.IsPublic() || !k.Valid() {
				t.Fatalf("accepted key %+v", k)
			}
			if _, ok := k.Key.([]byte); ok {
				t.Fatalf("accepted a symmetric key %+v", k)
			}
		}
	})
}
