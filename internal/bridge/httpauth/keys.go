package httpauth

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/junction-wamp/junction/wamp"
)

// maxJWKS bounds a key set document.
const maxJWKS = 1 << 20

// parsePublicKey reads a PEM public key: PKIX ("PUBLIC KEY"), PKCS#1
// ("RSA PUBLIC KEY") or a certificate's.
func parsePublicKey(data []byte) (any, error) {
	b, _ := pem.Decode(data)
	if b == nil {
		return nil, errors.New("httpauth: jwt: public_key: no PEM block")
	}
	switch b.Type {
	case "PUBLIC KEY":
		return x509.ParsePKIXPublicKey(b.Bytes)
	case "RSA PUBLIC KEY":
		return x509.ParsePKCS1PublicKey(b.Bytes)
	case "CERTIFICATE":
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("httpauth: jwt: public_key: %w", err)
		}
		return c.PublicKey, nil
	}
	return nil, fmt.Errorf("httpauth: jwt: public_key: PEM block %q is not a public key", b.Type)
}

// parseJWKS reads a key set and keeps the public keys of its signing
// keys: a private key is reduced to its public half, and a symmetric key
// is refused (a key set is for public keys; use secret for HMAC).
func parseJWKS(data []byte) ([]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	out := make([]jose.JSONWebKey, 0, len(set.Keys))
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if _, ok := k.Key.([]byte); ok {
			return nil, fmt.Errorf("key %q: a symmetric key in a key set (give it as secret)", k.KeyID)
		}
		if !k.IsPublic() {
			k = k.Public()
		}
		if !k.Valid() {
			return nil, fmt.Errorf("key %q: not a valid public key", k.KeyID)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, errors.New("no signing key")
	}
	return out, nil
}

// maxCachedTokens bounds the tokens a verifier keeps.
const maxCachedTokens = 4096

// tokenCache keeps verified tokens until they expire, by their SHA-256
// (the token itself is not kept), each with the version of the key set
// that verified it: once the set has another version (a refresh removed
// or changed a key), the token is verified again, so that a token whose
// key is gone is refused at once. Safe for concurrent use.
type tokenCache struct {
	mu sync.Mutex // guards m
	m  map[[32]byte]cachedToken
}

type cachedToken struct {
	id      *wamp.Identity
	until   time.Time
	version uint64 // of the key set that verified it
}

// get returns the identity of token if it was verified by the key set of
// version and is not expired at now.
func (c *tokenCache) get(token string, now time.Time, version uint64) (*wamp.Identity, bool) {
	k := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[k]
	if !ok || !now.Before(t.until) || t.version != version {
		return nil, false
	}
	return t.id, true
}

// put keeps a token verified by the key set of version until until. A
// full cache drops its expired tokens, or all of them if none has
// expired.
func (c *tokenCache) put(token string, id *wamp.Identity, until, now time.Time, version uint64) {
	k := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[[32]byte]cachedToken)
	}
	if len(c.m) >= maxCachedTokens {
		for k, t := range c.m {
			if !now.Before(t.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCachedTokens {
			clear(c.m)
		}
	}
	c.m[k] = cachedToken{id, until, version}
}
