package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"strings"
)

// sum returns HMAC(key, parts joined with no separator) using hash h.
func sum(h func() hash.Hash, key []byte, parts ...[]byte) []byte {
	m := hmac.New(h, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// sum256 is sum with SHA-256 and a string key.
func sum256(secret string, parts ...[]byte) []byte {
	return sum(sha256.New, []byte(secret), parts...)
}

// cutPrefixFold removes prefix from v, ignoring ASCII case.
func cutPrefixFold(v, prefix string) (string, bool) {
	if len(v) < len(prefix) || !strings.EqualFold(v[:len(prefix)], prefix) {
		return v, false
	}
	return v[len(prefix):], true
}

// decodeBase64 decodes the standard alphabet, padded or not.
func decodeBase64(v string) ([]byte, error) {
	if strings.HasSuffix(v, "=") {
		return base64.StdEncoding.DecodeString(v)
	}
	return base64.RawStdEncoding.DecodeString(v)
}
